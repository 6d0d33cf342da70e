import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Form, Modal, TreeSelect, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../api/client';
import { operation } from '../../api/manifest';
import { toast } from '../../api/toast';
import { treeQuery } from '../crud/lookups';
import { invalidateResource } from '../../data/hooks';
import type { RowDialogProps } from '../../resources/types';
import { parentChoices } from './tree';

const TOP = '0';

/**
 * 机构管理 → 移动到…: an organisation (with its branch) under another parent. The tree select disables the organisation
 * and its own branch; the server refuses them too and keeps the branch's paths (and so data scopes) right.
 */
export default function DeptMove({ row, onClose, reload }: RowDialogProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const tree = useQuery(treeQuery(operation('dept', 'tree')));
  const [parent, setParent] = useState<string | undefined>(row.parentId ? String(row.parentId) : undefined);
  const [saving, setSaving] = useState(false);
  const id = String(row.id);
  const choices = [{ title: t('dept.topLevel'), value: TOP, key: TOP }, ...parentChoices(tree.data, id)];
  const unchanged = parent === undefined || parent === String(row.parentId ?? TOP);

  const save = async () => {
    if (parent === undefined) return;
    setSaving(true);
    try {
      await apiPost('/api/blade-system/dept/deptTransfer', { deptId: id, parentId: parent });
      toast.success(t('dept.moved'));
      await Promise.all([invalidateResource(client, 'dept'), client.invalidateQueries({ queryKey: ['tree'] })]);
      onClose();
      reload();
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={t('dept.moveTitle', { name: String(row.deptName ?? '') })}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      okButtonProps={{ disabled: unchanged }}
      confirmLoading={saving}
      onOk={() => void save()}
      onCancel={onClose}
    >
      <Form layout="vertical">
        <Form.Item label={t('dept.newParent')} extra={t('dept.moveHelp')}>
          <TreeSelect
            data-testid="dept-move-parent"
            showSearch={{ treeNodeFilterProp: 'title' }}
            loading={tree.isLoading}
            treeData={choices}
            value={parent ?? TOP}
            onChange={(v: string) => setParent(v)}
            treeDefaultExpandAll
            styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
          />
        </Form.Item>
      </Form>
      <Typography.Text type="secondary">{t('dept.moveNote')}</Typography.Text>
    </Modal>
  );
}
