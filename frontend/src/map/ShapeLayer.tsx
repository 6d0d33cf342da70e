import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { useMapContext } from './context';
import { webglLayer } from './webglGate';
import { ShapeDraw, type DrawState } from './draw';
import { shapeFromMapCrs, shapeToMapCrs, type Shape, type ShapeKind } from './shape';

/** Commands of a ShapeLayer's toolbar. */
export interface ShapeLayerHandle {
  /** Starts drawing a new shape of that kind (replacing the current one). */
  start: (kind: ShapeKind) => void;
  /** Ends the polygon being drawn; false when it cannot end yet (fewer than 3 vertices). */
  finish: () => boolean;
  /** Stops drawing or editing. */
  cancel: () => void;
  /** Selects the shape for editing. */
  edit: () => void;
  clear: () => void;
}

export interface ShapeLayerProps {
  /** The shape shown, in WGS-84 (converted to the basemap's CRS for display). */
  shape: Shape | null;
  /** The user drew, edited or removed the shape (WGS-84). */
  onChange: (shape: Shape | null) => void;
  onState?: (state: DrawState) => void;
  ref?: Ref<ShapeLayerHandle>;
}

/** One drawable, editable shape on the enclosing MapView (renders nothing itself). */
export const ShapeLayer = webglLayer(function ShapeLayer({ shape, onChange, onState, ref }: ShapeLayerProps) {
  const { map, basemap } = useMapContext();
  const draw = useRef<ShapeDraw | null>(null);
  /** The last shape this layer reported: when it comes back as `shape`, the map shows it already. */
  const reported = useRef<Shape | null | undefined>(undefined);
  const callbacks = useRef({ onChange, onState });
  useEffect(() => {
    callbacks.current = { onChange, onState };
  });

  useEffect(() => {
    const controller = new ShapeDraw(map, {
      onShape: (drawn) => {
        const wgs = drawn ? shapeFromMapCrs(drawn, basemap.crs) : null;
        reported.current = wgs;
        callbacks.current.onChange(wgs);
      },
      onState: (state) => callbacks.current.onState?.(state),
    });
    draw.current = controller;
    reported.current = undefined;
    return () => {
      draw.current = null;
      controller.destroy();
    };
  }, [map, basemap]);

  useEffect(() => {
    if (!draw.current || shape === reported.current) return;
    reported.current = shape;
    draw.current.setShape(shape ? shapeToMapCrs(shape, basemap.crs) : null);
  }, [shape, map, basemap]);

  useImperativeHandle(
    ref,
    () => ({
      start: (kind) => draw.current?.start(kind),
      finish: () => draw.current?.finish() ?? false,
      cancel: () => draw.current?.cancel(),
      edit: () => draw.current?.edit(),
      clear: () => {
        draw.current?.clear();
        reported.current = null;
        callbacks.current.onChange(null);
      },
    }),
    [],
  );
  return null;
});
