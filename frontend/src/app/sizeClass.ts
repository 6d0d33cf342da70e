/** Layout size class by window width: ≥1200 → 3, ≥992 → 2, ≥768 → 1, else 0. */
export function sizeClass(width: number): 0 | 1 | 2 | 3 {
  if (width >= 1200) return 3;
  if (width >= 992) return 2;
  if (width >= 768) return 1;
  return 0;
}
