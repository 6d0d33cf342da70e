import { findOperation, manifestResource, transferCalls, type ManifestField } from '../api/manifest';
import type { Column, FieldType, ResourceApi, ResourceConfig, ResourceDefinition } from './types';

const TEXT_TYPES = new Set<FieldType>(['input', 'textarea', 'password']);
const CHOICE_TYPES = new Set<FieldType>(['dict', 'select', 'tree']);

function isNumeric(field: ManifestField): boolean {
  return field.type === 'integer' || field.type === 'number';
}

/**
 * Whether the form must hold a value: the server requires the field, or it takes the field out but not empty (not
 * nullable: a number, a switch, a choice or a text of at least one character) — the form always sends it.
 */
export function fieldRequired(field: ManifestField): boolean {
  if (field.required) return true;
  if (field.nullable) return false;
  if (field.type === 'string') return (field.minLength ?? 0) > 0;
  return isNumeric(field) || field.type === 'boolean';
}

/** The control of a field the config gives no type: a dictionary, a number, a date-time, a switch, else text. */
function fieldType(field: ManifestField): FieldType | undefined {
  if (field.dict || field.dictBiz) return 'dict';
  if (isNumeric(field)) return 'number';
  if (field.type === 'datetime') return 'datetime';
  if (field.type === 'boolean') return 'switch';
  return undefined;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A column completed from the manifest field of its `prop` (what the column gives itself wins). */
export function resolveColumn(column: Column, field: ManifestField | undefined): Column {
  if (!field) return column;
  const type = column.type ?? fieldType(field);
  const text = TEXT_TYPES.has(type ?? 'input');
  const dictCode = type === 'dict' ? (field.dict ?? field.dictBiz) : undefined;
  return withoutUndefined({
    ...column,
    type,
    required: column.required ?? fieldRequired(field),
    dictCode: column.dictCode ?? dictCode,
    dictBiz: column.dictBiz ?? (dictCode && !field.dict && field.dictBiz ? true : undefined),
    valueType: column.valueType ?? (CHOICE_TYPES.has(type ?? 'input') && isNumeric(field) ? 'number' : undefined),
    maxLength: column.maxLength ?? (text ? field.maxLength : undefined),
    minLength: column.minLength ?? (text ? field.minLength : undefined),
    min: column.min ?? (type === 'number' ? field.minimum : undefined),
    max: column.max ?? (type === 'number' ? field.maximum : undefined),
    pattern: column.pattern ?? (text ? field.pattern : undefined),
    defaultValue: column.defaultValue ?? field.default,
  });
}

/** The calls of a resource's generated operations, by kind (the first operation of a kind when there are several). */
export function resourceApi(resource: string): Partial<ResourceApi> & { listMethod?: 'GET' | 'POST'; paged?: boolean } {
  const page = findOperation(resource, 'page');
  const list = page ?? findOperation(resource, 'list');
  const update = findOperation(resource, 'update');
  const submit = update ?? findOperation(resource, 'submit');
  const create = findOperation(resource, 'create');
  return withoutUndefined({
    list: list?.path,
    detail: findOperation(resource, 'detail')?.path,
    submit: submit?.path,
    // a call of its own for new rows; without it `submit` saves both
    create: create && create.path !== submit?.path ? create.path : undefined,
    remove: findOperation(resource, 'remove')?.path,
    tree: findOperation(resource, 'tree')?.path,
    listMethod: list ? (list.method === 'POST' ? 'POST' : 'GET') : undefined,
    paged: list ? list === page : undefined,
  });
}

const DECLARED = new WeakMap<ResourceConfig, ResourceDefinition>();

/** What the resource file declared, before the manifest completed it (for the tests). */
export function declaredOf(config: ResourceConfig): ResourceDefinition | undefined {
  return DECLARED.get(config);
}

/** A resource definition completed from the manifest (see `ResourceDefinition`). */
export function resolveResource(definition: ResourceDefinition): ResourceConfig {
  const { resource } = definition;
  const server = resource ? manifestResource(resource) : undefined;
  const derived = resource ? resourceApi(resource) : {};
  const { listMethod, paged, ...derivedApi } = derived;
  // a list given by the config is its own call: the server's method and paging of `list` do not apply to it
  const ownList = definition.api?.list !== undefined && definition.api.list !== derivedApi.list;
  const api = { ...derivedApi, ...definition.api };
  if (!api.list || !api.detail) throw new Error(`resource config "${definition.code}" has no list or detail call`);
  const config: ResourceConfig = withoutUndefined({
    ...definition,
    api: withoutUndefined(api) as ResourceApi,
    listMethod: definition.listMethod ?? (ownList ? undefined : listMethod),
    paged: definition.paged ?? (ownList ? false : (paged ?? false)),
    tree: definition.tree ?? (server?.tree && !ownList && paged === false ? true : undefined),
    transfer: resource ? transferCalls(resource) : undefined,
    labelField: definition.labelField ?? server?.label,
    columns: definition.columns.map((c) => resolveColumn(c, server?.fields[c.prop])),
  });
  DECLARED.set(config, definition);
  return config;
}
