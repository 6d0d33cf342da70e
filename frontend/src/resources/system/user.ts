import { createElement, lazy } from 'react';
import { action, operation } from '../../api/manifest';
import { defineResource } from '../types';
import { GrantRoles } from './userGrant';
import type { Row } from '../types';

// 审核通过 of a registered newcomer: roles and organisations chosen in a dialog, loaded when first opened
const ApproveDialog = lazy(() => import('./userApprove'));

/** A registration waiting for approval: status 0 and no role yet (an administrator's user always has one). */
function isPending(row: Row): boolean {
  return Number(row.status) === 0 && !String(row.roleId ?? '');
}

export default defineResource({
  code: 'user',
  resource: 'user',
  title: 'resource.user',
  rowActions: [
    // a newcomer registered through the sign-in page waits here until approved (or refused: the row goes)
    { key: 'approve', label: 'userAdmin.approve', permission: 'edit', when: isPending, open: ApproveDialog },
    {
      key: 'refuse',
      label: 'userAdmin.refuse',
      permission: 'edit',
      when: isPending,
      danger: true,
      confirm: 'userAdmin.refuseConfirm',
      done: 'userAdmin.refused',
      path: action('user', 'audit_refuse'),
      params: (row) => ({ userIds: String(row.id) }),
    },
    {
      key: 'resetPassword',
      label: 'user.resetPassword',
      permission: 'edit',
      confirm: 'user.resetConfirm',
      done: 'user.passwordReset',
      path: action('user', 'reset_password'),
      params: (row) => ({ userIds: String(row.id) }),
      // the server makes a password per user, shown once; the user chooses their own at the next sign-in
      result: (data, row) => {
        const made = (data as { passwords?: Record<string, string> } | undefined)?.passwords ?? {};
        return `${String(row.account)}: ${made[String(row.account)] ?? ''}`;
      },
    },
    {
      key: 'unlock',
      label: 'user.unlock',
      permission: 'edit',
      confirm: 'user.unlockConfirm',
      done: 'user.unlocked',
      path: action('user', 'unlock_users'),
      params: (row) => ({ userIds: String(row.id) }),
    },
  ],
  // 授权角色 on the selected users; the import (.xls / .xlsx, its template, 覆盖已有) and the export with the list's
  // filters come from the server's transfer calls, as for the vehicle register
  toolbarExtras: [(props) => createElement(GrantRoles, props)],
  sideTree: { url: operation('dept', 'tree'), param: 'deptId', title: 'user.deptTree' },
  columns: [
    { prop: 'account', label: 'user.account', search: true, width: 130 },
    { prop: 'name', label: 'user.name', width: 120 },
    { prop: 'realName', label: 'user.realName', search: true, width: 120 },
    // the server keeps a user's password when an edit sends none; a new user needs one
    { prop: 'password', label: 'user.password', type: 'password', required: true, addOnly: true, confirm: true, hideInDetail: true },
    { prop: 'phone', label: 'user.phone', width: 130 },
    { prop: 'email', label: 'user.email', hideInTable: true },
    { prop: 'sex', label: 'user.sex', width: 70 },
    { prop: 'birthday', label: 'user.birthday', type: 'date', hideInTable: true },
    {
      prop: 'roleId',
      label: 'user.roleId',
      type: 'tree',
      treeUrl: operation('role', 'tree'),
      multiple: true,
      displayProp: 'roleName',
    },
    {
      prop: 'deptId',
      label: 'user.deptId',
      type: 'tree',
      treeUrl: operation('dept', 'tree'),
      multiple: true,
      displayProp: 'deptName',
    },
    {
      prop: 'postId',
      label: 'user.postId',
      type: 'select',
      remote: { url: operation('post', 'select'), labelKey: 'postName', valueKey: 'id' },
      multiple: true,
      displayProp: 'postName',
      hideInTable: true,
    },
    { prop: 'code', label: 'user.code', hideInTable: true },
    {
      prop: 'status',
      label: 'user.status',
      type: 'select',
      options: [
        { label: 'user.statusPending', value: 0 },
        { label: 'user.statusActive', value: 1 },
      ],
      search: true,
      searchParam: 'status_equal',
      hideInForm: true,
      width: 90,
      format: (value, _row, t) => (Number(value) === 0 ? t('user.statusPending') : t('user.statusActive')),
    },
  ],
});
