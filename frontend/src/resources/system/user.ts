import { defineResource } from '../types';

export default defineResource({
  code: 'user',
  title: 'resource.user',
  api: {
    list: '/api/blade-user/page',
    detail: '/api/blade-user/detail',
    submit: '/api/blade-user/submit',
    remove: '/api/blade-user/remove',
  },
  paged: true,
  rowActions: [
    {
      key: 'resetPassword',
      label: 'user.resetPassword',
      permission: 'edit',
      confirm: 'user.resetConfirm',
      done: 'user.passwordReset',
      path: '/api/blade-user/reset-password',
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
      path: '/api/blade-user/unlock',
      params: (row) => ({ userIds: String(row.id) }),
    },
  ],
  sideTree: { url: '/api/blade-system/dept/tree', param: 'deptId', title: 'user.deptTree' },
  columns: [
    { prop: 'account', label: 'user.account', search: true, required: true, width: 130 },
    { prop: 'name', label: 'user.name', required: true, width: 120 },
    { prop: 'realName', label: 'user.realName', search: true, required: true, width: 120 },
    { prop: 'password', label: 'user.password', type: 'password', required: true, addOnly: true, confirm: true, hideInDetail: true },
    { prop: 'phone', label: 'user.phone', width: 130 },
    { prop: 'email', label: 'user.email', hideInTable: true },
    { prop: 'sex', label: 'user.sex', type: 'dict', dictCode: 'sex', valueType: 'number', width: 70 },
    { prop: 'birthday', label: 'user.birthday', type: 'date', hideInTable: true },
    {
      prop: 'roleId',
      label: 'user.roleId',
      type: 'tree',
      treeUrl: '/api/blade-system/role/tree',
      multiple: true,
      required: true,
      displayProp: 'roleName',
    },
    {
      prop: 'deptId',
      label: 'user.deptId',
      type: 'tree',
      treeUrl: '/api/blade-system/dept/tree',
      multiple: true,
      required: true,
      displayProp: 'deptName',
    },
    {
      prop: 'postId',
      label: 'user.postId',
      type: 'select',
      remote: { url: '/api/blade-system/post/select', labelKey: 'postName', valueKey: 'id' },
      multiple: true,
      displayProp: 'postName',
      hideInTable: true,
    },
    { prop: 'code', label: 'user.code', hideInTable: true },
  ],
});
