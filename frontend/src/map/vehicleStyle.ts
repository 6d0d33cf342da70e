/** The colours of the vehicle states (the map's dots and the list's tags use the same). */
export const STATE_COLORS: Record<string, string> = {
  moving: '#1677ff',
  loaded: '#52c41a',
  idle: '#faad14',
  off: '#8c8c8c',
};
export const OFFLINE_COLOR = '#bfbfbf';
export const ALARM_COLOR = '#f5222d';

/**
 * What colours a vehicle on the map, in the order of the legend (and of precedence when a cluster holds as many
 * of two): its state when online (an unknown state counts as off), else offline.
 */
export const VEHICLE_CATEGORIES = ['moving', 'loaded', 'idle', 'off', 'offline'] as const;
export type VehicleCategory = (typeof VEHICLE_CATEGORIES)[number];

export function vehicleCategory(v: { online: boolean; state: string }): VehicleCategory {
  if (!v.online) return 'offline';
  return v.state === 'moving' || v.state === 'loaded' || v.state === 'idle' ? v.state : 'off';
}

export function categoryColor(category: VehicleCategory): string {
  return category === 'offline' ? OFFLINE_COLOR : STATE_COLORS[category];
}

/** The i18n key of a category's name (the monitor's own words for them). */
export function categoryLabelKey(category: VehicleCategory): string {
  return category === 'offline' ? 'monitor.offline' : `monitor.state.${category}`;
}
