/** The colours of the vehicle states (the map's dots and the list's tags use the same). */
export const STATE_COLORS: Record<string, string> = {
  moving: '#1677ff',
  loaded: '#52c41a',
  idle: '#faad14',
  off: '#8c8c8c',
};
export const OFFLINE_COLOR = '#bfbfbf';
export const ALARM_COLOR = '#f5222d';
