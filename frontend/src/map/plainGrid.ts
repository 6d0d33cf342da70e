import type { Map as MapLibreMap } from 'maplibre-gl';
import { FALLBACK_BACKGROUND } from './basemap';

/** The world's width in CSS pixels at zoom 0 (MapLibre's tile size). */
const WORLD = 512;

/**
 * The offsets (CSS px, from the left or top edge) of the lines of a grid of `cell` px fixed to the world, on a screen
 * `length` px long whose edge is at world pixel `start`: the grid moves with the map as tiles would.
 */
export function gridLines(start: number, length: number, cell: number): number[] {
  const lines: number[] = [];
  const first = (cell - (((start % cell) + cell) % cell)) % cell;
  for (let at = first; at <= length; at += cell) lines.push(at);
  return lines;
}

/**
 * The map's background drawn on a 2D canvas when the map has nothing WebGL must draw (no basemap tiles loaded, no
 * site plan, no shapes): a light grid that moves with the map. The WebGL canvas is then hidden (MapView), so that
 * moving the map or updating the vehicles never waits for a WebGL frame, which a machine without a GPU draws in
 * software and reads back (tens of milliseconds each). The map keeps its camera, controls and gestures.
 */
export class PlainGrid {
  readonly canvas: HTMLCanvasElement;
  private on = false;

  constructor(private readonly map: MapLibreMap) {
    const canvas = document.createElement('canvas');
    canvas.className = 'map-plain';
    canvas.setAttribute('aria-hidden', 'true');
    // under everything else the map's canvas container holds (the vehicles' canvas comes later)
    map.getCanvasContainer().appendChild(canvas);
    this.canvas = canvas;
    map.on('move', this.draw);
    map.on('resize', this.resize);
    this.resize();
  }

  /** Shown (and drawn) or hidden. */
  show(on: boolean): void {
    this.on = on;
    this.canvas.style.display = on ? '' : 'none';
    this.draw();
  }

  destroy(): void {
    this.map.off('move', this.draw);
    this.map.off('resize', this.resize);
    this.canvas.remove();
  }

  private readonly resize = (): void => {
    const { clientWidth: width, clientHeight: height } = this.map.getContainer();
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(width * ratio));
    this.canvas.height = Math.max(1, Math.round(height * ratio));
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    this.draw();
  };

  private readonly draw = (): void => {
    if (!this.on) return;
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    const { map } = this;
    const { clientWidth: width, clientHeight: height } = map.getContainer();
    const ratio = this.canvas.width / Math.max(1, width);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = FALLBACK_BACKGROUND.color;
    ctx.fillRect(0, 0, width, height);
    // the world pixel at the top-left corner (Web Mercator, as the map's tiles)
    const size = WORLD * 2 ** map.getZoom();
    const { lng, lat } = map.getCenter();
    const sin = Math.sin((lat * Math.PI) / 180);
    const cx = ((lng + 180) / 360) * size;
    const cy = (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size;
    const cell = FALLBACK_BACKGROUND.cell;
    ctx.fillStyle = FALLBACK_BACKGROUND.line;
    for (const x of gridLines(cx - width / 2, width, cell)) ctx.fillRect(Math.round(x), 0, 1, height);
    for (const y of gridLines(cy - height / 2, height, cell)) ctx.fillRect(0, Math.round(y), width, 1);
  };
}
