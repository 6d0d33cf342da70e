import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Empty, Modal, Spin, Tabs, Tree } from 'antd';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { TreeNode } from '../api/types';
import { toast } from '../api/toast';
import { useAccess } from '../access/useAccess';
import type { Row, ToolbarExtraProps } from '../resources/types';
import { initialGrant, withAncestors, type GrantSpec } from './grant';

function GrantDialog({ spec, rows, onClose }: { spec: GrantSpec; rows: Row[]; onClose: () => void }) {
  const { t } = useTranslation();
  const ids = rows.map((r) => String(r.id));
  const trees = useQuery({ queryKey: ['grant', spec.label, 'trees'], queryFn: spec.loadTrees, staleTime: 0, gcTime: 0 });
  const keys = useQuery({ queryKey: ['grant', spec.label, 'keys', ids], queryFn: () => spec.loadKeys(ids), staleTime: 0, gcTime: 0 });
  const [edited, setEdited] = useState<Record<string, string[]> | null>(null);
  const [saving, setSaving] = useState(false);
  const ready = !!trees.data && !!keys.data;
  const checked = edited ?? (ready ? initialGrant(spec.sections, trees.data, keys.data) : {});

  const save = async () => {
    if (!ready) return;
    setSaving(true);
    try {
      const payload: Record<string, string[]> = {};
      // parents of granted items are granted too (a menu needs its ancestors)
      for (const s of spec.sections) payload[s.key] = withAncestors(checked[s.key] ?? [], trees.data?.[s.key]);
      await spec.save(ids, payload);
      toast.success(t('crud.saved'));
      onClose();
    } catch {
      // the request wrapper showed the server's message
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      title={t(spec.label)}
      width={560}
      onCancel={onClose}
      onOk={() => void save()}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      okButtonProps={{ disabled: !ready }}
      confirmLoading={saving}
    >
      <Spin spinning={trees.isLoading || keys.isLoading}>
        <Tabs
          items={spec.sections.map((s) => ({
            key: s.key,
            label: t(s.label),
            children: (
              <div className="grant-tree">
                {(trees.data?.[s.key] ?? []).length === 0 ? (
                  <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
                ) : (
                  <Tree<TreeNode>
                    checkable
                    defaultExpandAll
                    treeData={trees.data?.[s.key]}
                    checkedKeys={checked[s.key] ?? []}
                    onCheck={(value) => {
                      const list = Array.isArray(value) ? value : value.checked;
                      setEdited({ ...checked, [s.key]: list.map(String) });
                    }}
                  />
                )}
              </div>
            ),
          }))}
        />
      </Spin>
    </Modal>
  );
}

/** A toolbar button that opens a grant dialog (menus, data scopes, API scopes) for the selected rows. */
export function GrantButton({ spec, selectedRows }: ToolbarExtraProps & { spec: GrantSpec }) {
  const { t } = useTranslation();
  const { can } = useAccess();
  const [open, setOpen] = useState(false);
  if (!can(spec.permission)) return null;
  const start = () => {
    if (selectedRows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    if (!spec.multiple && selectedRows.length > 1) {
      toast.warning(t('crud.selectOnlyOne'));
      return;
    }
    setOpen(true);
  };
  return (
    <>
      <Button icon={<SafetyCertificateOutlined />} onClick={start}>
        {t(spec.label)}
      </Button>
      {open && <GrantDialog spec={spec} rows={selectedRows} onClose={() => setOpen(false)} />}
    </>
  );
}
