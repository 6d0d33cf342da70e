import { createElement, lazy } from 'react';
import { action, operation } from '../../api/manifest';
import { DeptSortButton } from '../../components/dept/DeptSortButton';
import { LogoInput } from '../../components/dept/LogoInput';
import { defineResource, type ToolbarExtra } from '../types';

// dialogs of one organisation, loaded when first opened
const DeptMove = lazy(() => import('../../components/dept/DeptMove'));
// 同级排序 is on the toolbar (the selected organisation's level, or the top level): the row buttons stay few
const DeptSort: ToolbarExtra = (props) => createElement(DeptSortButton, props);

export default defineResource({
  code: 'dept',
  resource: 'dept',
  title: 'resource.dept',
  rowActions: [
    {
      key: 'resetInviteCode',
      label: 'dept.resetInvite',
      permission: 'edit',
      confirm: 'dept.resetInviteConfirm',
      done: 'dept.inviteReset',
      path: action('dept', 'reset_invite_code'),
      params: (row) => ({ ids: String(row.id) }),
      // the server answers the new code of each organisation: shown once, and in the list after it refreshes
      result: (data, row) => {
        const made = (data as { id?: string; inviteCode?: string }[] | undefined) ?? [];
        const code = made.find((d) => String(d.id) === String(row.id))?.inviteCode ?? '';
        return `${String(row.deptName)}: ${code}`;
      },
    },
    { key: 'move', label: 'dept.move', permission: 'edit', open: DeptMove },
  ],
  toolbarExtras: [DeptSort],
  columns: [
    { prop: 'deptName', label: 'dept.deptName', search: true },
    // the server takes a department without a full name; the form asks for it
    { prop: 'fullName', label: 'dept.fullName', search: true, required: true },
    // made by the server (new organisations, 重置邀请码), never typed in
    { prop: 'inviteCode', label: 'dept.inviteCode', readOnly: true, hideInForm: true, hideInSearch: true, width: 120 },
    { prop: 'deptCategory', label: 'dept.deptCategory', width: 100 },
    { prop: 'sort', label: 'common.sort', width: 80, defaultValue: 1 },
    { prop: 'parentId', label: 'dept.parentId', type: 'tree', treeUrl: operation('dept', 'tree'), displayProp: 'parentName', hideInTable: true },
    // uploaded (jpg / jpeg / png, 5 MB) to the tenant's store; the top bar shows it to the organisation's users
    { prop: 'deptLogo', label: 'dept.deptLogo', input: LogoInput, hideInTable: true, hideInSearch: true, hideInDetail: true, wide: true },
    { prop: 'remark', label: 'common.remark', type: 'textarea', hideInTable: true },
  ],
});
