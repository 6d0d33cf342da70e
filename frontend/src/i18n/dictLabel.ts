/**
 * The text of a dictionary value in the UI language. The server's dictionaries are in Chinese only; the seeded ones
 * are translated by dictionary code and key (`dictValue.<code>.<key>` in en.json, as the menus are by code), and any
 * other value shows as the server has it.
 */
export function dictLabel(t: (key: string, options: { defaultValue: string }) => string, code: string, key: unknown, value: string): string {
  const k = String(key ?? '');
  if (!code || !k || /[.:\s]/.test(k)) return value;
  return t(`dictValue.${code}.${k}`, { defaultValue: value });
}
