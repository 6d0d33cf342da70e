import { action, operation } from '../../api/manifest';
import { defineResource, type Column, type Row } from '../types';

/** The dictionary columns, shared by the system (`dict`) and business (`dict_biz`) dictionaries. */
export function dictColumns(resource: DictResource): Column[] {
  return [
    { prop: 'code', label: 'dict.code', search: true, width: 160 },
    { prop: 'dictValue', label: 'dict.dictValue', search: true, width: 180 },
    { prop: 'dictKey', label: 'dict.dictKey', width: 120 },
    { prop: 'sort', label: 'common.sort', width: 80, defaultValue: 1 },
    { prop: 'isSealed', label: 'dict.isSealed', type: 'switch', width: 90 },
    {
      prop: 'parentId',
      label: 'dict.parentId',
      type: 'tree',
      treeUrl: operation(resource, 'tree'),
      hideInTable: true,
      extra: 'dict.parentHelp',
    },
    { prop: 'remark', label: 'common.remark', type: 'textarea' },
  ];
}

type DictResource = 'dict' | 'dict_biz';

const childDefaults = (parent: Row): Row => ({ parentId: parent.id, code: parent.code });

/** The three views of a dictionary (menu `code`) over the server's resource `dict` or `dict_biz`. */
export function dictResources(code: 'dict' | 'dictbiz', resource: DictResource) {
  const columns = dictColumns(resource);
  /** Everything as one tree (`list` answers a tree array). */
  const tree = defineResource({
    code,
    resource,
    title: code === 'dict' ? 'resource.dict' : 'resource.dictbiz',
    columns,
    childDefaults,
  });
  /** Root entries, paged (`parent-list`). */
  const roots = defineResource({
    code,
    resource,
    title: 'dict.roots',
    api: { list: action(resource, 'parent_list') },
    paged: true,
    tree: false,
    childDefaults,
    // a root's key is the placeholder -1; the remark is in the detail
    columns: columns
      .filter((c) => c.prop !== 'parentId')
      .map((c) => (c.prop === 'dictKey' || c.prop === 'remark' ? { ...c, hideInTable: true } : c)),
  });
  /** Entries under one root (`child-list?parentId=`). */
  const children = defineResource({
    code,
    resource,
    title: 'dict.children',
    api: { list: action(resource, 'child_list') },
    tree: true,
    columns,
    childDefaults,
  });
  return { tree, roots, children };
}

export const dict = dictResources('dict', 'dict');
export default dict.tree;
