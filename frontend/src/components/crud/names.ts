import type { ResourceConfig, Row } from '../../resources/types';

/** How a row is named to the user: its label field (the manifest's `label`), else its name, else its id. */
export function rowLabel(config: Pick<ResourceConfig, 'labelField'>, row: Row): string {
  for (const key of [config.labelField, 'name', 'title']) {
    const value = key ? row[key] : undefined;
    if (value !== undefined && value !== null && String(value).trim() !== '') return String(value);
  }
  return String(row.id ?? '');
}

/** The names of the rows a confirmation lists: the first `max`, and how many more there are. */
export function namesToConfirm(config: Pick<ResourceConfig, 'labelField'>, rows: Row[], max = 5): { names: string[]; more: number } {
  const names = rows.slice(0, max).map((r) => `「${rowLabel(config, r)}」`);
  return { names, more: Math.max(0, rows.length - max) };
}
