import type { Map as MapLibreMap } from 'maplibre-gl';
import {
  TerraDraw,
  TerraDrawCircleMode,
  TerraDrawPolygonMode,
  TerraDrawSelectMode,
  ValidateNotSelfIntersecting,
  type GeoJSONStoreFeatures,
  type HexColor,
} from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import { circleOfRing, openRing, round, type LonLat } from './geo';
import { shapeRing, type Shape, type ShapeKind } from './shape';

type FeatureId = string | number;

/** idle: nothing selected; drawing: a new shape is being drawn; editing: the shape is selected with its handles. */
export type DrawState = 'idle' | 'drawing' | 'editing';

export interface ShapeDrawOptions {
  /** A shape was drawn, edited or removed (by the user; `setShape` does not call it). */
  onShape: (shape: Shape | null) => void;
  onState: (state: DrawState) => void;
  color?: HexColor;
}

/** The shape a terra-draw feature stands for (positions rounded to 7 decimals, radius to whole metres). */
export function featureShape(feature: GeoJSONStoreFeatures): Shape | null {
  if (feature.geometry.type !== 'Polygon') return null;
  const ring = feature.geometry.coordinates[0].map((p) => [p[0], p[1]] as LonLat);
  if (feature.properties.mode === 'circle') {
    const { center, radius } = circleOfRing(ring);
    return { kind: 'circle', center, radius: Math.round(radius) };
  }
  return { kind: 'polygon', points: openRing(ring).map(([lon, lat]) => [round(lon, 7), round(lat, 7)]) };
}

/** A terra-draw feature drawing the shape (a circle is a 64-point ring, as terra-draw's own circles are). */
export function shapeFeature(shape: Shape, id: FeatureId): GeoJSONStoreFeatures {
  return {
    id,
    type: 'Feature',
    geometry: { type: 'Polygon', coordinates: [shapeRing(shape)] },
    properties: shape.kind === 'circle' ? { mode: 'circle', radiusKilometers: shape.radius / 1000 } : { mode: 'polygon' },
  };
}

/**
 * One shape on a MapLibre map, drawn and edited with terra-draw: draw a circle (click the centre, then drag or
 * click the radius) or a polygon (click the vertices; click the last one again, double-click, press Enter or call
 * `finish`); the drawn shape is selected for editing at once (drag it, drag a polygon's vertices or midpoints,
 * drag a circle's edge to resize it). Drawing a new shape replaces the old one.
 */
export class ShapeDraw {
  private readonly draw: TerraDraw;
  private readonly map: MapLibreMap;
  private readonly opts: ShapeDrawOptions;
  private featureId: FeatureId | null = null;
  private state: DrawState = 'idle';
  /** Set while this class changes the store itself, so that the change is not reported as the user's. */
  private quiet = false;

  constructor(map: MapLibreMap, opts: ShapeDrawOptions) {
    this.map = map;
    this.opts = opts;
    const color = opts.color ?? '#3064c7';
    const white: HexColor = '#ffffff';
    // A selected circle shows four of its 64 vertices as resize handles (any point of its edge resizes it).
    const hiddenHandle = (point: GeoJSONStoreFeatures) => {
      const parentId = point.properties.selectionPointFeatureId;
      if (typeof parentId !== 'string' && typeof parentId !== 'number') return false;
      return this.draw.getSnapshotFeature(parentId)?.properties.mode === 'circle' && Number(point.properties.index) % 16 !== 0;
    };
    this.draw = new TerraDraw({
      adapter: new TerraDrawMapLibreGLAdapter({ map, coordinatePrecision: 7, prefixId: 'shape-draw' }),
      modes: [
        new TerraDrawCircleMode({
          drawInteraction: 'click-move-or-drag',
          styles: { fillColor: color, fillOpacity: 0.2, outlineColor: color, outlineWidth: 2 },
        }),
        new TerraDrawPolygonMode({
          // a vertex that would make edges cross is refused (not while the pointer only moves)
          validation: (feature, { updateType }) =>
            String(updateType) === 'provisional' ? { valid: true } : ValidateNotSelfIntersecting(feature),
          styles: {
            fillColor: color,
            fillOpacity: 0.2,
            outlineColor: color,
            outlineWidth: 2,
            closingPointColor: white,
            closingPointOutlineColor: color,
            closingPointWidth: 5,
            closingPointOutlineWidth: 2,
          },
        }),
        new TerraDrawSelectMode({
          flags: {
            polygon: {
              feature: {
                draggable: true,
                coordinates: { draggable: true, midpoints: true, deletable: true },
                validation: (feature) => ValidateNotSelfIntersecting(feature),
              },
            },
            circle: { feature: { draggable: true, coordinates: { resizable: 'center-fixed' } } },
          },
          styles: {
            selectedPolygonColor: color,
            selectedPolygonFillOpacity: 0.3,
            selectedPolygonOutlineColor: color,
            selectedPolygonOutlineWidth: 3,
            selectionPointColor: white,
            selectionPointOutlineColor: color,
            selectionPointWidth: (point) => (hiddenHandle(point) ? 0 : 5),
            selectionPointOutlineWidth: (point) => (hiddenHandle(point) ? 0 : 2),
            midPointColor: color,
            midPointOutlineColor: white,
            midPointWidth: 3,
          },
        }),
      ],
    });
    this.draw.start();
    this.draw.setMode('select');
    this.draw.on('finish', (id, context) => this.finished(id, context.action));
    this.draw.on('change', (ids, type) => this.changed(ids, type));
    this.draw.on('select', () => this.setState('editing'));
    this.draw.on('deselect', () => {
      if (this.draw.getMode() === 'select') this.setState('idle');
    });
  }

  get drawState(): DrawState {
    return this.state;
  }

  /** Starts drawing a new shape of that kind (the current one is removed). */
  start(kind: ShapeKind): void {
    this.removeCurrent();
    this.draw.setMode(kind);
    this.setState('drawing');
  }

  /**
   * Ends the polygon being drawn (as Enter does). False when it cannot end yet (fewer than 3 vertices, or its
   * edges cross); drawing goes on.
   */
  finish(): boolean {
    if (this.draw.getMode() !== 'polygon') return this.featureId !== null;
    this.map.getCanvas().dispatchEvent(new KeyboardEvent('keyup', { key: 'Enter', bubbles: true }));
    return this.draw.getMode() !== 'polygon';
  }

  /** Stops drawing (an unfinished shape is dropped) or editing. */
  cancel(): void {
    if (this.draw.getMode() !== 'select') this.draw.setMode('select');
    if (this.featureId !== null && this.state === 'editing') this.quietly(() => this.draw.deselectFeature(this.featureId!));
    this.setState('idle');
  }

  /** Selects the shape for editing. */
  edit(): void {
    if (this.featureId === null) return;
    if (this.draw.getMode() !== 'select') this.draw.setMode('select');
    this.draw.selectFeature(this.featureId);
    this.setState('editing');
  }

  /** Removes the shape and stops drawing. */
  clear(): void {
    if (this.draw.getMode() !== 'select') this.draw.setMode('select');
    this.removeCurrent();
    this.setState('idle');
  }

  /** Shows that shape instead of the current one (loading a record, a radius typed in a field); keeps the selection. */
  setShape(shape: Shape | null): void {
    const wasEditing = this.state === 'editing';
    if (this.draw.getMode() !== 'select') this.draw.setMode('select');
    this.removeCurrent();
    if (shape) {
      const id = this.draw.getFeatureId();
      const [result] = this.quietly(() => this.draw.addFeatures([shapeFeature(shape, id)]));
      if (result?.valid) {
        this.featureId = id;
        if (wasEditing) this.edit();
        return;
      }
    }
    this.setState('idle');
  }

  destroy(): void {
    try {
      this.draw.stop();
    } catch {
      // the map is already gone
    }
  }

  private quietly<T>(fn: () => T): T {
    this.quiet = true;
    try {
      return fn();
    } finally {
      this.quiet = false;
    }
  }

  private removeCurrent(): void {
    const id = this.featureId;
    this.featureId = null;
    if (id !== null && this.draw.hasFeature(id)) {
      this.quietly(() => {
        if (this.state === 'editing') this.draw.deselectFeature(id);
        this.draw.removeFeatures([id]);
      });
    }
  }

  private current(): GeoJSONStoreFeatures | undefined {
    return this.featureId === null ? undefined : this.draw.getSnapshotFeature(this.featureId);
  }

  private finished(id: FeatureId, action: string): void {
    if (action === 'draw') {
      // one shape at a time: anything else drawn goes
      const others = this.draw
        .getSnapshot()
        .filter((f) => f.id !== id && f.id !== undefined && !f.properties.currentlyDrawing)
        .map((f) => f.id as FeatureId);
      if (others.length) this.quietly(() => this.draw.removeFeatures(others));
      this.featureId = id;
      this.draw.setMode('select');
      this.draw.selectFeature(id);
      this.setState('editing');
    }
    if (id !== this.featureId) return;
    const feature = this.current();
    this.opts.onShape(feature ? featureShape(feature) : null);
  }

  private changed(ids: FeatureId[], type: string): void {
    if (this.quiet || type !== 'delete' || this.featureId === null || !ids.includes(this.featureId)) return;
    // deleted in select mode (Delete key)
    this.featureId = null;
    this.setState('idle');
    this.opts.onShape(null);
  }

  private setState(state: DrawState): void {
    if (state === this.state) return;
    this.state = state;
    this.opts.onState(state);
  }
}
