import type { Column, ResourceConfig, Row } from '../types';

/** The dictionary columns, shared by the system (`dict`) and business (`dict-biz`) dictionaries. */
export function dictColumns(prefix: string): Column[] {
  return [
    { prop: 'code', label: 'dict.code', search: true, required: true, width: 160 },
    { prop: 'dictValue', label: 'dict.dictValue', search: true, required: true, width: 180 },
    { prop: 'dictKey', label: 'dict.dictKey', required: true, width: 120 },
    { prop: 'sort', label: 'common.sort', type: 'number', required: true, min: 0, width: 80, defaultValue: 1 },
    { prop: 'isSealed', label: 'dict.isSealed', type: 'switch', required: true, width: 90, defaultValue: false },
    {
      prop: 'parentId',
      label: 'dict.parentId',
      type: 'tree',
      treeUrl: `${prefix}/tree`,
      hideInTable: true,
      extra: 'dict.parentHelp',
    },
    { prop: 'remark', label: 'common.remark', type: 'textarea' },
  ];
}

function api(prefix: string) {
  return { list: `${prefix}/list`, detail: `${prefix}/detail`, submit: `${prefix}/submit`, remove: `${prefix}/remove` };
}

const childDefaults = (parent: Row): Row => ({ parentId: parent.id, code: parent.code });

export function dictResources(code: 'dict' | 'dictbiz', prefix: string) {
  const columns = dictColumns(prefix);
  /** Everything as one tree (`list` answers a tree array). */
  const tree: ResourceConfig = {
    code,
    title: code === 'dict' ? 'resource.dict' : 'resource.dictbiz',
    api: api(prefix),
    paged: false,
    tree: true,
    columns,
    childDefaults,
  };
  /** Root entries, paged (`parent-list`). */
  const roots: ResourceConfig = {
    ...tree,
    title: 'dict.roots',
    api: { ...api(prefix), list: `${prefix}/parent-list` },
    paged: true,
    tree: false,
    // a root's key is the placeholder -1; the remark is in the detail
    columns: columns
      .filter((c) => c.prop !== 'parentId')
      .map((c) => (c.prop === 'dictKey' || c.prop === 'remark' ? { ...c, hideInTable: true } : c)),
  };
  /** Entries under one root (`child-list?parentId=`). */
  const children: ResourceConfig = {
    ...tree,
    title: 'dict.children',
    api: { ...api(prefix), list: `${prefix}/child-list` },
    paged: false,
    tree: true,
    columns,
  };
  return { tree, roots, children };
}

export const dict = dictResources('dict', '/api/blade-system/dict');
export default dict.tree;
