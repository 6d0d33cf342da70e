/** Electronic fences (spec 001 §3, §9): the record the API speaks, its shape on the map, and the checks before saving. */
import { roundLonLat, selfIntersects, type LonLat } from '../../map/geo';
import type { Shape, ShapeKind } from '../../map/shape';

export const FENCE_CIRCLE = 1;
export const FENCE_POLYGON = 2;
export type FenceType = typeof FENCE_CIRCLE | typeof FENCE_POLYGON;

/** 1 in-fence, 2 out-of-fence, 3 boundary (each crossing), 4 speed limit inside, 5 speed limit + boundary. */
export const ALARM_MODES = [1, 2, 3, 4, 5] as const;
export type AlarmMode = (typeof ALARM_MODES)[number];

export const LIMITS = {
  nameMax: 32,
  remarkMax: 255,
  speedMin: 0,
  speedMax: 30,
  radiusMin: 10,
  radiusMax: 100_000,
  verticesMin: 3,
  verticesMax: 64,
} as const;

/** The fence JSON of F/carInfo/v2 and V2/getCarElectronicsInfo. */
export interface Fence {
  id?: string;
  name: string;
  fenceType: FenceType;
  alarmMode: AlarmMode;
  enableStatus: 0 | 1;
  speedLimit?: number | null;
  centerLon?: number | null;
  centerLat?: number | null;
  radius?: number | null;
  points?: LonLat[] | null;
  mechanismId?: string | null;
  remark?: string | null;
  carIds?: string[];
  carCount?: number;
  createTime?: string;
  updateTime?: string;
}

/** A vehicle of getCarElectronicsAuthorization. */
export interface FenceVehicle {
  carId: string;
  carNo?: string | null;
  deviceNumber?: string | null;
  mechanismId?: string | null;
  bound?: boolean;
}

/** Speed-limit modes need a speed limit. */
export function needsSpeedLimit(mode: unknown): boolean {
  return Number(mode) === 4 || Number(mode) === 5;
}

export function kindOfType(fenceType: unknown): ShapeKind {
  return Number(fenceType) === FENCE_POLYGON ? 'polygon' : 'circle';
}

export function typeOfKind(kind: ShapeKind): FenceType {
  return kind === 'polygon' ? FENCE_POLYGON : FENCE_CIRCLE;
}

function finite(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Vertices from the API (`[[lon, lat], ...]`, tolerating a closing repeat of the first vertex). */
function parsePoints(value: unknown): LonLat[] {
  if (!Array.isArray(value)) return [];
  const points: LonLat[] = [];
  for (const p of value) {
    if (!Array.isArray(p) || p.length < 2) continue;
    const lon = finite(p[0]);
    const lat = finite(p[1]);
    if (lon !== null && lat !== null) points.push([lon, lat]);
  }
  if (points.length > 1) {
    const [first, last] = [points[0], points[points.length - 1]];
    if (first[0] === last[0] && first[1] === last[1]) points.pop();
  }
  return points;
}

/** The shape of a stored fence, or null when it has none (or an unusable one). */
export function shapeOfFence(fence: Partial<Fence>): Shape | null {
  if (Number(fence.fenceType) === FENCE_POLYGON) {
    const points = parsePoints(fence.points);
    return points.length ? { kind: 'polygon', points } : null;
  }
  const lon = finite(fence.centerLon);
  const lat = finite(fence.centerLat);
  const radius = finite(fence.radius);
  if (lon === null || lat === null || radius === null) return null;
  return { kind: 'circle', center: [lon, lat], radius };
}

/** The geometry fields of a fence for a shape: the other type's fields are cleared. */
export function fenceGeometry(shape: Shape): Pick<Fence, 'fenceType' | 'centerLon' | 'centerLat' | 'radius' | 'points'> {
  if (shape.kind === 'circle') {
    const [lon, lat] = roundLonLat(shape.center);
    return { fenceType: FENCE_CIRCLE, centerLon: lon, centerLat: lat, radius: Math.round(shape.radius), points: null };
  }
  return { fenceType: FENCE_POLYGON, centerLon: null, centerLat: null, radius: null, points: shape.points.map(roundLonLat) };
}

/** A problem to show: an i18n key and its values. */
export interface Problem {
  key: string;
  values?: Record<string, number | string>;
}

/** What is wrong with the shape for a fence of that type, or null when it can be saved. */
export function shapeProblem(shape: Shape | null, fenceType: unknown): Problem | null {
  const kind = kindOfType(fenceType);
  if (!shape) return { key: kind === 'circle' ? 'fence.error.drawCircle' : 'fence.error.drawPolygon' };
  if (shape.kind !== kind) return { key: 'fence.error.typeMismatch' };
  if (shape.kind === 'circle') {
    const [lon, lat] = shape.center;
    if (Math.abs(lon) > 180 || Math.abs(lat) > 90) return { key: 'fence.error.outOfRange' };
    if (!(shape.radius >= LIMITS.radiusMin && shape.radius <= LIMITS.radiusMax))
      return { key: 'fence.error.radius', values: { min: LIMITS.radiusMin, max: LIMITS.radiusMax } };
    return null;
  }
  const n = shape.points.length;
  if (n < LIMITS.verticesMin) return { key: 'fence.error.tooFewVertices', values: { min: LIMITS.verticesMin, count: n } };
  if (n > LIMITS.verticesMax) return { key: 'fence.error.tooManyVertices', values: { max: LIMITS.verticesMax, count: n } };
  if (shape.points.some(([lon, lat]) => Math.abs(lon) > 180 || Math.abs(lat) > 90)) return { key: 'fence.error.outOfRange' };
  if (selfIntersects(shape.points)) return { key: 'fence.error.selfIntersecting' };
  return null;
}

/** The values of the editor's form. */
export interface FenceFormValues {
  name: string;
  fenceType: FenceType;
  alarmMode: AlarmMode;
  speedLimit?: number | null;
  enableStatus: boolean;
  mechanismId?: string;
  remark?: string;
}

export function formValuesOf(fence: Partial<Fence>): FenceFormValues {
  return {
    name: fence.name ?? '',
    fenceType: Number(fence.fenceType) === FENCE_POLYGON ? FENCE_POLYGON : FENCE_CIRCLE,
    alarmMode: (ALARM_MODES as readonly number[]).includes(Number(fence.alarmMode)) ? (Number(fence.alarmMode) as AlarmMode) : 1,
    speedLimit: finite(fence.speedLimit),
    enableStatus: fence.enableStatus === undefined ? true : Number(fence.enableStatus) === 1,
    mechanismId: fence.mechanismId ? String(fence.mechanismId) : undefined,
    remark: fence.remark ?? '',
  };
}

/** The JSON of addCarElectronicsSet / updateCarElectronicsSet. */
export function fencePayload(values: FenceFormValues, shape: Shape, carIds: string[], id?: string): Fence {
  return {
    ...(id ? { id } : {}),
    name: values.name.trim(),
    alarmMode: values.alarmMode,
    enableStatus: values.enableStatus ? 1 : 0,
    speedLimit: needsSpeedLimit(values.alarmMode) ? Number(values.speedLimit) : null,
    mechanismId: values.mechanismId || null,
    remark: values.remark?.trim() ?? '',
    carIds,
    ...fenceGeometry(shape),
  };
}
