import { buttonOfPermission } from '../access/access';
import data from './manifest.json';

/**
 * The server's resource manifest (`x-liftdesk-resources` of openapi.json, extracted by `npm run gen:api` into
 * manifest.json): per resource its generated operations, its declared actions and the fields its save call takes.
 * Resource configs name their resource and take paths, types, limits and dictionaries from here.
 */

export type OperationKind = 'page' | 'list' | 'tree' | 'lazy_tree' | 'detail' | 'submit' | 'create' | 'update' | 'remove' | 'select';

export interface ManifestOperation {
  kind: string;
  method: string;
  path: string;
}

export interface ManifestAction extends ManifestOperation {
  name: string;
  /** Who may call it, in words (e.g. "the button vehicle_add"). */
  permission: string;
  /** A bind action's most rows bound to one owner (`x-liftdesk-limit`). */
  limit?: number;
}

export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'id' | 'datetime' | 'array' | 'object';

export interface ManifestField {
  type: FieldKind | string;
  required: boolean;
  nullable?: boolean;
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
  /** Code of the system dictionary of the values. */
  dict?: string;
  /** Code of the business dictionary (`dict-biz`) of the values. */
  dictBiz?: string;
}

export interface ManifestResource {
  name: string;
  code: string;
  label?: string;
  tree?: boolean;
  /** A subject without a table of its own (the live state, a report): the table whose rows (and data rule) it reads. */
  scopeVia?: string;
  operations: ManifestOperation[];
  actions: ManifestAction[];
  fields: Record<string, ManifestField>;
  filters: string[];
}

export const MANIFEST: Readonly<Record<string, ManifestResource>> = data as Record<string, ManifestResource>;

/** The manifest entry of `name`; throws for a resource the server does not have. */
export function manifestResource(name: string): ManifestResource {
  const found = MANIFEST[name];
  if (!found) throw new Error(`the server has no resource "${name}"`);
  return found;
}

/** The path of the resource's first operation of `kind`, or undefined. */
export function findOperation(name: string, kind: OperationKind): ManifestOperation | undefined {
  return manifestResource(name).operations.find((o) => o.kind === kind);
}

/** The path of the resource's first operation of `kind`; throws when the server has none. */
export function operation(name: string, kind: OperationKind): string {
  const found = findOperation(name, kind);
  if (!found) throw new Error(`the server's resource "${name}" has no ${kind} operation`);
  return found.path;
}

/** The path of the resource's declared action `action` (its name in the manifest); throws when unknown. */
export function action(name: string, actionName: string): string {
  const found = manifestResource(name).actions.find((a) => a.name === actionName);
  if (!found) throw new Error(`the server's resource "${name}" has no action "${actionName}"`);
  return found.path;
}

/** Every path the server has: each resource's operations and actions. */
export function knownPaths(): Set<string> {
  const out = new Set<string>();
  for (const r of Object.values(MANIFEST)) for (const call of [...r.operations, ...r.actions]) out.add(call.path);
  return out;
}

/** The spreadsheet calls of a resource (see backend core/transfer.py): absent ones are undefined. */
export interface TransferCalls {
  /** POST multipart `file`, query `isCovered`. */
  import?: string;
  /** GET: the import template (.xlsx). */
  template?: string;
  /** GET `?jobId=`: the report of a background import. */
  progress?: string;
  /** GET with the page call's filters: the list (.xlsx). */
  export?: string;
}

/**
 * The import, its template and progress, and the export of a resource. The template is an `export` action and the
 * progress a `read` one; the server names them `import_template_<resource>` and `import_progress_<resource>`.
 */
export function transferCalls(name: string): TransferCalls {
  const { actions } = manifestResource(name);
  const template = actions.find((a) => a.kind === 'export' && a.name.startsWith('import_template_'));
  const progress = actions.find((a) => a.name.startsWith('import_progress_'));
  return {
    import: actions.find((a) => a.kind === 'import')?.path,
    template: template?.path,
    progress: progress?.path,
    export: actions.find((a) => a.kind === 'export' && a !== template)?.path,
  };
}

/** The four calls of a binding between two resources (backend core/binding.py), and the button they need. */
export interface BindingCalls {
  /** GET `?<owner>Id=&current=&size=` with the other resource's filters: a page of the rows bound. */
  bound: string;
  /** GET, the same: a page of the rows not bound. */
  unbound: string;
  /** POST `{<owner>Id, <others>: [ids]}`: bind (all or none); answers how many links were added. */
  bind: string;
  /** POST, the same: unbind; answers how many links were removed. */
  unbind: string;
  /** The button code bind and unbind need (e.g. `fence_edit`), when one. */
  button?: string;
  /** The most rows one owner may have bound, when the server sets one. */
  limit?: number;
}

/**
 * The binding of `other` rows to an `owner` row, as the server declares it: actions `<owner>_<other>_bound`,
 * `_unbound` (kind read), `_bind` (kind bind) and `_unbind` (kind unbind), on the owner's resource or on a subject
 * of its own (the drivers authorized on a vehicle are `vehicle_driver`'s). Throws when the server has none.
 */
export function bindingCalls(owner: string, other: string): BindingCalls {
  manifestResource(owner);
  const actions = Object.values(MANIFEST).flatMap((r) => r.actions);
  const find = (suffix: string, kind: string) => {
    const found = actions.find((a) => a.name === `${owner}_${other}_${suffix}` && a.kind === kind);
    if (!found) throw new Error(`the server's resource "${owner}" has no ${suffix} action for "${other}"`);
    return found;
  };
  const bind = find('bind', 'bind');
  return {
    bound: find('bound', 'read').path,
    unbound: find('unbound', 'read').path,
    bind: bind.path,
    unbind: find('unbind', 'unbind').path,
    button: buttonOfPermission(bind.permission),
    limit: bind.limit,
  };
}
