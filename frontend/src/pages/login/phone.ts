/** An 11-digit mobile number (the server's rule, `check_mobile`). */
export const MOBILE = /^1[3-9]\d{9}$/;
/** A sign-in code: 6 digits. */
export const SMS_CODE = /^\d{6}$/;
/** A new code may be asked for a minute after the last one. */
export const RESEND_SECONDS = 60;

/** The form field a server message names (`phone: …`, `code: …`; `key: …` is the code's), and the message without
 * that name; no field: the whole message. */
export function fieldOfMessage(message: string): ['phone' | 'code' | 'tenantId' | null, string] {
  const found = /^\s*(phone|code|key|tenantId)\s*:\s*(.+)$/s.exec(message);
  if (!found) return [null, message];
  const field = found[1] === 'key' ? 'code' : (found[1] as 'phone' | 'code' | 'tenantId');
  return [field, found[2].trim()];
}
