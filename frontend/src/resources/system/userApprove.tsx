import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Form, Modal, TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../api/client';
import { operation } from '../../api/manifest';
import { ApiError } from '../../api/request';
import { toast } from '../../api/toast';
import { fieldOfMessage } from '../../components/crud/rules';
import { treeQuery } from '../../components/crud/lookups';
import type { RowDialogProps } from '../types';

interface Approval {
  roleIds: string[];
  deptIds: string[];
}

function Tree({ url, ...props }: { url: string; value?: string[]; onChange?: (v: string[]) => void; 'aria-label': string }) {
  const { data, isLoading } = useQuery(treeQuery(url));
  return (
    <TreeSelect
      multiple
      treeCheckable
      showCheckedStrategy={TreeSelect.SHOW_ALL}
      treeDefaultExpandAll
      loading={isLoading}
      treeData={data ?? []}
      showSearch={{ treeNodeFilterProp: 'title' }}
      {...props}
    />
  );
}

/**
 * 审核通过: the registered newcomer gets roles and organisations and may sign in from now on (the server checks that
 * the caller may give them, and the tenant's account quota).
 */
export default function ApproveDialog({ row, onClose, reload }: RowDialogProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Approval>();
  const [saving, setSaving] = useState(false);

  const save = async () => {
    let values: Approval;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setSaving(true);
    try {
      await apiPost('/api/blade-user/audit-pass', undefined, {
        params: { userIds: String(row.id), roleIds: values.roleIds.join(','), deptIds: values.deptIds.join(',') },
        silent: true,
      });
      toast.success(t('userAdmin.approved', { account: String(row.account) }));
      reload();
      onClose();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const field = fieldOfMessage(e.message, ['roleIds', 'deptIds']) as keyof Approval | undefined;
      if (field) form.setFields([{ name: field, errors: [e.message.replace(field, t(field === 'roleIds' ? 'user.roleId' : 'user.deptId'))] }]);
      else toast.error(e.message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={t('userAdmin.approveTitle', { account: String(row.account) })}
      okText={t('userAdmin.approve')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={() => void save()}
      onCancel={onClose}
      width={480}
    >
      <Alert type="info" showIcon title={t('userAdmin.approveHint', { name: String(row.realName ?? row.account) })} style={{ marginBottom: 12 }} />
      <Form form={form} layout="vertical" requiredMark>
        <Form.Item name="roleIds" label={t('user.roleId')} rules={[{ required: true, message: t('crud.pleaseSelect', { label: t('user.roleId') }) }]}>
          <Tree url={operation('role', 'tree')} aria-label={t('user.roleId')} />
        </Form.Item>
        <Form.Item name="deptIds" label={t('user.deptId')} rules={[{ required: true, message: t('crud.pleaseSelect', { label: t('user.deptId') }) }]}>
          <Tree url={operation('dept', 'tree')} aria-label={t('user.deptId')} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
