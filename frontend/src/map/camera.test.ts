import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fitView, PlainCamera, projectIn, scaleBar, unprojectIn, type CameraMouseEvent, type View } from './camera';
import { lngLatOf, worldOf, type LonLat } from './geo';

const SHANGHAI: LonLat = [121.4737, 31.2304];

describe('the plain camera’s Web Mercator (the zoom levels of MapLibre)', () => {
  const view = (zoom: number): View => {
    const [x, y] = worldOf(SHANGHAI);
    return { x, y, zoom, width: 800, height: 600 };
  };

  it('puts the centre in the middle of the screen and comes back from the screen to the same place', () => {
    expect(projectIn(view(12), SHANGHAI)).toEqual({ x: 400, y: 300 });
    const at = unprojectIn(view(12), [123, 456]);
    const back = projectIn(view(12), [at.lng, at.lat]);
    expect(back.x).toBeCloseTo(123, 6);
    expect(back.y).toBeCloseTo(456, 6);
    expect(lngLatOf(worldOf(SHANGHAI))[1]).toBeCloseTo(SHANGHAI[1], 9);
  });

  it('uses 512 px worlds: one zoom level doubles distances on screen, and zoom 0 shows the world in 512 px', () => {
    const east: LonLat = [SHANGHAI[0] + 0.01, SHANGHAI[1]];
    const d12 = projectIn(view(12), east).x - 400;
    const d13 = projectIn(view(13), east).x - 400;
    expect(d13 / d12).toBeCloseTo(2, 9);
    expect(d12).toBeCloseTo((0.01 / 360) * 512 * 2 ** 12, 6);
  });

  it('fits bounds with the padding on the tighter side, and a single point at the most zoom allowed', () => {
    const sw: LonLat = [121.4, 31.2];
    const ne: LonLat = [121.5, 31.25];
    const fit = fitView([sw, ne], 800, 600, 50, 17);
    const v = { ...fit, width: 800, height: 600 };
    const a = projectIn(v, sw);
    const b = projectIn(v, ne);
    for (const p of [a, b]) {
      expect(p.x).toBeGreaterThanOrEqual(50 - 1e-6);
      expect(p.x).toBeLessThanOrEqual(750 + 1e-6);
      expect(p.y).toBeGreaterThanOrEqual(50 - 1e-6);
      expect(p.y).toBeLessThanOrEqual(550 + 1e-6);
    }
    // one side touches its padding exactly (the largest zoom that fits)
    expect(Math.min(Math.abs(a.x - 50), Math.abs(b.y - 50))).toBeLessThan(1e-6);
    expect(fitView([sw, sw], 800, 600, 50, 17).zoom).toBe(17);
    expect(fitView([[-170, -80], [170, 80]], 400, 300, 50, 17).zoom).toBe(0); // no zoom out past the whole world
  });

  it('draws a scale bar of a round distance no longer than 100 px', () => {
    // at the equator, zoom 0: 78,271.5 m per px, so 100 px are 7,827 km: the bar says 5000 km in 64 px
    expect(scaleBar(0, 0)).toEqual({ width: 64, label: '5000 km' });
    const street = scaleBar(31.23, 17);
    expect(street.width).toBeLessThanOrEqual(100);
    expect(street.width).toBeGreaterThan(30);
    expect(street.label).toMatch(/^(1|2|3|5|10|20|30|50) m$/);
  });
});

class NoResizeObserver {
  observe(): void {}
  disconnect(): void {}
}

describe('PlainCamera: the map’s gestures and controls without MapLibre', () => {
  let container: HTMLDivElement;
  let camera: PlainCamera;
  beforeAll(() => {
    // jsdom has no ResizeObserver; the camera follows its container's size through one
    globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;
  });
  afterEach(() => {
    camera.remove();
    container.remove();
  });

  function make(zoom = 14): void {
    container = document.createElement('div');
    Object.defineProperty(container, 'clientWidth', { value: 800 });
    Object.defineProperty(container, 'clientHeight', { value: 600 });
    container.getBoundingClientRect = () => ({ left: 10, top: 20, right: 810, bottom: 620, width: 800, height: 600, x: 10, y: 20, toJSON: () => '' });
    document.body.appendChild(container);
    camera = new PlainCamera(container, SHANGHAI, zoom);
  }

  function pointer(type: string, x: number, y: number, id = 1): void {
    const e = new MouseEvent(type, { clientX: x + 10, clientY: y + 20, bubbles: true });
    Object.defineProperty(e, 'pointerId', { value: id });
    camera.getCanvasContainer().dispatchEvent(e);
  }

  it('pans with a drag (the point under the pointer follows it) and tells a click from a drag', () => {
    make();
    const clicks: CameraMouseEvent[] = [];
    let moves = 0;
    camera.on('click', (e) => clicks.push(e));
    camera.on('move', () => (moves += 1));
    const grabbed = camera.unproject([300, 200]);
    pointer('pointerdown', 300, 200);
    pointer('pointermove', 340, 230);
    pointer('pointermove', 400, 260);
    pointer('pointerup', 400, 260);
    const now = camera.project([grabbed.lng, grabbed.lat]);
    expect(now.x).toBeCloseTo(400, 6);
    expect(now.y).toBeCloseTo(260, 6);
    expect(moves).toBeGreaterThan(0);
    expect(clicks).toEqual([]);

    pointer('pointerdown', 500, 100);
    pointer('pointermove', 501, 101); // a hand's tremble is still a click
    pointer('pointerup', 501, 101);
    expect(clicks).toEqual([{ point: { x: 501, y: 101 } }]);
  });

  it('zooms with the wheel around the pointer, and in and out with the keyboard and its buttons', () => {
    make();
    const under = camera.unproject([200, 150]);
    const wheel = new WheelEvent('wheel', { deltaY: -225, clientX: 210, clientY: 170, bubbles: true, cancelable: true });
    camera.getCanvasContainer().dispatchEvent(wheel);
    expect(wheel.defaultPrevented).toBe(true);
    expect(camera.getZoom()).toBeCloseTo(14.5, 9);
    const after = camera.project([under.lng, under.lat]);
    expect(after.x).toBeCloseTo(200, 6);
    expect(after.y).toBeCloseTo(150, 6);

    camera.getCanvasContainer().dispatchEvent(new KeyboardEvent('keydown', { key: '+', bubbles: true }));
    expect(camera.getZoom()).toBeCloseTo(15.5, 9);
    camera.getCanvasContainer().dispatchEvent(new KeyboardEvent('keydown', { key: '-', bubbles: true }));
    expect(camera.getZoom()).toBeCloseTo(14.5, 9);
    expect(container.querySelector('.maplibregl-ctrl-zoom-in')).not.toBeNull();
    expect(container.querySelector('.maplibregl-ctrl-scale')?.textContent).toMatch(/^\d+ k?m$/);
  });

  it('fits bounds, moves with easeTo, and leaves nothing behind when removed', () => {
    make(3);
    const sw: LonLat = [121.4, 31.2];
    const ne: LonLat = [121.5, 31.25];
    let ended = 0;
    camera.on('moveend', () => (ended += 1));
    camera.fitBounds([sw, ne], { padding: 40, maxZoom: 17, animate: false });
    expect(camera.getZoom()).toBeGreaterThan(10);
    expect(ended).toBe(1);
    const c = camera.getCenter();
    expect(c.lng).toBeCloseTo(121.45, 6);
    camera.easeTo({ center: SHANGHAI, zoom: 16, duration: 0 });
    expect(camera.getZoom()).toBe(16);
    expect(camera.getCenter().lat).toBeCloseTo(SHANGHAI[1], 9);
    expect(ended).toBe(2);
    camera.remove();
    expect(container.children.length).toBe(0);
    expect(container.classList.contains('map-camera')).toBe(false);
    make();
  });
});
