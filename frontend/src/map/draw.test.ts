import { describe, expect, it } from 'vitest';
import { distance } from './geo';
import { featureShape, shapeFeature } from './draw';

describe('shapes as terra-draw features', () => {
  it('round-trips a circle (mercator centre, radius in whole metres)', () => {
    const feature = shapeFeature({ kind: 'circle', center: [116.397, 39.909], radius: 800 }, 'a');
    expect(feature.properties).toEqual({ mode: 'circle', radiusKilometers: 0.8 });
    expect(feature.geometry.type).toBe('Polygon');
    const back = featureShape(feature);
    expect(back?.kind).toBe('circle');
    if (back?.kind !== 'circle') return;
    expect(distance(back.center, [116.397, 39.909])).toBeLessThan(0.5);
    expect(Math.abs(back.radius - 800)).toBeLessThanOrEqual(2);
  });

  it('round-trips a polygon as its open vertex list', () => {
    const points: [number, number][] = [
      [121.1, 31.1],
      [121.2, 31.1],
      [121.2, 31.2],
    ];
    const feature = shapeFeature({ kind: 'polygon', points }, 'b');
    expect(feature.geometry.type === 'Polygon' && feature.geometry.coordinates[0]).toEqual([...points, points[0]]);
    expect(featureShape(feature)).toEqual({ kind: 'polygon', points });
  });

  it('ignores what is not a polygon', () => {
    expect(featureShape({ type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: { mode: 'point' } })).toBeNull();
  });
});
