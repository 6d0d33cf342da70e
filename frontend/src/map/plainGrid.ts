import type { Map as MapLibreMap } from 'maplibre-gl';
import { BACKGROUND_LAYER, FALLBACK_BACKGROUND } from './basemap';

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
 * The map's background when the map has nothing WebGL must draw (no basemap tiles loaded, no site plan, no shapes): a
 * light grid that moves with the map, as a CSS background of an element under the vehicles (the browser paints it
 * off the main thread; a move only shifts its position). The WebGL canvas is then hidden (MapView), so that moving
 * the map or updating the vehicles never waits for a WebGL frame, which a machine without a GPU draws in software
 * and reads back (tens of milliseconds each). The map keeps its camera, controls and gestures: the element takes the
 * pointer in the hidden canvas's place and lets events bubble to the map's canvas container.
 */
export class PlainGrid {
  readonly element: HTMLDivElement;
  private on = false;
  /** The map's style has loaded (its layers can be changed from then on). */
  private styled = false;

  constructor(private readonly map: MapLibreMap) {
    const element = document.createElement('div');
    element.className = 'map-plain';
    element.setAttribute('aria-hidden', 'true');
    const { color, line, cell } = FALLBACK_BACKGROUND;
    Object.assign(element.style, {
      backgroundColor: color,
      backgroundImage: `linear-gradient(to right, ${line} 1px, transparent 1px), linear-gradient(to bottom, ${line} 1px, transparent 1px)`,
      backgroundSize: `${cell}px ${cell}px`,
      display: 'none',
    });
    // under everything else the map's canvas container holds (the vehicles' canvas comes later)
    map.getCanvasContainer().appendChild(element);
    this.element = element;
    map.on('move', this.place);
    map.once('load', this.loaded);
  }

  /** Shown (and placed) or hidden. */
  show(on: boolean): void {
    this.on = on;
    this.element.style.display = on ? '' : 'none';
    this.place();
    this.background();
  }

  destroy(): void {
    this.map.off('move', this.place);
    this.map.off('load', this.loaded);
    this.element.remove();
  }

  private readonly loaded = (): void => {
    this.styled = true;
    this.background();
  };

  /**
   * The map's own (WebGL) background is drawn only where the grid is not: the style starts without it (basemapStyle),
   * so that the map's first frame compiles one shader program fewer (MapLibre still draws its sky: 15-25 ms profiled
   * for that frame's programs in software).
   */
  private background(): void {
    const { map } = this;
    if (this.styled && map.getLayer(BACKGROUND_LAYER)) map.setLayoutProperty(BACKGROUND_LAYER, 'visibility', this.on ? 'none' : 'visible');
  }

  /** The grid's lines stay where they are in the world (Web Mercator pixels, as the map's tiles). */
  private readonly place = (): void => {
    if (!this.on) return;
    const { map } = this;
    const size = WORLD * 2 ** map.getZoom();
    const { lng, lat } = map.getCenter();
    const sin = Math.sin((lat * Math.PI) / 180);
    const x = ((lng + 180) / 360) * size;
    const y = (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size;
    const { cell } = FALLBACK_BACKGROUND;
    // the element is the size of the map (its centre is the map's centre), as its canvas is (read without a layout)
    const canvas = map.getCanvas();
    const width = canvas.width / map.getPixelRatio();
    const height = canvas.height / map.getPixelRatio();
    const [first] = gridLines(x - width / 2, width, cell);
    const [top] = gridLines(y - height / 2, height, cell);
    this.element.style.backgroundPosition = `${first ?? 0}px ${top ?? 0}px`;
  };
}
