/** Plane and sphere helpers for the map: distances, Web Mercator, circles as rings, bounds, China's GCJ-02 offset. */

/** [longitude, latitude] in degrees. */
export type LonLat = [number, number];

/** Mean Earth radius in metres (IUGG), the one haversine distances use. */
export const EARTH_RADIUS = 6_371_008.8;
/** Web Mercator sphere radius (EPSG:3857). */
const MERCATOR_RADIUS = 6_378_137;
const RAD = Math.PI / 180;

/** Great-circle distance in metres. */
export function distance(a: LonLat, b: LonLat): number {
  const dLat = (b[1] - a[1]) * RAD;
  const dLon = (b[0] - a[0]) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * RAD) * Math.cos(b[1] * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Earth's circumference at the equator in metres (the Web Mercator sphere). */
export const CIRCUMFERENCE = 2 * Math.PI * MERCATOR_RADIUS;
/** The latitude where Web Mercator's square world ends (north and south). */
export const MAX_LAT = 85.051129;

/**
 * Web Mercator as a fraction of the world, as map tiles and the map's camera count it: x from 0 (180° W) to 1
 * (180° E), y from 0 (MAX_LAT north) to 1 (MAX_LAT south). Latitudes beyond MAX_LAT are taken as MAX_LAT.
 */
export function worldOf([lon, lat]: LonLat): [number, number] {
  const sin = Math.sin(Math.min(MAX_LAT, Math.max(-MAX_LAT, lat)) * RAD);
  return [(lon + 180) / 360, 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)];
}

export function lngLatOf([x, y]: [number, number]): LonLat {
  return [x * 360 - 180, Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) / RAD];
}

/** Web Mercator in metres (EPSG:3857, y north): the same projection as worldOf, on the sphere's scale. */
export function toMercator(at: LonLat): [number, number] {
  const [x, y] = worldOf(at);
  return [(x - 0.5) * CIRCUMFERENCE, (0.5 - y) * CIRCUMFERENCE];
}

export function fromMercator([x, y]: [number, number]): LonLat {
  return lngLatOf([x / CIRCUMFERENCE + 0.5, 0.5 - y / CIRCUMFERENCE]);
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Rounds a position to 7 decimals (about 1 cm), the precision positions are stored with. */
export function roundLonLat([lon, lat]: LonLat): LonLat {
  return [round(lon, 7), round(lat, 7)];
}

/**
 * A closed ring that looks like a circle on a Web Mercator map and whose points lie `radius` metres (along the
 * ground) from `center`: the mercator radius grows by 1/cos(latitude), as the map's scale does.
 */
export function circleRing(center: LonLat, radius: number, steps = 64): LonLat[] {
  const [cx, cy] = toMercator(center);
  const r = radius / Math.cos(center[1] * RAD);
  const ring: LonLat[] = [];
  for (let i = 0; i < steps; i += 1) {
    const angle = (2 * Math.PI * i) / steps;
    ring.push(roundLonLat(fromMercator([cx + r * Math.cos(angle), cy + r * Math.sin(angle)])));
  }
  ring.push(ring[0]);
  return ring;
}

/** The open list of a ring's vertices (without the closing repeat of the first one). */
export function openRing(ring: LonLat[]): LonLat[] {
  if (ring.length > 1) {
    const [first, last] = [ring[0], ring[ring.length - 1]];
    if (first[0] === last[0] && first[1] === last[1]) return ring.slice(0, -1);
  }
  return ring.slice();
}

/** The circle a drawn circular ring stands for: its mercator centre and the mean ground distance to its vertices. */
export function circleOfRing(ring: LonLat[]): { center: LonLat; radius: number } {
  const points = openRing(ring);
  if (points.length === 0) return { center: [0, 0], radius: 0 };
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    const [x, y] = toMercator(p);
    sx += x;
    sy += y;
  }
  const center = roundLonLat(fromMercator([sx / points.length, sy / points.length]));
  const radius = points.reduce((sum, p) => sum + distance(center, p), 0) / points.length;
  return { center, radius };
}

/** [[west, south], [east, north]] of the points. */
export function boundsOf(points: LonLat[]): [LonLat, LonLat] | null {
  if (points.length === 0) return null;
  let [w, s] = points[0];
  let [e, n] = points[0];
  for (const [lon, lat] of points) {
    w = Math.min(w, lon);
    e = Math.max(e, lon);
    s = Math.min(s, lat);
    n = Math.max(n, lat);
  }
  return [
    [w, s],
    [e, n],
  ];
}

/** True when two segments cross (touching at a shared end does not count). */
function segmentsCross(a: LonLat, b: LonLat, c: LonLat, d: LonLat): boolean {
  const cross = (o: LonLat, p: LonLat, q: LonLat) => (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0]);
  const d1 = cross(c, d, a);
  const d2 = cross(c, d, b);
  const d3 = cross(a, b, c);
  const d4 = cross(a, b, d);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

/** True when two non-adjacent edges of the (open) polygon cross. */
export function selfIntersects(points: LonLat[]): boolean {
  const n = points.length;
  if (n < 4) return false;
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      if (j === i + 1 || (i === 0 && j === n - 1)) continue; // adjacent edges share a vertex
      if (segmentsCross(points[i], points[(i + 1) % n], points[j], points[(j + 1) % n])) return true;
    }
  }
  return false;
}

// ---- GCJ-02 (jt808.md §5): the public formula with Krasovsky constants, applied inside China only ---------

const KRASOVSKY_A = 6378245.0;
const KRASOVSKY_EE = 0.006693421622965943;

export function outOfChina([lon, lat]: LonLat): boolean {
  return lon < 72.004 || lon > 137.8347 || lat < 0.8293 || lat > 55.8271;
}

function offset([lon, lat]: LonLat): LonLat {
  const x = lon - 105;
  const y = lat - 35;
  let dLat = -100 + 2 * x + 3 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * Math.sqrt(Math.abs(x));
  dLat += ((20 * Math.sin(6 * x * Math.PI) + 20 * Math.sin(2 * x * Math.PI)) * 2) / 3;
  dLat += ((20 * Math.sin(y * Math.PI) + 40 * Math.sin((y / 3) * Math.PI)) * 2) / 3;
  dLat += ((160 * Math.sin((y / 12) * Math.PI) + 320 * Math.sin((y * Math.PI) / 30)) * 2) / 3;
  let dLon = 300 + x + 2 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * Math.sqrt(Math.abs(x));
  dLon += ((20 * Math.sin(6 * x * Math.PI) + 20 * Math.sin(2 * x * Math.PI)) * 2) / 3;
  dLon += ((20 * Math.sin(x * Math.PI) + 40 * Math.sin((x / 3) * Math.PI)) * 2) / 3;
  dLon += ((150 * Math.sin((x / 12) * Math.PI) + 300 * Math.sin((x / 30) * Math.PI)) * 2) / 3;
  const radLat = lat * RAD;
  let magic = Math.sin(radLat);
  magic = 1 - KRASOVSKY_EE * magic * magic;
  const sqrtMagic = Math.sqrt(magic);
  return [
    (dLon * 180) / ((KRASOVSKY_A / sqrtMagic) * Math.cos(radLat) * Math.PI),
    (dLat * 180) / (((KRASOVSKY_A * (1 - KRASOVSKY_EE)) / (magic * sqrtMagic)) * Math.PI),
  ];
}

/** WGS-84 (what terminals report) → GCJ-02 (AMap, Tencent). */
export function wgs84ToGcj02(p: LonLat): LonLat {
  if (outOfChina(p)) return [p[0], p[1]];
  const [dLon, dLat] = offset(p);
  return [p[0] + dLon, p[1] + dLat];
}

/** GCJ-02 → WGS-84 by fixed-point iteration (well under a metre). */
export function gcj02ToWgs84(p: LonLat): LonLat {
  if (outOfChina(p)) return [p[0], p[1]];
  let guess: LonLat = [p[0], p[1]];
  for (let i = 0; i < 10; i += 1) {
    const [lon, lat] = wgs84ToGcj02(guess);
    const dLon = lon - p[0];
    const dLat = lat - p[1];
    guess = [guess[0] - dLon, guess[1] - dLat];
    if (Math.abs(dLon) < 1e-9 && Math.abs(dLat) < 1e-9) break;
  }
  return guess;
}
