import type { CameraMouseEvent, MapCamera } from './camera';
import type { Crs } from './basemap';
import type { LonLat } from './geo';
import { drawMarkers, hitTest, VehicleIndex, type MapVehicle, type Marker } from './vehicleCanvas';

/** The map follows the fleet at most this often (ms): the list follows each live batch, the map need not. */
export const MAP_UPDATE_MS = 1000;

/** What the overlay draws, as the browser tests read it (`[data-testid="map"]`'s `vehicleMarkers()`). */
export interface DrawnMarker {
  kind: 'vehicle' | 'cluster';
  /** The vehicle's id, or the cluster's. */
  id: string;
  count: number;
  x: number;
  y: number;
  /** Where it is, in the basemap's CRS. */
  at: LonLat;
}

interface Wanted {
  vehicles: readonly MapVehicle[];
  selected: string | null;
  crs: Crs;
}

/**
 * The fleet drawn on a 2D canvas over the map, not in the map's WebGL scene: a live update then redraws this canvas
 * only, and the map itself draws a frame only when its view moves. Without a GPU (a control-room PC, a headless
 * browser) every WebGL frame is drawn in software and read back before the page can go on (50–150 ms on a small
 * machine); a 2D canvas of a few thousand circles costs a few milliseconds.
 *
 * The canvas sits in the map's canvas container (over the map, under its controls) and lets pointer events through
 * to the map; clicks and the cursor are the overlay's own hit tests on what it drew last. The fleet is clustered
 * with supercluster in a worker (`VehicleIndex`), at most once per MAP_UPDATE_MS with the newest vehicles.
 */
export class VehicleOverlay {
  readonly canvas: HTMLCanvasElement;
  private readonly index = new VehicleIndex();
  private markers: Marker[] = [];
  private wanted: Wanted = { vehicles: [], selected: null, crs: 'WGS84' };
  private loaded: { vehicles: readonly MapVehicle[]; crs: Crs } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private last = -Infinity;
  private hovering = false;
  private map: MapCamera | null = null;
  /** The map's size in CSS pixels, as last measured (a draw does not lay the page out again to learn it). */
  private size = { width: 0, height: 0 };
  private frame: number | null = null;

  constructor(
    private readonly onSelect: (id: string) => void,
    private readonly intervalMs = MAP_UPDATE_MS,
  ) {
    const canvas = document.createElement('canvas');
    canvas.className = 'map-vehicles';
    canvas.setAttribute('aria-hidden', 'true');
    this.canvas = canvas;
  }

  /**
   * Draws on that map's camera (from now on, instead of the one before: the plain camera hands over to MapLibre, and
   * the vehicles clustered for the one are drawn on the other at once).
   */
  attach(map: MapCamera): void {
    this.detach();
    this.map = map;
    map.getCanvasContainer().appendChild(this.canvas);
    map.on('move', this.draw);
    map.on('resize', this.resize);
    map.on('click', this.click);
    map.on('mousemove', this.hover);
    // measured in the next frame, whose layout the page needs anyway, not in the commit that attaches it (reading the
    // size there lays out the whole page the commit has just changed: 4-8 ms on the monitor)
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.resize();
    });
  }

  detach(): void {
    const { map } = this;
    if (!map) return;
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    map.off('move', this.draw);
    map.off('resize', this.resize);
    map.off('click', this.click);
    map.off('mousemove', this.hover);
    if (this.hovering) map.getCanvas().style.cursor = '';
    this.hovering = false;
    this.canvas.remove();
    this.map = null;
  }

  /** The fleet, the selection and the CRS wanted now: a new selection shows at once, a new fleet within the interval. */
  set(wanted: Wanted): void {
    const selectionOnly = this.loaded !== null && wanted.vehicles === this.loaded.vehicles && wanted.crs === this.loaded.crs;
    this.wanted = wanted;
    if (selectionOnly) this.draw();
    else this.schedule();
  }

  /** Where the markers are (for the browser tests). */
  drawn(): DrawnMarker[] {
    return this.markers.map((m) =>
      m.kind === 'cluster'
        ? { kind: 'cluster', id: `c${m.clusterId}`, count: m.count, x: m.x, y: m.y, at: m.at }
        : { kind: 'vehicle', id: m.vehicle.id, count: 1, x: m.x, y: m.y, at: m.at },
    );
  }

  destroy(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.detach();
    this.index.dispose();
  }

  private schedule(): void {
    if (this.timer !== null) return;
    const wait = Math.max(0, this.last + this.intervalMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.last = performance.now();
      const { vehicles, crs } = this.wanted;
      void this.index.load(vehicles, crs).then((taken) => {
        if (!taken) return;
        this.loaded = { vehicles, crs };
        this.draw();
      });
    }, wait);
  }

  private readonly resize = (): void => {
    if (!this.map) return;
    const { clientWidth: width, clientHeight: height } = this.map.getContainer();
    this.size = { width, height };
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(width * ratio));
    this.canvas.height = Math.max(1, Math.round(height * ratio));
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    // before the first fleet there is nothing to draw (the canvas's first drawing allocates its pixels: that comes
    // with the fleet's, in a task of its own)
    if (this.loaded !== null) this.draw();
  };

  /** Redraws what is in view (plus a margin, so that a marker half out of view is still drawn). */
  private readonly draw = (): void => {
    const { map } = this;
    const ctx = this.canvas.getContext('2d');
    if (!ctx || !map) return;
    const { width, height } = this.size;
    const margin = 32;
    const nw = map.unproject([-margin, -margin]);
    const se = map.unproject([width + margin, height + margin]);
    this.markers = this.index.markers(
      {
        bounds: [Math.min(nw.lng, se.lng), Math.min(nw.lat, se.lat), Math.max(nw.lng, se.lng), Math.max(nw.lat, se.lat)],
        zoom: map.getZoom(),
        project: (p) => map.project(p),
      },
      this.wanted.selected,
    );
    const ratio = this.canvas.width / Math.max(1, width);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    drawMarkers(ctx, this.markers);
  };

  private readonly click = (e: CameraMouseEvent): void => {
    const hit = hitTest(this.markers, e.point.x, e.point.y);
    if (!hit) return;
    if (hit.kind === 'vehicle') {
      this.onSelect(hit.vehicle.id);
      return;
    }
    const zoom = Math.min(this.index.expansionZoom(hit.clusterId), 18);
    this.map?.easeTo({ center: hit.at, zoom, duration: 500 });
  };

  private readonly hover = (e: CameraMouseEvent): void => {
    const over = hitTest(this.markers, e.point.x, e.point.y) !== null;
    if (over === this.hovering) return;
    this.hovering = over;
    if (this.map) this.map.getCanvas().style.cursor = over ? 'pointer' : '';
  };
}
