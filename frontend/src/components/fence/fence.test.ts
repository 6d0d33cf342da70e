import { describe, expect, it } from 'vitest';
import {
  FENCE_CIRCLE,
  FENCE_POLYGON,
  fenceGeometry,
  fencePayload,
  formValuesOf,
  kindOfType,
  needsSpeedLimit,
  shapeOfFence,
  shapeProblem,
  type FenceFormValues,
} from './fence';
import type { Shape } from '../../map/shape';

const square: [number, number][] = [
  [121.1, 31.1],
  [121.2, 31.1],
  [121.2, 31.2],
  [121.1, 31.2],
];

describe('fence ↔ shape', () => {
  it('reads a circle', () => {
    expect(shapeOfFence({ fenceType: FENCE_CIRCLE, centerLon: 121.5, centerLat: 31.2, radius: 250 })).toEqual({
      kind: 'circle',
      center: [121.5, 31.2],
      radius: 250,
    });
    // numbers as strings are read too
    expect(shapeOfFence({ fenceType: '1', centerLon: '121.5', centerLat: '31.2', radius: '250' } as never)).toEqual({
      kind: 'circle',
      center: [121.5, 31.2],
      radius: 250,
    });
  });

  it('reads a polygon, dropping a closing vertex and junk', () => {
    expect(shapeOfFence({ fenceType: FENCE_POLYGON, points: [...square, square[0]] })).toEqual({ kind: 'polygon', points: square });
    expect(shapeOfFence({ fenceType: FENCE_POLYGON, points: [[1, 2], ['x', 3], [4]] as never })).toEqual({
      kind: 'polygon',
      points: [[1, 2]],
    });
  });

  it('has no shape without geometry', () => {
    expect(shapeOfFence({ fenceType: FENCE_CIRCLE, centerLon: 121.5 })).toBeNull();
    expect(shapeOfFence({ fenceType: FENCE_POLYGON, points: null })).toBeNull();
    expect(shapeOfFence({})).toBeNull();
  });

  it('writes the geometry of one type and clears the other', () => {
    expect(fenceGeometry({ kind: 'circle', center: [121.123456789, 31.987654321], radius: 250.6 })).toEqual({
      fenceType: FENCE_CIRCLE,
      centerLon: 121.1234568,
      centerLat: 31.9876543,
      radius: 251,
      points: null,
    });
    expect(fenceGeometry({ kind: 'polygon', points: square })).toEqual({
      fenceType: FENCE_POLYGON,
      centerLon: null,
      centerLat: null,
      radius: null,
      points: square,
    });
  });

  it('maps types to kinds', () => {
    expect(kindOfType(1)).toBe('circle');
    expect(kindOfType('2')).toBe('polygon');
    expect(kindOfType(undefined)).toBe('circle');
  });
});

describe('checks before saving', () => {
  const circle = (radius: number): Shape => ({ kind: 'circle', center: [121.5, 31.2], radius });
  const polygon = (n: number): Shape => ({
    kind: 'polygon',
    points: Array.from({ length: n }, (_, i) => [121 + Math.cos((2 * Math.PI * i) / n) / 10, 31 + Math.sin((2 * Math.PI * i) / n) / 10]),
  });

  it('requires a shape of the fence type', () => {
    expect(shapeProblem(null, FENCE_CIRCLE)?.key).toBe('fence.error.drawCircle');
    expect(shapeProblem(null, FENCE_POLYGON)?.key).toBe('fence.error.drawPolygon');
    expect(shapeProblem(circle(100), FENCE_POLYGON)?.key).toBe('fence.error.typeMismatch');
    expect(shapeProblem(polygon(4), FENCE_CIRCLE)?.key).toBe('fence.error.typeMismatch');
  });

  it('keeps radii within 10–100000 m', () => {
    expect(shapeProblem(circle(10), FENCE_CIRCLE)).toBeNull();
    expect(shapeProblem(circle(100_000), FENCE_CIRCLE)).toBeNull();
    expect(shapeProblem(circle(9), FENCE_CIRCLE)).toEqual({ key: 'fence.error.radius', values: { min: 10, max: 100_000 } });
    expect(shapeProblem(circle(100_001), FENCE_CIRCLE)?.key).toBe('fence.error.radius');
  });

  it('keeps polygons within 3–64 vertices and without crossing edges', () => {
    expect(shapeProblem(polygon(2), FENCE_POLYGON)).toEqual({ key: 'fence.error.tooFewVertices', values: { min: 3, count: 2 } });
    expect(shapeProblem(polygon(3), FENCE_POLYGON)).toBeNull();
    expect(shapeProblem(polygon(64), FENCE_POLYGON)).toBeNull();
    expect(shapeProblem(polygon(65), FENCE_POLYGON)).toEqual({ key: 'fence.error.tooManyVertices', values: { max: 64, count: 65 } });
    const bowTie: Shape = { kind: 'polygon', points: [square[0], square[2], square[1], square[3]] };
    expect(shapeProblem(bowTie, FENCE_POLYGON)?.key).toBe('fence.error.selfIntersecting');
  });

  it('refuses coordinates off the globe', () => {
    expect(shapeProblem({ kind: 'circle', center: [181, 0], radius: 100 }, FENCE_CIRCLE)?.key).toBe('fence.error.outOfRange');
  });
});

describe('form ↔ payload', () => {
  it('fills a new fence with defaults', () => {
    expect(formValuesOf({})).toEqual({
      name: '',
      fenceType: FENCE_CIRCLE,
      alarmMode: 1,
      speedLimit: null,
      enableStatus: true,
      mechanismId: undefined,
      remark: '',
    });
  });

  it('reads a stored fence', () => {
    const values = formValuesOf({ name: 'Dock', fenceType: 2, alarmMode: 5, speedLimit: 8, enableStatus: 0, mechanismId: '42', remark: 'r' });
    expect(values).toEqual({ name: 'Dock', fenceType: 2, alarmMode: 5, speedLimit: 8, enableStatus: false, mechanismId: '42', remark: 'r' });
  });

  it('sends a speed limit only for the speed-limit modes', () => {
    expect([1, 2, 3, 4, 5].map(needsSpeedLimit)).toEqual([false, false, false, true, true]);
    const values: FenceFormValues = { name: ' Dock ', fenceType: 1, alarmMode: 3, speedLimit: 12, enableStatus: true, remark: '' };
    const shape: Shape = { kind: 'circle', center: [121.5, 31.2], radius: 300 };
    expect(fencePayload(values, shape, ['7'])).toEqual({
      name: 'Dock',
      alarmMode: 3,
      enableStatus: 1,
      speedLimit: null,
      mechanismId: null,
      remark: '',
      carIds: ['7'],
      fenceType: 1,
      centerLon: 121.5,
      centerLat: 31.2,
      radius: 300,
      points: null,
    });
    const limited = fencePayload({ ...values, alarmMode: 4, enableStatus: false, mechanismId: '9' }, { kind: 'polygon', points: square }, [], '5');
    expect(limited).toMatchObject({ id: '5', alarmMode: 4, speedLimit: 12, enableStatus: 0, mechanismId: '9', fenceType: 2, points: square });
  });
});
