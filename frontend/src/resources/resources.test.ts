import { describe, expect, it } from 'vitest';
import { MANIFEST, knownPaths, manifestResource } from '../api/manifest';
import { RESOURCES } from './index';
import { declaredOf, fieldRequired, resolveColumn } from './resolve';
import { dict } from './system/dict';
import { dictbiz } from './system/dictbiz';
import type { Column, ResourceConfig } from './types';

/** Every resource config of the app (the dictionaries' three views each). */
const CONFIGS: [string, ResourceConfig][] = [
  ...Object.entries(RESOURCES),
  ['dict.roots', dict.roots],
  ['dict.children', dict.children],
  ['dictbiz.roots', dictbiz.roots],
  ['dictbiz.children', dictbiz.children],
];

const PATHS = knownPaths();

/** The paths a config calls: its api, trees, remote selects, side tree and row actions. */
function pathsOf(config: ResourceConfig): string[] {
  return [
    ...Object.values(config.api),
    ...config.columns.flatMap((c) => [c.treeUrl, c.remote?.url]),
    config.sideTree?.url,
    ...(config.rowActions ?? []).map((a) => ('path' in a ? a.path : undefined)),
  ].filter((p): p is string => typeof p === 'string');
}

/** Whether the config has the modal form (a save call) — a read-only resource shows none. */
function hasForm(config: ResourceConfig): boolean {
  return !!(config.api.submit ?? config.api.create);
}

/** Columns of the form that are sent: neither hidden from the form nor read-only (view-only, derived). */
function sentColumns(config: ResourceConfig): Column[] {
  return config.columns.filter((c) => !c.hideInForm && !c.readOnly);
}

describe('resource configs against the server manifest', () => {
  it('every config names a resource of the server', () => {
    for (const [name, config] of CONFIGS) {
      expect(config.resource, `${name} names no server resource`).toBeTruthy();
      expect(() => manifestResource(config.resource!), name).not.toThrow();
    }
  });

  it('every path a config calls is an operation or action of the server', () => {
    const unknown = CONFIGS.flatMap(([name, config]) => pathsOf(config).filter((p) => !PATHS.has(p)).map((p) => `${name}: ${p}`));
    expect(unknown).toEqual([]);
  });

  it('every sent form field is a field of the resource (or marked read-only / hidden from the form)', () => {
    const unknown = CONFIGS.filter(([, config]) => hasForm(config)).flatMap(([name, config]) => {
      const fields = MANIFEST[config.resource!].fields;
      return sentColumns(config)
        .filter((c) => !(c.prop in fields))
        .map((c) => `${name}: ${c.prop}`);
    });
    expect(unknown).toEqual([]);
  });

  it('a config repeats nothing the manifest gives (what it gives differs: a presentation of its own)', () => {
    const keys = ['type', 'required', 'maxLength', 'minLength', 'min', 'max', 'pattern', 'dictCode', 'dictBiz', 'valueType'] as const;
    const redundant: string[] = [];
    for (const [name, config] of CONFIGS) {
      const declared = declaredOf(config);
      expect(declared, name).toBeDefined();
      const fields = MANIFEST[config.resource!].fields;
      for (const column of declared!.columns) {
        const field = fields[column.prop];
        if (!field) continue;
        const bare: Column = { prop: column.prop, label: column.label, type: column.type };
        const fromServer = resolveColumn(bare, field);
        for (const key of keys) {
          if (key === 'type') {
            // the type the manifest would choose for a column that gives none
            if (column.type !== undefined && resolveColumn({ prop: column.prop, label: '' }, field).type === column.type)
              redundant.push(`${name}.${column.prop}.type`);
            continue;
          }
          if (column[key] !== undefined && column[key] === fromServer[key]) redundant.push(`${name}.${column.prop}.${key}`);
        }
        // a default is the same when the form shows it the same (`'3'` of a select is the server's 3)
        if (column.defaultValue !== undefined && field.default !== undefined && String(column.defaultValue) === String(field.default))
          redundant.push(`${name}.${column.prop}.defaultValue`);
      }
    }
    expect(redundant).toEqual([]);
  });

  it('takes the calls of the generated operations by kind', () => {
    const { vehicle, fence, user, dept, command } = RESOURCES;
    expect(vehicle.api).toEqual({
      list: '/api/blade-fics-report/fics/carInfo/page',
      detail: '/api/blade-fics-report/fics/carInfo/getCarInfo',
      create: '/api/blade-fics-report/fics/carInfo/insertCarInfo',
      submit: '/api/blade-fics-report/fics/carInfo/updateCarInfoById',
      remove: '/api/blade-fics-report/fics/carInfo/deleteCarInfoById',
    });
    expect(vehicle.paged).toBe(true);
    // the fence page is a POST
    expect(fence.listMethod).toBe('POST');
    expect(user.api.list).toBe('/api/blade-user/page');
    expect(user.api.submit).toBe('/api/blade-user/submit');
    expect(dept.paged).toBe(false);
    expect(dept.tree).toBe(true);
    expect(dept.api.list).toBe('/api/blade-system/dept/list');
    expect(command.api).toEqual({ list: '/api/liftdesk/command/list', detail: '/api/liftdesk/command/detail' });
    expect(dict.roots.api.list).toBe('/api/blade-system/dict/parent-list');
    expect(dict.roots.paged).toBe(true);
    expect(dict.roots.tree).toBe(false);
    expect(dictbiz.children.api.list).toBe('/api/blade-system/dict-biz/child-list');
    expect(dictbiz.children.tree).toBe(true);
    expect(vehicle.transfer?.import).toBe('/api/blade-fics-report/fics/carInfo/importCar');
    expect(RESOURCES.param.transfer?.import).toBeUndefined();
  });

  it('completes the columns from the fields: type, required, limits, pattern, dictionary, default', () => {
    const column = (config: ResourceConfig, prop: string) => config.columns.find((c) => c.prop === prop)!;
    const { vehicle, role, client, dept } = RESOURCES;
    expect(column(vehicle, 'carNo')).toMatchObject({ required: true, maxLength: 64 });
    expect(column(vehicle, 'carType')).toMatchObject({ type: 'dict', dictCode: 'car_type', valueType: 'number', required: true, defaultValue: 3 });
    expect(column(vehicle, 'ratedLoadKg')).toMatchObject({ type: 'number', min: 0, max: 100000, required: false });
    expect(column(vehicle, 'deviceNumber')).toMatchObject({ pattern: '^[0-9]{1,20}$', maxLength: 20, patternMessage: 'vehicle.deviceNumberRule' });
    // a presentation of its own: a day for a date-time, a tree for an id
    expect(column(vehicle, 'factoryDate').type).toBe('date');
    expect(column(vehicle, 'mechanismId')).toMatchObject({ type: 'tree' });
    expect(column(vehicle, 'mechanismId').pattern).toBeUndefined();
    expect(column(role, 'roleAlias').pattern).toBe('^[A-Za-z][A-Za-z0-9_-]*$');
    expect(column(client, 'accessTokenValidity')).toMatchObject({ min: 60, max: 31536000, defaultValue: 3600, required: true });
    expect(column(dept, 'fullName').required).toBe(true);
  });

  it('asks for a value the server takes out but not empty', () => {
    expect(fieldRequired({ type: 'string', required: true })).toBe(true);
    expect(fieldRequired({ type: 'integer', required: false, default: 3 })).toBe(true);
    expect(fieldRequired({ type: 'integer', required: false, nullable: true })).toBe(false);
    expect(fieldRequired({ type: 'string', required: false, default: '' })).toBe(false);
    expect(fieldRequired({ type: 'string', required: false, default: 'all', minLength: 1 })).toBe(true);
  });
});
