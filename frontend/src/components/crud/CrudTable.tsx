import type { Key, ReactNode } from 'react';
import { Button, Dropdown, Empty, Grid, Space, Table, Tooltip, type TableColumnsType } from 'antd';
import { MoreOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { website } from '../../config/website';
import type { Column, ResourceConfig, Row } from '../../resources/types';
import { Cell } from './Cell';
import type { Lookups } from './lookups';

/** A button of a row's actions column. */
export interface RowButton {
  key: string;
  label: string;
  icon: ReactNode;
  onClick: () => void;
  danger?: boolean;
}

export interface Paging {
  current: number;
  size: number;
}

/** Row buttons must not also trigger the row's own click (master/detail selection). */
function stop(fn: () => void) {
  return (e: { stopPropagation: () => void }) => {
    e.stopPropagation();
    fn();
  };
}

/**
 * The table of a list: an index (not for trees), the visible columns (cells as `Cell` shows them), the row buttons
 * (icon-only when compact), selection, paging of a paged list, and a tree's expanded rows.
 */
export function CrudTable({
  config,
  columns,
  rows,
  total,
  loading,
  page,
  onPage,
  selectedKeys,
  onSelect,
  buttons,
  buttonCount,
  compact = false,
  lookups,
  revealable,
  activeRowId,
  onRowClick,
  expandedKeys,
  onExpand,
}: {
  config: Pick<ResourceConfig, 'tree' | 'paged'>;
  columns: Column[];
  rows: Row[];
  total: number;
  loading: boolean;
  page: Paging;
  onPage: (page: Paging) => void;
  selectedKeys: Key[];
  onSelect: (keys: Key[], rows: Row[]) => void;
  /** The buttons of a row. */
  buttons: (row: Row) => RowButton[];
  /** The most buttons a row has (the column's width), 0 for no actions column. */
  buttonCount: number;
  compact?: boolean;
  lookups: Lookups;
  revealable: boolean;
  activeRowId?: string;
  onRowClick?: (row: Row) => void;
  expandedKeys?: Key[];
  onExpand?: (keys: Key[]) => void;
}) {
  const { t } = useTranslation();
  // a phone: the name column stays in view (pinned left) and a row shows its first action and 更多 for the rest
  const phone = !Grid.useBreakpoint().md;
  const button = (b: RowButton) =>
    compact ? (
      <Tooltip key={b.key} title={b.label}>
        <Button type="text" size="small" danger={b.danger} icon={b.icon} aria-label={b.label} onClick={stop(b.onClick)} />
      </Tooltip>
    ) : (
      <Button key={b.key} type="link" size="small" danger={b.danger} icon={b.icon} onClick={stop(b.onClick)}>
        {b.label}
      </Button>
    );

  const tableColumns: TableColumnsType<Row> = [
    // tree tables carry their expand icon in the first column instead of an index; a phone has no room for one
    ...(config.tree || phone
      ? []
      : [
          {
            title: '#',
            key: '__index',
            width: 56,
            align: 'center' as const,
            render: (_v: unknown, _row: Row, index: number) => (config.paged ? (page.current - 1) * page.size : 0) + index + 1,
          },
        ]),
    ...columns.map((c, i) => ({
      title: t(c.label),
      fixed: phone && i === 0 ? ('left' as const) : undefined,
      key: c.prop,
      dataIndex: c.prop,
      width: c.width ?? (c.type === 'textarea' ? 240 : undefined),
      ellipsis: c.ellipsis || c.type === 'textarea' ? { showTitle: true } : undefined,
      render: (_: unknown, row: Row) => <Cell column={c} row={row} lookups={lookups} revealable={revealable} />,
    })),
  ];
  if (buttonCount > 0 && phone) {
    tableColumns.push({
      title: t('crud.actions'),
      key: '__actions',
      width: buttonCount > 1 ? 64 : 40,
      render: (_v, row) => {
        const [first, ...rest] = buttons(row);
        return (
          <Space size={0} wrap={false}>
            {first && button({ ...first })}
            {rest.length > 0 && (
              <Dropdown
                trigger={['click']}
                menu={{
                  items: rest.map((b) => ({ key: b.key, label: b.label, icon: b.icon, danger: b.danger })),
                  onClick: ({ key, domEvent }) => {
                    domEvent.stopPropagation();
                    rest.find((b) => b.key === key)?.onClick();
                  },
                }}
              >
                <Button type="text" size="small" icon={<MoreOutlined />} aria-label={t('tabs.more')} onClick={(e) => e.stopPropagation()} />
              </Dropdown>
            )}
          </Space>
        );
      },
    });
  } else if (buttonCount > 0) {
    tableColumns.push({
      title: t('crud.actions'),
      key: '__actions',
      fixed: 'right',
      width: compact ? buttonCount * 28 + 24 : buttonCount * 72 + 16,
      render: (_v, row) => (
        <Space size={0} wrap={false}>
          {buttons(row).map(button)}
        </Space>
      ),
    });
  }

  return (
    <Table<Row>
      size="middle"
      rowKey={(r) => String(r.id)}
      columns={tableColumns}
      dataSource={rows}
      loading={loading}
      scroll={{ x: 'max-content' }}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
      rowSelection={{ selectedRowKeys: selectedKeys, onChange: onSelect, checkStrictly: true, fixed: phone ? 'left' : undefined }}
      rowClassName={(r) => (activeRowId && String(r.id) === activeRowId ? 'crud-row-active' : '')}
      onRow={onRowClick ? (r) => ({ onClick: () => onRowClick(r), style: { cursor: 'pointer' } }) : undefined}
      expandable={config.tree && onExpand ? { expandedRowKeys: expandedKeys, onExpandedRowsChange: (keys) => onExpand([...keys]) } : undefined}
      pagination={
        config.paged
          ? {
              current: page.current,
              pageSize: page.size,
              total,
              showSizeChanger: true,
              showQuickJumper: true,
              pageSizeOptions: website.pageSizes.map(String),
              showTotal: (n) => t('crud.total', { count: n }),
              onChange: (current, size) => onPage({ current: size !== page.size ? 1 : current, size }),
            }
          : false
      }
    />
  );
}
