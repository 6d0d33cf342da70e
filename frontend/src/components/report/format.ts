const NUMBER = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A report's figure (hours, percent) with two decimals; '-' for no number. */
export function formatNumber(value: unknown): string {
  return typeof value === 'number' ? NUMBER.format(value) : '-';
}
