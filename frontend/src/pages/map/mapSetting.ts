import type { MapSetting, MapSettingInput } from '../../map/api';

/** The form of the settings page (numbers empty while not given). */
export interface MapSettingValues {
  tileUrl: string;
  attribution: string;
  maxZoom: number | null;
  planSouth: number | null;
  planWest: number | null;
  planNorth: number | null;
  planEast: number | null;
  planOpacity: number;
}

export const CORNER_FIELDS = ['planSouth', 'planWest', 'planNorth', 'planEast'] as const;

/** A tile URL template as the server accepts it: http(s) with a host, {z}, {x} and {y} (and no other than {s}). */
export function validTemplate(url: string): boolean {
  if (!url || /\s/.test(url) || url.length > 500) return false;
  // a host right after the scheme (a URL parser would take `https:///a` for host `a`)
  if (!/^https?:\/\/[^/?#]+/i.test(url)) return false;
  const found: string[] = url.match(/\{[^{}]*\}/g) ?? [];
  if (!['{z}', '{x}', '{y}'].every((p) => found.includes(p))) return false;
  if (!found.every((p) => ['{z}', '{x}', '{y}', '{s}'].includes(p))) return false;
  try {
    const parsed = new URL(url.replace(/[{}]/g, ''));
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && !!parsed.host;
  } catch {
    return false;
  }
}

export function valuesOf(setting: MapSetting | undefined): MapSettingValues {
  return {
    tileUrl: setting?.tileUrl ?? '',
    attribution: setting?.attribution ?? '',
    maxZoom: setting?.maxZoom ?? null,
    planSouth: setting?.planSouth ?? null,
    planWest: setting?.planWest ?? null,
    planNorth: setting?.planNorth ?? null,
    planEast: setting?.planEast ?? null,
    planOpacity: setting?.planOpacity ?? 0.8,
  };
}

/** What is saved of the form: trimmed texts, absent numbers as null. */
export function inputOf(values: MapSettingValues): MapSettingInput {
  const num = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    tileUrl: (values.tileUrl ?? '').trim(),
    attribution: (values.attribution ?? '').trim(),
    maxZoom: num(values.maxZoom),
    planSouth: num(values.planSouth),
    planWest: num(values.planWest),
    planNorth: num(values.planNorth),
    planEast: num(values.planEast),
    planOpacity: num(values.planOpacity) ?? 0.8,
  };
}

/** A size in bytes as people read it (KB up to 1 MB, then MB). */
export function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Rounds a coordinate to 6 decimals (about 0.1 m). */
export function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}
