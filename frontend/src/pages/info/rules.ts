/** The specification's mobile number rule (spec 000 §5): empty, not 11 digits, or a landline each have a message. */
export function mobileProblem(value: string | undefined): 'required' | 'length' | 'format' | null {
  const v = (value ?? '').trim();
  if (!v) return 'required';
  if (/^\d+$/.test(v) && v.length !== 11) return 'length';
  if (!/^1[3-9]\d{9}$/.test(v)) return 'format';
  return null;
}
