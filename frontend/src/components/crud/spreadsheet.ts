import type { components } from '../../api/schema';

/** The answer of an import and of its progress call (backend core/transfer.py). */
export type ImportReport = components['schemas']['ImportReport'];

/** Only these are read by the server; anything else is refused before it is sent. */
export const IMPORT_ACCEPT = '.xls,.xlsx';

export function isSpreadsheet(name: string): boolean {
  return /\.(xlsx|xls)$/i.test(name.trim());
}
