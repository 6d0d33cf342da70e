import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, List, Modal, Space, Typography } from 'antd';
import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { action } from '../../api/manifest';
import { get, post } from '../../api/request';
import { toast } from '../../api/toast';
import { invalidateResource } from '../../data/hooks';
import type { Row, RowDialogProps } from '../../resources/types';
import { moved } from './tree';

interface Sibling {
  id: string;
  deptName: string;
}

/**
 * 机构管理 → 同级排序: the organisations of the row's parent (the row among them; the top level for a row without id)
 * put in order with the arrows; saved as one call (orgSort), which gives them sort 1, 2, ... in that order.
 */
export default function DeptSort({ row, onClose, reload }: RowDialogProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const parentId = String(row.parentId ?? '0');
  const siblings = useQuery({
    queryKey: ['dept-siblings', parentId],
    queryFn: async () => {
      const page = await get<{ records: Row[] }>(action('dept', 'page_list'), { parentId_equal: parentId, size: 1000 });
      return page.records.map((r) => ({ id: String(r.id), deptName: String(r.deptName ?? '') }));
    },
    staleTime: 0,
  });
  const [order, setOrder] = useState<Sibling[] | null>(null);
  const [saving, setSaving] = useState(false);
  const rows = order ?? siblings.data ?? [];

  const save = async () => {
    setSaving(true);
    try {
      await post(action('dept', 'org_sort'), { ids: rows.map((r) => r.id) });
      toast.success(t('dept.sorted'));
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
      title={row.id ? t('dept.sortTitle', { name: String(row.deptName ?? '') }) : t('dept.sortTopTitle')}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      okButtonProps={{ disabled: order === null }}
      confirmLoading={saving}
      onOk={() => void save()}
      onCancel={onClose}
    >
      <Typography.Paragraph type="secondary">{t('dept.sortHelp')}</Typography.Paragraph>
      <List
        data-testid="dept-sort-list"
        size="small"
        bordered
        loading={siblings.isLoading}
        dataSource={rows}
        renderItem={(item, index) => (
          <List.Item
            data-testid="dept-sort-item"
            style={item.id === String(row.id) ? { background: 'var(--ant-color-primary-bg, #e6f4ff)' } : undefined}
            actions={[
              <Space key="move" size={4}>
                <Button
                  size="small"
                  icon={<ArrowUpOutlined />}
                  aria-label={t('dept.up')}
                  disabled={index === 0}
                  onClick={() => setOrder(moved(rows, index, -1))}
                />
                <Button
                  size="small"
                  icon={<ArrowDownOutlined />}
                  aria-label={t('dept.down')}
                  disabled={index === rows.length - 1}
                  onClick={() => setOrder(moved(rows, index, 1))}
                />
              </Space>,
            ]}
          >
            <Typography.Text>
              {index + 1}. {item.deptName}
            </Typography.Text>
          </List.Item>
        )}
      />
    </Modal>
  );
}
