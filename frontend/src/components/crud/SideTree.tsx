import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Grid, Input, Spin, Tree } from 'antd';
import { ApartmentOutlined, DownOutlined, SearchOutlined, UpOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { TreeNode } from '../../api/types';
import { treeQuery } from './lookups';

function filterTree(nodes: TreeNode[], q: string): TreeNode[] {
  if (!q) return nodes;
  const out: TreeNode[] = [];
  for (const n of nodes) {
    const children = n.children ? filterTree(n.children, q) : [];
    if (n.title.toLowerCase().includes(q) || children.length) out.push({ ...n, children });
  }
  return out;
}

function findTitle(nodes: TreeNode[], id: string): string | undefined {
  for (const n of nodes) {
    if (n.key === id || n.id === id) return n.title;
    const below = n.children ? findTitle(n.children, id) : undefined;
    if (below) return below;
  }
  return undefined;
}

/** Filter tree beside a list (e.g. the organisation tree of the user list); on a phone, above it behind a button. */
export function SideTree({
  url,
  title,
  value,
  onChange,
}: {
  url: string;
  title: string;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
}) {
  const { t } = useTranslation();
  const { data, isLoading } = useQuery(treeQuery(url));
  const [q, setQ] = useState('');
  const nodes = filterTree(data ?? [], q.trim().toLowerCase());
  const phone = !Grid.useBreakpoint().md;
  const [shown, setShown] = useState(false);
  const selectedTitle = value ? findTitle(data ?? [], value) : undefined;
  if (phone && !shown)
    return (
      <Button className="side-tree-toggle" icon={<ApartmentOutlined />} onClick={() => setShown(true)} aria-expanded={false}>
        {t(title)}
        {selectedTitle ? `: ${selectedTitle}` : ''} <DownOutlined />
      </Button>
    );
  return (
    <Card
      extra={
        phone ? (
          <Button type="text" size="small" icon={<UpOutlined />} aria-label={t('common.close')} onClick={() => setShown(false)} />
        ) : undefined
      } className="side-tree" title={t(title)} size="small" variant="borderless">
      <Input
        size="small"
        allowClear
        prefix={<SearchOutlined />}
        placeholder={t('crud.filterTree')}
        value={q}
        onChange={(e) => setQ(e.target.value)}
        style={{ marginBottom: 8 }}
      />
      {isLoading ? (
        <Spin />
      ) : nodes.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
      ) : (
        <Tree<TreeNode>
          blockNode
          defaultExpandAll
          treeData={nodes}
          selectedKeys={value ? [value] : []}
          onSelect={(keys) => {
            onChange(keys.length ? String(keys[0]) : undefined);
            if (phone) setShown(false); // the list it filters comes back into view
          }}
        />
      )}
    </Card>
  );
}
