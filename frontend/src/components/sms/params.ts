/** The template parameters as typed: a JSON object, or an i18n key of what is wrong with them. */
export function checkParams(text: string): string | null {
  if (!text.trim()) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'sms.paramsObject';
    const ok = Object.values(value as Record<string, unknown>).every((v) => typeof v === 'string' || typeof v === 'number');
    return ok ? null : 'sms.paramsObject';
  } catch {
    return 'sms.paramsObject';
  }
}
