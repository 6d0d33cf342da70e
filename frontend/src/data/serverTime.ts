/** Pure helpers of the server-time clock. */

/** Difference between the server clock and this browser's clock, in ms. */
export function clockSkew(serverTimestamp: number, localNow: number): number {
  return serverTimestamp - localNow;
}

/** Wall-clock fields of `epochMs` in a zone `offsetMinutes` east of UTC. */
export function zonedParts(epochMs: number, offsetMinutes: number) {
  const d = new Date(epochMs + offsetMinutes * 60_000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

export function formatZoned(epochMs: number, offsetMinutes: number): { date: string; time: string } {
  const p = zonedParts(epochMs, offsetMinutes);
  return { date: `${p.year}-${pad(p.month)}-${pad(p.day)}`, time: `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` };
}

/** "UTC+08:00" style label of an offset in minutes. */
export function offsetLabel(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The greeting of the hour in the tenant's zone (not the browser's): morning until noon, afternoon until 18:00. */
export function greetingKey(epochMs: number, offsetMinutes: number): 'wel.morning' | 'wel.afternoon' | 'wel.evening' {
  const { hour } = zonedParts(epochMs, offsetMinutes);
  return hour < 12 ? 'wel.morning' : hour < 18 ? 'wel.afternoon' : 'wel.evening';
}
