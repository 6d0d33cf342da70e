import { toMapCrs, type Crs } from './basemap';
import { CLUSTER_MAX_ZOOM, clusterFleet, dominantCategory, type ClusterInput, type Counts, type ZoomTable } from './cluster';
import type { ClusterReply, ClusterRequest } from './cluster.worker';
import type { LonLat } from './geo';
import { ALARM_COLOR, categoryColor, OFFLINE_COLOR, STATE_COLORS, VEHICLE_CATEGORIES, vehicleCategory } from './vehicleStyle';

export { CLUSTER_MAX_ZOOM, CLUSTER_RADIUS } from './cluster';

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
  return categoryColor(dominantCategory(counts));
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

/** The fleet as the clusterer takes it (typed arrays, handed to the worker without copying). */
function encode(vehicles: readonly MapVehicle[], crs: Crs): ClusterInput {
  const n = vehicles.length;
  const input: ClusterInput = { coords: new Float64Array(2 * n), category: new Uint8Array(n), alarm: new Uint8Array(n) };
  vehicles.forEach((v, i) => {
    [input.coords[2 * i], input.coords[2 * i + 1]] = toMapCrs(v.position, crs);
    input.category[i] = VEHICLE_CATEGORIES.indexOf(vehicleCategory(v));
    input.alarm[i] = v.alarm ? 1 : 0;
  });
  return input;
}

/**
 * The fleet clustered for every zoom (`clusterFleet`: supercluster, then the clusters listed by zoom), asked for the
 * markers of a view: a view reads the table of its zoom only. The clustering runs in a worker where the browser has
 * them (for a few thousand vehicles it made the page's longest task, each time the fleet moved), else at once.
 */
export class VehicleIndex {
  private tables: ZoomTable[] = [];
  private vehicles: readonly MapVehicle[] = [];
  private worker: Worker | null = null;
  private inWorker = typeof Worker !== 'undefined';
  private seq = 0;
  private readonly waiting = new Map<number, { vehicles: readonly MapVehicle[]; input: ClusterInput; done: (applied: boolean) => void }>();

  /**
   * Takes the fleet (replacing the one before), placed in the basemap's CRS. Resolves with true once its clusters
   * are in (the markers are the new fleet's from then on), false when a newer fleet came first.
   */
  load(vehicles: readonly MapVehicle[], crs: Crs): Promise<boolean> {
    const input = encode(vehicles, crs);
    const seq = (this.seq += 1);
    const worker = this.inWorker ? this.startWorker() : null;
    if (!worker) {
      this.apply(vehicles, clusterFleet(input));
      return Promise.resolve(true);
    }
    return new Promise((done) => {
      this.waiting.set(seq, { vehicles, input, done });
      worker.postMessage({ seq, input } satisfies ClusterRequest);
    });
  }

  get size(): number {
    return this.vehicles.length;
  }

  /** Stops the worker; a fleet still waiting for it is not taken. */
  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.inWorker = false;
    for (const w of this.waiting.values()) w.done(false);
    this.waiting.clear();
  }

  private startWorker(): Worker | null {
    if (this.worker) return this.worker;
    try {
      const worker = new Worker(new URL('./cluster.worker.ts', import.meta.url), { type: 'module' });
      worker.onmessage = (e: MessageEvent<ClusterReply>) => this.reply(e.data);
      // a worker that cannot start (a policy, an old browser): the fleets waiting are clustered here, and so are the next
      worker.onerror = () => this.fallBack();
      this.worker = worker;
      return worker;
    } catch {
      this.inWorker = false;
      return null;
    }
  }

  private reply({ seq, tables }: ClusterReply): void {
    const wanted = this.waiting.get(seq);
    if (!wanted) return;
    for (const [s, w] of this.waiting) {
      if (s > seq) continue;
      this.waiting.delete(s);
      if (s < seq) w.done(false); // a newer fleet is in
    }
    this.apply(wanted.vehicles, tables);
    wanted.done(true);
  }

  private fallBack(): void {
    this.worker?.terminate();
    this.worker = null;
    this.inWorker = false;
    const last = [...this.waiting.entries()].sort((a, b) => a[0] - b[0]);
    this.waiting.clear();
    last.forEach(([, w], k) => {
      if (k === last.length - 1) this.apply(w.vehicles, clusterFleet(w.input));
      w.done(k === last.length - 1);
    });
  }

  private apply(vehicles: readonly MapVehicle[], tables: ZoomTable[]): void {
    this.vehicles = vehicles;
    this.tables = tables;
  }

  /** The markers of a view, clusters under single vehicles and the selected vehicle last (drawn on top). */
  markers(view: View, selected: string | null): Marker[] {
    const t = this.tables[Math.min(this.tables.length - 1, Math.max(0, Math.floor(view.zoom)))];
    if (!t || this.vehicles.length === 0) return [];
    const [w, s, e, n] = view.bounds;
    const clusters: Marker[] = [];
    const vehicles: Marker[] = [];
    let chosen: Marker | null = null;
    for (let k = 0; k < t.x.length; k += 1) {
      const at: LonLat = [t.x[k], t.y[k]];
      if (at[0] < w || at[0] > e || at[1] < s || at[1] > n) continue;
      const { x, y } = view.project(at);
      if (t.cluster[k]) {
        const color = categoryColor(VEHICLE_CATEGORIES[t.category[k]]);
        clusters.push({ kind: 'cluster', x, y, count: t.count[k], clusterId: t.id[k], at, color, alarm: t.alarm[k] > 0 });
        continue;
      }
      const v = this.vehicles[t.id[k]];
      const marker: Marker = { kind: 'vehicle', x, y, vehicle: v, selected: v.id === selected, at };
      if (v.id === selected) chosen = marker;
      else vehicles.push(marker);
    }
    return chosen ? [...clusters, ...vehicles, chosen] : [...clusters, ...vehicles];
  }

  /** The zoom at which a cluster falls apart (a click on it zooms there). */
  expansionZoom(clusterId: number): number {
    for (const t of this.tables) {
      for (let k = 0; k < t.id.length; k += 1) if (t.cluster[k] && t.id[k] === clusterId) return t.expansion[k];
    }
    return CLUSTER_MAX_ZOOM + 1; // the cluster has gone with new positions: zoom past clustering
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
