import Supercluster from 'supercluster';
import { toMapCrs, type Crs } from './basemap';
import type { LonLat } from './geo';
import {
  ALARM_COLOR,
  categoryColor,
  OFFLINE_COLOR,
  STATE_COLORS,
  VEHICLE_CATEGORIES,
  vehicleCategory,
  type VehicleCategory,
} from './vehicleStyle';

/** One vehicle on the map (WGS-84; the index places it in the basemap's CRS). */
export interface MapVehicle {
  id: string;
  position: LonLat;
  /** off | idle | moving | loaded: the dot's colour. */
  state: string;
  online: boolean;
  alarm: boolean;
  /** Heading in degrees (0 north, clockwise): the arrow's direction. */
  direction: number;
}

/** Beyond this zoom vehicles are never clustered (FlyTo zooms to 16: a vehicle flown to is on its own). */
export const CLUSTER_MAX_ZOOM = 15;
/** Vehicles closer than this on screen (px, at a tile size of 512 as MapLibre's sources) make one cluster. */
export const CLUSTER_RADIUS = 44;

type Counts = Record<VehicleCategory, number> & { alarm: number };
interface PointProps {
  v: MapVehicle;
}

/** What the canvas draws at a point of the screen: one vehicle, or a cluster of several. */
export type Marker =
  | { kind: 'vehicle'; x: number; y: number; vehicle: MapVehicle; selected: boolean; at: LonLat }
  | { kind: 'cluster'; x: number; y: number; count: number; clusterId: number; at: LonLat; color: string; alarm: boolean };

/** The map's side of the index: what is in view, and where a position lands on the screen (CSS px). */
export interface View {
  /** [west, south, east, north] of what is shown (a margin added by the caller). */
  bounds: [number, number, number, number];
  zoom: number;
  project: (p: LonLat) => { x: number; y: number };
}

/** The colour of the category most of a cluster's vehicles are in (ties: the first in the legend's order). */
export function dominantColor(counts: Counts): string {
  let best: VehicleCategory = VEHICLE_CATEGORIES[0];
  for (const c of VEHICLE_CATEGORIES) if (counts[c] > counts[best]) best = c;
  return categoryColor(best);
}

/** A cluster's count as it is shown: 1234 → 1.2k, 12345 → 12k. */
export function abbreviate(n: number): string {
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${Math.round(n / 100) / 10}k`;
  return String(n);
}

/** The radius of a cluster's circle by its count (as the old map's step: 14, 17, 21, 25 px). */
export function clusterRadius(count: number): number {
  if (count >= 200) return 25;
  if (count >= 50) return 21;
  if (count >= 10) return 17;
  return 14;
}

/**
 * The fleet clustered for every zoom (supercluster: a k-d tree per zoom, built once per data change), asked for the
 * markers of a view. Each cluster counts its vehicles by category and knows whether one has an alarm in progress.
 */
export class VehicleIndex {
  private index: Supercluster<PointProps, Counts> = VehicleIndex.make();
  private count = 0;

  private static make(): Supercluster<PointProps, Counts> {
    return new Supercluster<PointProps, Counts>({
      radius: CLUSTER_RADIUS,
      maxZoom: CLUSTER_MAX_ZOOM,
      extent: 512,
      map: ({ v }) => {
        const counts = { moving: 0, loaded: 0, idle: 0, off: 0, offline: 0, alarm: v.alarm ? 1 : 0 };
        counts[vehicleCategory(v)] = 1;
        return counts;
      },
      reduce: (acc, p) => {
        for (const c of VEHICLE_CATEGORIES) acc[c] += p[c];
        acc.alarm = Math.max(acc.alarm, p.alarm);
      },
    });
  }

  /** Takes the fleet (replacing the one before), placed in the basemap's CRS. */
  load(vehicles: readonly MapVehicle[], crs: Crs): void {
    this.index = VehicleIndex.make();
    this.index.load(
      vehicles.map((v) => ({ type: 'Feature', properties: { v }, geometry: { type: 'Point', coordinates: toMapCrs(v.position, crs) } })),
    );
    this.count = vehicles.length;
  }

  get size(): number {
    return this.count;
  }

  /** The markers of a view, clusters under single vehicles and the selected vehicle last (drawn on top). */
  markers(view: View, selected: string | null): Marker[] {
    if (this.count === 0) return [];
    const [w, s, e, n] = view.bounds;
    const zoom = Math.max(0, Math.floor(view.zoom));
    const features = this.index.getClusters([Math.max(-180, w), Math.max(-85, s), Math.min(180, e), Math.min(85, n)], zoom);
    const clusters: Marker[] = [];
    const vehicles: Marker[] = [];
    let chosen: Marker | null = null;
    for (const f of features) {
      const at = f.geometry.coordinates as LonLat;
      const { x, y } = view.project(at);
      const p = f.properties;
      if ('cluster' in p && p.cluster) {
        clusters.push({ kind: 'cluster', x, y, count: p.point_count, clusterId: p.cluster_id, at, color: dominantColor(p), alarm: p.alarm > 0 });
      } else {
        const v = (p as PointProps).v;
        const marker: Marker = { kind: 'vehicle', x, y, vehicle: v, selected: v.id === selected, at };
        if (v.id === selected) chosen = marker;
        else vehicles.push(marker);
      }
    }
    return chosen ? [...clusters, ...vehicles, chosen] : [...clusters, ...vehicles];
  }

  /** The zoom at which a cluster falls apart (a click on it zooms there). */
  expansionZoom(clusterId: number): number {
    try {
      return this.index.getClusterExpansionZoom(clusterId);
    } catch {
      return CLUSTER_MAX_ZOOM + 1; // the cluster has gone with new positions: zoom past clustering
    }
  }
}

const DOT = 8;
const DOT_SELECTED = 11;
const FONT = '600 12px -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

function vehicleColor(v: MapVehicle): string {
  if (!v.online) return OFFLINE_COLOR;
  return STATE_COLORS[v.state] ?? STATE_COLORS.off;
}

/** The outer radius of a marker, stroke included (what a click may hit). */
export function markerRadius(m: Marker): number {
  if (m.kind === 'cluster') return clusterRadius(m.count) + (m.alarm ? 3 : 2);
  return (m.selected ? DOT_SELECTED : DOT) + (m.vehicle.alarm || m.selected ? 3 : 1.5);
}

/**
 * Draws the markers on a 2D canvas whose context is scaled to CSS pixels: clusters (a circle in the colour of most of
 * their vehicles, their count, a red ring when one has an alarm), then single vehicles (a dot in the colour of
 * their state, a red ring for an alarm, larger when selected, a white heading arrow when moving).
 */
export function drawMarkers(ctx: CanvasRenderingContext2D, markers: readonly Marker[]): void {
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.font = FONT;
  for (const m of markers) {
    if (m.kind === 'cluster') {
      const r = clusterRadius(m.count);
      ctx.beginPath();
      ctx.arc(m.x, m.y, r, 0, 2 * Math.PI);
      ctx.globalAlpha = 0.92;
      ctx.fillStyle = m.color;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.lineWidth = m.alarm ? 3 : 2;
      ctx.strokeStyle = m.alarm ? ALARM_COLOR : '#ffffff';
      ctx.stroke();
      ctx.fillStyle = '#ffffff';
      ctx.fillText(abbreviate(m.count), m.x, m.y + 0.5);
      continue;
    }
    const v = m.vehicle;
    const r = m.selected ? DOT_SELECTED : DOT;
    ctx.beginPath();
    ctx.arc(m.x, m.y, r, 0, 2 * Math.PI);
    ctx.fillStyle = vehicleColor(v);
    ctx.fill();
    ctx.lineWidth = v.alarm || m.selected ? 3 : 1.5;
    ctx.strokeStyle = v.alarm ? ALARM_COLOR : '#ffffff';
    ctx.stroke();
    if (v.online && v.state === 'moving') {
      // a white chevron pointing where the vehicle heads (0 north, clockwise)
      const a = (v.direction * Math.PI) / 180;
      const s = r * 0.9;
      const point = (dx: number, dy: number): [number, number] => [m.x + dx * Math.cos(a) - dy * Math.sin(a), m.y + dx * Math.sin(a) + dy * Math.cos(a)];
      ctx.beginPath();
      ctx.moveTo(...point(0, -s * 0.75));
      ctx.lineTo(...point(s * 0.6, s * 0.55));
      ctx.lineTo(...point(0, s * 0.25));
      ctx.lineTo(...point(-s * 0.6, s * 0.55));
      ctx.closePath();
      ctx.fillStyle = '#ffffff';
      ctx.fill();
    }
  }
}

/** The marker under a point of the screen (CSS px): the topmost one whose circle holds it. */
export function hitTest(markers: readonly Marker[], x: number, y: number): Marker | null {
  for (let i = markers.length - 1; i >= 0; i -= 1) {
    const m = markers[i];
    const r = markerRadius(m);
    if ((m.x - x) ** 2 + (m.y - y) ** 2 <= r * r) return m;
  }
  return null;
}
