import { fromMapCrs, toMapCrs, type Crs } from './basemap';
import { boundsOf, circleRing, openRing, roundLonLat, type LonLat } from './geo';

/** A shape drawn on a map: a circle (centre, radius in metres) or a polygon (open list of vertices). */
export type Shape = { kind: 'circle'; center: LonLat; radius: number } | { kind: 'polygon'; points: LonLat[] };

export type ShapeKind = Shape['kind'];

/** The closed ring that draws the shape. */
export function shapeRing(shape: Shape): LonLat[] {
  if (shape.kind === 'circle') return circleRing(shape.center, shape.radius);
  const points = openRing(shape.points);
  return points.length ? [...points, points[0]] : [];
}

export function shapeBounds(shape: Shape): [LonLat, LonLat] | null {
  return boundsOf(shapeRing(shape));
}

function mapPositions(shape: Shape, fn: (p: LonLat) => LonLat): Shape {
  if (shape.kind === 'circle') return { ...shape, center: roundLonLat(fn(shape.center)) };
  return { kind: 'polygon', points: shape.points.map((p) => roundLonLat(fn(p))) };
}

/** WGS-84 shape → the basemap's coordinates (a circle keeps its radius: only its centre moves). */
export function shapeToMapCrs(shape: Shape, crs: Crs): Shape {
  return crs === 'WGS84' ? shape : mapPositions(shape, (p) => toMapCrs(p, crs));
}

/** A shape drawn on the basemap → WGS-84. */
export function shapeFromMapCrs(shape: Shape, crs: Crs): Shape {
  return crs === 'WGS84' ? shape : mapPositions(shape, (p) => fromMapCrs(p, crs));
}
