import Supercluster from 'supercluster';
import { VEHICLE_CATEGORIES, type VehicleCategory } from './vehicleStyle';

/** Beyond this zoom vehicles are never clustered (FlyTo zooms to 16: a vehicle flown to is on its own). */
export const CLUSTER_MAX_ZOOM = 15;
/** Vehicles closer than this on screen (px, at a tile size of 512 as MapLibre's sources) make one cluster. */
export const CLUSTER_RADIUS = 44;

/** A cluster's vehicles by category, and whether one of them has an alarm in progress (0 or 1). */
export type Counts = Record<VehicleCategory, number> & { alarm: number };

/** The fleet as the clusterer takes it: per vehicle its position in the basemap's CRS, its category and alarm. */
export interface ClusterInput {
  /** lon, lat of each vehicle in turn */
  coords: Float64Array;
  /** the index of its category in VEHICLE_CATEGORIES */
  category: Uint8Array;
  /** 1: an alarm in progress */
  alarm: Uint8Array;
}

/**
 * What is drawn at one zoom: entry i is a cluster (`cluster[i]` 1: its id, vehicle count, the category most of its
 * vehicles are in, whether one has an alarm, and the zoom at which it falls apart) or one vehicle (its index in the
 * input as `id`). Typed arrays, so that a worker hands them over without copying.
 */
export interface ZoomTable {
  x: Float64Array;
  y: Float64Array;
  cluster: Uint8Array;
  id: Float64Array;
  count: Uint32Array;
  category: Uint8Array;
  alarm: Uint8Array;
  expansion: Uint8Array;
}

/** The category most of a cluster's vehicles are in (ties: the first in the legend's order). */
export function dominantCategory(counts: Counts): VehicleCategory {
  let best: VehicleCategory = VEHICLE_CATEGORIES[0];
  for (const c of VEHICLE_CATEGORIES) if (counts[c] > counts[best]) best = c;
  return best;
}

/**
 * The fleet clustered for every zoom from 0 to CLUSTER_MAX_ZOOM + 1 (where every vehicle is on its own): supercluster
 * builds a k-d tree per zoom, and the clusters of each zoom are listed once, so that a view needs only the table of
 * its zoom. Costs tens of milliseconds for a few thousand vehicles: the map runs it in a worker (cluster.worker.ts).
 */
export function clusterFleet(input: ClusterInput): ZoomTable[] {
  const n = input.category.length;
  const index = new Supercluster<{ i: number }, Counts>({
    radius: CLUSTER_RADIUS,
    maxZoom: CLUSTER_MAX_ZOOM,
    extent: 512,
    map: ({ i }) => {
      const counts: Counts = { moving: 0, loaded: 0, idle: 0, off: 0, offline: 0, alarm: input.alarm[i] };
      counts[VEHICLE_CATEGORIES[input.category[i]]] = 1;
      return counts;
    },
    reduce: (acc, p) => {
      for (const c of VEHICLE_CATEGORIES) acc[c] += p[c];
      acc.alarm = Math.max(acc.alarm, p.alarm);
    },
  });
  const points: Parameters<typeof index.load>[0] = [];
  for (let i = 0; i < n; i += 1) {
    points.push({ type: 'Feature', properties: { i }, geometry: { type: 'Point', coordinates: [input.coords[2 * i], input.coords[2 * i + 1]] } });
  }
  index.load(points);
  const tables: ZoomTable[] = [];
  for (let zoom = 0; zoom <= CLUSTER_MAX_ZOOM + 1; zoom += 1) {
    const features = index.getClusters([-180, -90, 180, 90], zoom);
    const m = features.length;
    const t: ZoomTable = {
      x: new Float64Array(m),
      y: new Float64Array(m),
      cluster: new Uint8Array(m),
      id: new Float64Array(m),
      count: new Uint32Array(m),
      category: new Uint8Array(m),
      alarm: new Uint8Array(m),
      expansion: new Uint8Array(m),
    };
    features.forEach((f, k) => {
      [t.x[k], t.y[k]] = f.geometry.coordinates;
      const p = f.properties;
      if ('cluster' in p && p.cluster) {
        t.cluster[k] = 1;
        t.id[k] = p.cluster_id;
        t.count[k] = p.point_count;
        t.category[k] = VEHICLE_CATEGORIES.indexOf(dominantCategory(p));
        t.alarm[k] = p.alarm > 0 ? 1 : 0;
        t.expansion[k] = Math.min(255, index.getClusterExpansionZoom(p.cluster_id));
      } else {
        const i = (p as { i: number }).i;
        t.id[k] = i;
        t.count[k] = 1;
        t.category[k] = input.category[i];
        t.alarm[k] = input.alarm[i];
      }
    });
    tables.push(t);
  }
  return tables;
}

/** The buffers of the tables (handed over, not copied, by postMessage). */
export function transferables(tables: readonly ZoomTable[]): ArrayBuffer[] {
  return tables.flatMap((t) => [t.x, t.y, t.cluster, t.id, t.count, t.category, t.alarm, t.expansion].map((a) => a.buffer as ArrayBuffer));
}
