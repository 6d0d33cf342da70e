import { describe, expect, it } from 'vitest';
import { abbreviate, clusterRadius, dominantColor, hitTest, VehicleIndex, type MapVehicle, type Marker, type View } from './vehicleCanvas';
import { gridLines } from './camera';
import { categoryColor, OFFLINE_COLOR } from './vehicleStyle';

const v = (id: string, position: [number, number], extra: Partial<MapVehicle> = {}): MapVehicle => ({
  id,
  position,
  state: 'idle',
  online: true,
  alarm: false,
  direction: 0,
  ...extra,
});

/** A view of the whole world at `zoom`, projected as Web Mercator pixels of a 512 px world (as the map does). */
function world(zoom: number): View {
  const size = 512 * 2 ** zoom;
  return {
    bounds: [-180, -85, 180, 85],
    zoom,
    project: ([lon, lat]) => {
      const sin = Math.sin((lat * Math.PI) / 180);
      return { x: ((lon + 180) / 360) * size, y: (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size };
    },
  };
}

describe('VehicleIndex: the fleet clustered for the view', () => {
  const yard: MapVehicle[] = [
    v('1', [120.0, 30.0], { state: 'moving' }),
    v('2', [120.0001, 30.0001], { state: 'moving' }),
    v('3', [120.0002, 30.0], { state: 'loaded', alarm: true }),
    v('4', [121.0, 31.0], { online: false }),
  ];

  it('clusters vehicles that are close on screen, counting them by category with their alarm, and keeps the rest single', async () => {
    const index = new VehicleIndex();
    await index.load(yard, 'WGS84');
    const markers = index.markers(world(10), null);
    const clusters = markers.filter((m) => m.kind === 'cluster');
    const singles = markers.filter((m) => m.kind === 'vehicle');
    expect(clusters).toHaveLength(1);
    expect(clusters[0]).toMatchObject({ count: 3, alarm: true, color: categoryColor('moving') });
    expect(singles.map((m) => m.kind === 'vehicle' && m.vehicle.id)).toEqual(['4']);
    // every vehicle is counted once
    expect(markers.reduce((n, m) => n + (m.kind === 'cluster' ? m.count : 1), 0)).toBe(4);
  });

  it('shows every vehicle on its own past the clustering zoom, the selected one last (on top)', async () => {
    const index = new VehicleIndex();
    await index.load(yard, 'WGS84');
    const markers = index.markers(world(17), '2');
    expect(markers.every((m) => m.kind === 'vehicle')).toBe(true);
    expect(markers).toHaveLength(4);
    const last = markers[markers.length - 1];
    expect(last.kind === 'vehicle' && last.vehicle.id).toBe('2');
    expect(last.kind === 'vehicle' && last.selected).toBe(true);
  });

  it('leaves out what is outside the view, and a cluster tells the zoom at which it falls apart', async () => {
    const index = new VehicleIndex();
    await index.load(yard, 'WGS84');
    const view = { ...world(10), bounds: [119.5, 29.5, 120.5, 30.5] as [number, number, number, number] };
    const markers = index.markers(view, null);
    expect(markers).toHaveLength(1);
    const cluster = markers[0];
    expect(cluster.kind).toBe('cluster');
    if (cluster.kind === 'cluster') expect(index.expansionZoom(cluster.clusterId)).toBeGreaterThan(10);
    expect(index.expansionZoom(987654)).toBe(16); // a cluster gone with new positions: past clustering
  });

  it('places vehicles in the basemap CRS (GCJ-02 moves a point in China by a few hundred metres)', async () => {
    const index = new VehicleIndex();
    await index.load([v('1', [120, 30])], 'GCJ02');
    const [m] = index.markers(world(18), null);
    expect(m.kind === 'vehicle' && m.at[0]).not.toBe(120);
    expect(Math.abs((m.kind === 'vehicle' ? m.at[0] : 0) - 120)).toBeLessThan(0.01);
  });
});

describe('what the markers look like and what a click hits', () => {
  it('colours a cluster by its most numerous category, the legend order breaking ties', () => {
    expect(dominantColor({ moving: 1, loaded: 3, idle: 0, off: 0, offline: 2, alarm: 0 })).toBe(categoryColor('loaded'));
    expect(dominantColor({ moving: 2, loaded: 2, idle: 0, off: 0, offline: 0, alarm: 1 })).toBe(categoryColor('moving'));
    expect(dominantColor({ moving: 0, loaded: 0, idle: 0, off: 0, offline: 5, alarm: 0 })).toBe(OFFLINE_COLOR);
  });

  it('abbreviates counts and grows clusters by steps', () => {
    expect([abbreviate(7), abbreviate(999), abbreviate(1234), abbreviate(12_345)]).toEqual(['7', '999', '1.2k', '12k']);
    expect([clusterRadius(2), clusterRadius(10), clusterRadius(50), clusterRadius(2000)]).toEqual([14, 17, 21, 25]);
  });

  it('hits the topmost marker under the pointer, within its ring, and nothing beside it', () => {
    const under: Marker = { kind: 'vehicle', x: 100, y: 100, vehicle: v('a', [0, 0]), selected: false, at: [0, 0] };
    const over: Marker = { kind: 'vehicle', x: 105, y: 100, vehicle: v('b', [0, 0]), selected: false, at: [0, 0] };
    const hit = hitTest([under, over], 102, 100);
    expect(hit?.kind === 'vehicle' && hit.vehicle.id).toBe('b');
    expect(hitTest([under], 100, 109)?.kind).toBe('vehicle'); // 8 px dot + 1.5 px ring
    expect(hitTest([under], 100, 111)).toBeNull();
  });
});

describe('gridLines: the plain background grid moves with the map', () => {
  it('puts lines at the world multiples of the cell', () => {
    expect(gridLines(0, 100, 32)).toEqual([0, 32, 64, 96]);
    expect(gridLines(10, 100, 32)).toEqual([22, 54, 86]);
    expect(gridLines(-10, 40, 32)).toEqual([10]);
    expect(gridLines(64, 32, 32)).toEqual([0, 32]);
  });
});
