import type { ReactNode } from 'react';
import { Button, Space, Tooltip } from 'antd';
import { DeleteOutlined, DownloadOutlined, NodeCollapseOutlined, NodeExpandOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Column } from '../../resources/types';
import { ColumnSettings } from './ColumnSettings';

/**
 * The bar over a list: add, delete the selected rows, the page's own buttons (import, export, grant …) and the
 * selection on the left; expand all (trees), refresh, CSV of the page and column settings on the right.
 */
export function CrudToolbar({
  onAdd,
  onDeleteSelected,
  extras,
  selectedCount,
  onClearSelection,
  tree,
  refreshing,
  onRefresh,
  onCsv,
  columns,
  hidden,
  onHiddenChange,
}: {
  /** Absent: no add button (no right or no call). */
  onAdd?: () => void;
  onDeleteSelected?: () => void;
  extras?: ReactNode;
  selectedCount: number;
  onClearSelection: () => void;
  /** A tree table: whether rows are expanded, and the toggle. */
  tree?: { expanded: boolean; onToggle: () => void };
  refreshing: boolean;
  onRefresh: () => void;
  /** The page as CSV (absent when the server exports the list itself). */
  onCsv?: { run: () => void; disabled: boolean };
  columns: Column[];
  hidden: string[];
  onHiddenChange: (hidden: string[]) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="crud-toolbar">
      <Space wrap>
        {onAdd && (
          <Button type="primary" icon={<PlusOutlined />} onClick={onAdd}>
            {t('crud.add')}
          </Button>
        )}
        {onDeleteSelected && (
          <Button danger icon={<DeleteOutlined />} onClick={onDeleteSelected}>
            {t('crud.delete')}
          </Button>
        )}
        {extras}
        {selectedCount > 0 && (
          <span className="crud-selected">
            {t('crud.selected', { count: selectedCount })}
            <Button type="link" size="small" onClick={onClearSelection}>
              {t('crud.clearSelection')}
            </Button>
          </span>
        )}
      </Space>
      <Space>
        {tree && (
          <Tooltip title={tree.expanded ? t('crud.collapseAll') : t('crud.expandAll')}>
            <Button
              icon={tree.expanded ? <NodeCollapseOutlined /> : <NodeExpandOutlined />}
              onClick={tree.onToggle}
              aria-label={tree.expanded ? t('crud.collapseAll') : t('crud.expandAll')}
            />
          </Tooltip>
        )}
        <Tooltip title={t('crud.refresh')}>
          <Button icon={<ReloadOutlined spin={refreshing} />} onClick={onRefresh} aria-label={t('crud.refresh')} />
        </Tooltip>
        {onCsv && (
          <Tooltip title={t('crud.export')}>
            <Button icon={<DownloadOutlined />} onClick={onCsv.run} disabled={onCsv.disabled} aria-label={t('crud.export')} />
          </Tooltip>
        )}
        <ColumnSettings columns={columns} hidden={hidden} onChange={onHiddenChange} />
      </Space>
    </div>
  );
}
