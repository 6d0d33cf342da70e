import type { Map as MapLibreMap } from 'maplibre-gl';
import { BACKGROUND_LAYER } from './basemap';
import { gridElement, gridPosition } from './camera';
import { worldOf } from './geo';

/**
 * The background of a MapLibre map that has nothing WebGL must draw any more (no basemap tiles loaded, no site plan, no shapes): a
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
    const element = gridElement();
    element.style.display = 'none';
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
    const { lng, lat } = map.getCenter();
    const [x, y] = worldOf([lng, lat]);
    // the element is the size of the map (its centre is the map's centre), as its canvas is (read without a layout)
    const canvas = map.getCanvas();
    const [width, height] = [canvas.width / map.getPixelRatio(), canvas.height / map.getPixelRatio()];
    this.element.style.backgroundPosition = gridPosition({ x, y, zoom: map.getZoom(), width, height });
  };
}
