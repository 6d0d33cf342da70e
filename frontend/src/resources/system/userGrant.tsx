import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Empty, Modal, Spin, Tree } from 'antd';
import { TeamOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { apiGet, apiPost } from '../../api/client';
import type { TreeNode } from '../../api/types';
import { toast } from '../../api/toast';
import { useAccess } from '../../access/useAccess';
import type { Row, ToolbarExtraProps } from '../types';

function rolesOf(rows: Row[]): string[] {
  // one user: their roles to start from; several: none (the dialog replaces every selected user's roles)
  return rows.length === 1 ? String(rows[0].roleId ?? '').split(',').filter(Boolean) : [];
}

function GrantRolesDialog({ rows, onClose, onDone }: { rows: Row[]; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const tree = useQuery({ queryKey: ['user', 'grant', 'roles'], queryFn: () => apiGet('/api/blade-system/role/tree'), staleTime: 0, gcTime: 0 });
  const [checked, setChecked] = useState<string[]>(() => rolesOf(rows));
  const [saving, setSaving] = useState(false);

  const save = async () => {
    if (checked.length === 0) {
      toast.warning(t('userAdmin.grantNone'));
      return;
    }
    setSaving(true);
    try {
      await apiPost('/api/blade-user/grant', undefined, {
        params: { userIds: rows.map((r) => String(r.id)).join(','), roleIds: checked.join(',') },
      });
      toast.success(t('userAdmin.granted'));
      onDone();
    } catch {
      // the request wrapper showed the server's message
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={t('userAdmin.grant')}
      width={480}
      onCancel={onClose}
      onOk={() => void save()}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
    >
      <Alert type="info" showIcon title={t('userAdmin.grantHint', { count: rows.length })} style={{ marginBottom: 12 }} />
      <Spin spinning={tree.isLoading}>
        <div className="grant-tree" aria-label={t('userAdmin.grant')}>
          {(tree.data ?? []).length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
          ) : (
            <Tree<TreeNode>
              checkable
              checkStrictly
              defaultExpandAll
              treeData={tree.data ?? undefined}
              checkedKeys={checked}
              onCheck={(value) => setChecked((Array.isArray(value) ? value : value.checked).map(String))}
            />
          )}
        </div>
      </Spin>
    </Modal>
  );
}

/** 授权角色: replace the roles of the selected users (all or none; the server refuses roles the caller may not give). */
export function GrantRoles({ selectedRows, reload, clearSelection }: ToolbarExtraProps) {
  const { t } = useTranslation();
  const { can } = useAccess();
  const [open, setOpen] = useState(false);
  if (!can('user_edit')) return null;
  const start = () => {
    if (selectedRows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    setOpen(true);
  };
  return (
    <>
      <Button icon={<TeamOutlined />} onClick={start}>
        {t('userAdmin.grant')}
      </Button>
      {open && (
        <GrantRolesDialog
          rows={selectedRows}
          onClose={() => setOpen(false)}
          onDone={() => {
            setOpen(false);
            clearSelection();
            reload();
          }}
        />
      )}
    </>
  );
}
