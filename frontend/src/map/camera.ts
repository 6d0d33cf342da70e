import { FALLBACK_BACKGROUND } from './basemap';
import { CIRCUMFERENCE, lngLatOf, MAX_LAT, worldOf, type LonLat } from './geo';

/** A point on the map's element, in CSS pixels from its top left corner. */
export interface CameraPoint {
  x: number;
  y: number;
}
export interface CameraLngLat {
  lng: number;
  lat: number;
}
/** A click or a pointer move on the map, where it happened. */
export interface CameraMouseEvent {
  point: CameraPoint;
}
export interface FitOptions {
  padding: number;
  maxZoom: number;
  animate: false;
}
export interface MoveOptions {
  center: LonLat;
  zoom: number;
  duration: number;
}

/**
 * What the layers that draw in 2D over the map (the vehicles, a fit, a flight to a vehicle) need of a map: its
 * camera, its events and its elements. A MapLibre map is one (the same names and shapes); so is `PlainCamera`, which
 * stands in for MapLibre while the map has nothing WebGL must draw, so that such a page never makes a WebGL context.
 */
export interface MapCamera {
  on(type: 'click' | 'mousemove', listener: (e: CameraMouseEvent) => void): unknown;
  on(type: 'move' | 'moveend' | 'resize', listener: () => void): unknown;
  off(type: 'click' | 'mousemove', listener: (e: CameraMouseEvent) => void): unknown;
  off(type: 'move' | 'moveend' | 'resize', listener: () => void): unknown;
  project(at: LonLat): CameraPoint;
  unproject(point: [number, number]): CameraLngLat;
  getZoom(): number;
  getCenter(): CameraLngLat;
  getContainer(): HTMLElement;
  /** Where layers put their own elements (over the map, under its controls); it takes the pointer. */
  getCanvasContainer(): HTMLElement;
  /** The element whose cursor shows what is under the pointer. */
  getCanvas(): HTMLElement;
  fitBounds(bounds: [LonLat, LonLat], options: FitOptions): unknown;
  easeTo(options: MoveOptions): unknown;
  flyTo(options: MoveOptions): unknown;
}

/** The world's width in CSS pixels at zoom 0 (MapLibre's tile size: zoom levels mean the same on both). */
export const WORLD = 512;
export const MIN_ZOOM = 0;
export const MAX_ZOOM = 22;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** A view: its centre (as a fraction of the world) and zoom, on a screen of that size. */
export interface View {
  x: number;
  y: number;
  zoom: number;
  width: number;
  height: number;
}

export function projectIn(view: View, at: LonLat): CameraPoint {
  const size = WORLD * 2 ** view.zoom;
  const [x, y] = worldOf(at);
  return { x: (x - view.x) * size + view.width / 2, y: (y - view.y) * size + view.height / 2 };
}

export function unprojectIn(view: View, [px, py]: [number, number]): CameraLngLat {
  const size = WORLD * 2 ** view.zoom;
  const [lng, lat] = lngLatOf([view.x + (px - view.width / 2) / size, view.y + (py - view.height / 2) / size]);
  return { lng, lat };
}

/** The centre and zoom that show `bounds` with `padding` px to spare on every side (MapLibre's fitBounds, unrotated). */
export function fitView(bounds: [LonLat, LonLat], width: number, height: number, padding: number, maxZoom: number): { x: number; y: number; zoom: number } {
  const [ax, ay] = worldOf(bounds[0]);
  const [bx, by] = worldOf(bounds[1]);
  const dx = Math.abs(bx - ax) * WORLD;
  const dy = Math.abs(by - ay) * WORLD;
  const room = (length: number) => Math.max(1, length - 2 * padding);
  const scale = Math.min(dx > 0 ? room(width) / dx : Infinity, dy > 0 ? room(height) / dy : Infinity);
  const zoom = clamp(Number.isFinite(scale) ? Math.log2(scale) : maxZoom, MIN_ZOOM, maxZoom);
  return { x: (ax + bx) / 2, y: (ay + by) / 2, zoom };
}

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

/** The CSS background position of the plain grid (FALLBACK_BACKGROUND's cells, fixed to the world) in a view. */
export function gridPosition({ x, y, zoom, width, height }: View): string {
  const size = WORLD * 2 ** zoom;
  const { cell } = FALLBACK_BACKGROUND;
  const [left] = gridLines(x * size - width / 2, width, cell);
  const [top] = gridLines(y * size - height / 2, height, cell);
  return `${left ?? 0}px ${top ?? 0}px`;
}

/** The plain background: a light grid (FALLBACK_BACKGROUND) as a CSS background, placed by `gridPosition`. */
export function gridElement(): HTMLDivElement {
  const element = document.createElement('div');
  element.className = 'map-plain';
  element.setAttribute('aria-hidden', 'true');
  const { color, line, cell } = FALLBACK_BACKGROUND;
  Object.assign(element.style, {
    backgroundColor: color,
    backgroundImage: `linear-gradient(to right, ${line} 1px, transparent 1px), linear-gradient(to bottom, ${line} 1px, transparent 1px)`,
    backgroundSize: `${cell}px ${cell}px`,
  });
  return element;
}

/** The scale bar: the longest round distance (1, 2, 3 or 5 times a power of ten) that fits `maxWidth` px. */
export function scaleBar(lat: number, zoom: number, maxWidth = 100): { width: number; label: string } {
  const metresPerPx = (CIRCUMFERENCE * Math.cos((lat * Math.PI) / 180)) / (WORLD * 2 ** zoom);
  const most = metresPerPx * maxWidth;
  const power = 10 ** (String(Math.floor(most)).length - 1);
  const digit = most / power;
  const nice = power * (digit >= 10 ? 10 : digit >= 5 ? 5 : digit >= 3 ? 3 : digit >= 2 ? 2 : 1);
  const metres = most >= 1 ? nice : Math.max(0.01, Math.round(most * 100) / 100);
  const label = metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
  return { width: Math.round(metres / metresPerPx), label };
}

type PointListener = (e: CameraMouseEvent) => void;
type Listener = () => void;

/** Pointer moves under this many px between down and up are a click, not a drag. */
const CLICK_TOLERANCE = 3;

/**
 * The map's camera without MapLibre: a Web Mercator view (the same zoom levels, so the vehicles' clusters and fits
 * are the same), a grid background that moves with it (CSS, painted off the main thread), drag to pan, the wheel,
 * a pinch, a double click and the keyboard to zoom, zoom buttons and a scale bar in MapLibre's own look. Making one
 * costs well under a millisecond; a MapLibre map costs a WebGL context and a painter (55-87 ms on a small machine
 * without a GPU) and a first frame (50-70 ms), which a map that draws only 2D layers does not need.
 */
export class PlainCamera implements MapCamera {
  private view: View;
  private readonly container: HTMLElement;
  private readonly canvasContainer: HTMLDivElement;
  private readonly grid: HTMLDivElement;
  private readonly controls: HTMLDivElement;
  private readonly scale: HTMLDivElement;
  private readonly listeners = new Map<string, Set<Listener | PointListener>>();
  private readonly pointers = new Map<number, CameraPoint>();
  private pressed: { at: CameraPoint; moved: boolean } | null = null;
  private pinch: number | null = null;
  private animation = 0;
  private readonly observer: ResizeObserver;

  constructor(container: HTMLElement, center: LonLat, zoom: number) {
    this.container = container;
    const [x, y] = worldOf(center);
    this.view = { x, y, zoom: clamp(zoom, MIN_ZOOM, MAX_ZOOM), width: container.clientWidth, height: container.clientHeight };
    container.classList.add('map-camera');

    const canvasContainer = document.createElement('div');
    canvasContainer.className = 'map-camera-canvas maplibregl-canvas-container maplibregl-interactive';
    canvasContainer.tabIndex = 0;
    const grid = gridElement();
    canvasContainer.appendChild(grid);

    const controls = document.createElement('div');
    controls.className = 'maplibregl-control-container';
    const topRight = document.createElement('div');
    topRight.className = 'maplibregl-ctrl-top-right';
    const group = document.createElement('div');
    group.className = 'maplibregl-ctrl maplibregl-ctrl-group';
    for (const [name, title, delta] of [
      ['zoom-in', 'Zoom in', 1],
      ['zoom-out', 'Zoom out', -1],
    ] as const) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = `maplibregl-ctrl-${name}`;
      button.title = title;
      button.setAttribute('aria-label', title);
      const icon = document.createElement('span');
      icon.className = 'maplibregl-ctrl-icon';
      icon.setAttribute('aria-hidden', 'true');
      button.appendChild(icon);
      button.addEventListener('click', () => this.easeTo({ center: this.centerOf(), zoom: this.view.zoom + delta, duration: 250 }));
      group.appendChild(button);
    }
    topRight.appendChild(group);
    const bottomLeft = document.createElement('div');
    bottomLeft.className = 'maplibregl-ctrl-bottom-left';
    const scale = document.createElement('div');
    scale.className = 'maplibregl-ctrl maplibregl-ctrl-scale';
    bottomLeft.appendChild(scale);
    controls.append(topRight, bottomLeft);
    container.append(canvasContainer, controls);
    this.canvasContainer = canvasContainer;
    this.grid = grid;
    this.controls = controls;
    this.scale = scale;

    canvasContainer.addEventListener('pointerdown', this.down);
    canvasContainer.addEventListener('pointermove', this.pointerMove);
    canvasContainer.addEventListener('pointerup', this.up);
    canvasContainer.addEventListener('pointercancel', this.up);
    canvasContainer.addEventListener('wheel', this.wheel, { passive: false });
    canvasContainer.addEventListener('dblclick', this.dblclick);
    canvasContainer.addEventListener('keydown', this.key);
    this.observer = new ResizeObserver(() => this.resize());
    this.observer.observe(container);
    this.placed();
  }

  on(type: string, listener: Listener | PointListener): this {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return this;
  }

  off(type: string, listener: Listener | PointListener): this {
    this.listeners.get(type)?.delete(listener);
    return this;
  }

  project(at: LonLat): CameraPoint {
    return projectIn(this.view, at);
  }

  unproject(point: [number, number]): CameraLngLat {
    return unprojectIn(this.view, point);
  }

  getZoom(): number {
    return this.view.zoom;
  }

  getCenter(): CameraLngLat {
    const [lng, lat] = this.centerOf();
    return { lng, lat };
  }

  getContainer(): HTMLElement {
    return this.container;
  }

  getCanvasContainer(): HTMLElement {
    return this.canvasContainer;
  }

  getCanvas(): HTMLElement {
    return this.canvasContainer;
  }

  fitBounds(bounds: [LonLat, LonLat], { padding, maxZoom }: FitOptions): this {
    this.stop();
    const { width, height } = this.view;
    this.set(fitView(bounds, width, height, padding, maxZoom));
    this.emit('moveend');
    return this;
  }

  /** Moves smoothly to that centre and zoom over `duration` ms (no flight arc: a plant's site is small). */
  easeTo({ center, zoom, duration }: MoveOptions): this {
    this.stop();
    const from = { ...this.view };
    const [x, y] = worldOf(center);
    const to = { x, y, zoom: clamp(zoom, MIN_ZOOM, MAX_ZOOM) };
    if (duration <= 0) {
      this.set(to);
      this.emit('moveend');
      return this;
    }
    const start = performance.now();
    const step = (now: number) => {
      const t = Math.min(1, (now - start) / duration);
      const k = 1 - (1 - t) ** 3;
      // the zoom eases linearly in scale, the centre in world pixels of the current zoom (as MapLibre's easeTo)
      const zoomAt = from.zoom + (to.zoom - from.zoom) * k;
      this.set({ x: from.x + (to.x - from.x) * k, y: from.y + (to.y - from.y) * k, zoom: zoomAt });
      if (t < 1) this.animation = requestAnimationFrame(step);
      else {
        this.animation = 0;
        this.emit('moveend');
      }
    };
    this.animation = requestAnimationFrame(step);
    return this;
  }

  flyTo(options: MoveOptions): this {
    return this.easeTo(options);
  }

  /** Follows the container's size (the ResizeObserver calls it; MapLibre's map has the same). */
  resize(): this {
    const { clientWidth: width, clientHeight: height } = this.container;
    if (width === this.view.width && height === this.view.height) return this;
    this.view = { ...this.view, width, height };
    this.placed();
    this.emit('resize');
    return this;
  }

  remove(): void {
    this.stop();
    this.observer.disconnect();
    this.listeners.clear();
    this.canvasContainer.remove();
    this.controls.remove();
    this.container.classList.remove('map-camera');
  }

  private centerOf(): LonLat {
    return lngLatOf([this.view.x, this.view.y]);
  }

  private stop(): void {
    if (this.animation) cancelAnimationFrame(this.animation);
    this.animation = 0;
  }

  private set({ x, y, zoom }: { x: number; y: number; zoom: number }): void {
    const [, top] = worldOf([0, MAX_LAT]);
    const [, bottom] = worldOf([0, -MAX_LAT]);
    this.view = { ...this.view, x: x - Math.floor(x), y: clamp(y, top, bottom), zoom: clamp(zoom, MIN_ZOOM, MAX_ZOOM) };
    this.placed();
    this.emit('move');
  }

  /** The grid and the scale bar follow the view. */
  private placed(): void {
    const { width, height, zoom } = this.view;
    this.grid.style.backgroundPosition = gridPosition(this.view);
    const bar = scaleBar(this.unproject([width / 2, height / 2]).lat, zoom);
    this.scale.style.width = `${bar.width}px`;
    this.scale.textContent = bar.label;
  }

  private emit(type: string, event?: CameraMouseEvent): void {
    for (const listener of [...(this.listeners.get(type) ?? [])]) (listener as PointListener)(event as CameraMouseEvent);
  }

  private pointOf(e: MouseEvent): CameraPoint {
    const box = this.container.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  }

  /** Zooms by `delta` levels keeping the world point under `at` where it is on the screen. */
  private zoomAround(at: CameraPoint, delta: number): void {
    const { x, y, zoom, width, height } = this.view;
    const next = clamp(zoom + delta, MIN_ZOOM, MAX_ZOOM);
    const before = WORLD * 2 ** zoom;
    const after = WORLD * 2 ** next;
    const wx = x + (at.x - width / 2) / before;
    const wy = y + (at.y - height / 2) / before;
    this.set({ x: wx - (at.x - width / 2) / after, y: wy - (at.y - height / 2) / after, zoom: next });
  }

  private panBy(dx: number, dy: number): void {
    const size = WORLD * 2 ** this.view.zoom;
    this.set({ x: this.view.x - dx / size, y: this.view.y - dy / size, zoom: this.view.zoom });
  }

  // Pointers are followed in the window's coordinates (a drag stays right if the map's element moves meanwhile);
  // clicks and zooms happen at points of the map's element.
  private readonly down = (e: PointerEvent): void => {
    this.stop();
    const at = { x: e.clientX, y: e.clientY };
    this.pointers.set(e.pointerId, at);
    this.canvasContainer.setPointerCapture?.(e.pointerId);
    if (this.pointers.size === 1) this.pressed = { at, moved: false };
    else {
      this.pressed = null;
      this.pinch = this.spread();
    }
  };

  private spread(): number | null {
    const [a, b] = [...this.pointers.values()];
    return a && b ? Math.hypot(a.x - b.x, a.y - b.y) : null;
  }

  private readonly pointerMove = (e: PointerEvent): void => {
    const at = { x: e.clientX, y: e.clientY };
    const last = this.pointers.get(e.pointerId);
    if (!last) {
      this.emit('mousemove', { point: this.pointOf(e) });
      return;
    }
    this.pointers.set(e.pointerId, at);
    if (this.pointers.size === 1) {
      const { pressed } = this;
      if (pressed && !pressed.moved && Math.hypot(at.x - pressed.at.x, at.y - pressed.at.y) < CLICK_TOLERANCE) return;
      if (pressed) pressed.moved = true;
      this.panBy(at.x - last.x, at.y - last.y);
      return;
    }
    const spread = this.spread();
    if (this.pinch && spread) {
      const [a, b] = [...this.pointers.values()];
      const box = this.container.getBoundingClientRect();
      this.zoomAround({ x: (a.x + b.x) / 2 - box.left, y: (a.y + b.y) / 2 - box.top }, Math.log2(spread / this.pinch));
    }
    this.pinch = spread;
  };

  private readonly up = (e: PointerEvent): void => {
    const last = this.pointers.get(e.pointerId);
    if (!last) return;
    const { pressed } = this;
    // where the pointer was let go, should its last move not have been told
    if (pressed?.moved && e.type === 'pointerup') this.panBy(e.clientX - last.x, e.clientY - last.y);
    this.pointers.delete(e.pointerId);
    this.pressed = null;
    this.pinch = this.pointers.size === 2 ? this.spread() : null;
    if (pressed?.moved) this.emit('moveend');
    else if (pressed && e.type === 'pointerup') this.emit('click', { point: this.pointOf(e) });
  };

  private readonly wheel = (e: WheelEvent): void => {
    e.preventDefault();
    const pixels = e.deltaY * (e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 800 : 1);
    this.zoomAround(this.pointOf(e), clamp(-pixels / 450, -1, 1));
    this.emit('moveend');
  };

  private readonly dblclick = (e: MouseEvent): void => {
    e.preventDefault();
    this.stop();
    // MapLibre's: one level in around the pointer (out with shift)
    this.zoomAround(this.pointOf(e), e.shiftKey ? -1 : 1);
    this.emit('moveend');
  };

  private readonly key = (e: KeyboardEvent): void => {
    const step = 100;
    const moves: Record<string, () => void> = {
      '+': () => this.zoomAround({ x: this.view.width / 2, y: this.view.height / 2 }, 1),
      '=': () => this.zoomAround({ x: this.view.width / 2, y: this.view.height / 2 }, 1),
      '-': () => this.zoomAround({ x: this.view.width / 2, y: this.view.height / 2 }, -1),
      ArrowLeft: () => this.panBy(step, 0),
      ArrowRight: () => this.panBy(-step, 0),
      ArrowUp: () => this.panBy(0, step),
      ArrowDown: () => this.panBy(0, -step),
    };
    const move = moves[e.key];
    if (!move || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    this.stop();
    move();
    this.emit('moveend');
  };
}
