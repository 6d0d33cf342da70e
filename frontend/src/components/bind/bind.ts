/** Why a selection cannot be bound, as an i18n key and its values, or null when it can. */
export function bindCheck(selected: number, bound: number, limit: number | undefined): { key: string; values?: Record<string, number> } | null {
  if (selected <= 0) return { key: 'crud.selectOne' };
  if (limit !== undefined && bound + selected > limit) return { key: 'bind.overLimit', values: { limit, left: Math.max(0, limit - bound) } };
  return null;
}
