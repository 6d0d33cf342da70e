import { apiGet } from '../../api/client';
import type { components } from '../../api/schema';

/** An organisation as `common/getMechanismParamList` answers it (the tree's order, a parent before its children). */
export type Mechanism = components['schemas']['Mechanism'];

/** A select box's option of an organisation: its name, its path for the search, and its depth for the indent. */
export interface MechanismOption {
  value: string;
  label: string;
  path: string;
  depth: number;
}

/**
 * The options of the organisations in the answer's order; the depth of each is that of its parent in the list plus
 * one (the top of what the caller sees is depth 0, whatever lies above it).
 */
export function mechanismOptions(rows: readonly Mechanism[] | null | undefined): MechanismOption[] {
  const depths = new Map<string, number>();
  return (rows ?? []).map((row) => {
    const parent = row.parentId != null ? depths.get(String(row.parentId)) : undefined;
    const depth = parent === undefined ? 0 : parent + 1;
    depths.set(String(row.id), depth);
    return { value: String(row.id), label: row.mechanismName, path: row.pathName, depth };
  });
}

/** The organisations the caller may see; under the key `tree`, so that a change of organisations refreshes it. */
export function mechanismsQuery() {
  const url = '/api/blade-fics-report/fics/common/getMechanismParamList';
  return { queryKey: ['tree', url], queryFn: () => apiGet(url), staleTime: 60_000 };
}
