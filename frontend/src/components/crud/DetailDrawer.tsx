import { Button, Descriptions, Drawer, Spin } from 'antd';
import { EditOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useOne } from '../../data/hooks';
import type { ResourceConfig, Row } from '../../resources/types';
import { Cell } from './Cell';
import { displayValue, type Lookups } from './lookups';
import { isEmpty } from './values';

/** A row's detail (every column but passwords), completed by the detail call; "edit" for who may. */
export function DetailDrawer({
  config,
  row,
  lookups,
  onClose,
  onEdit,
  revealable,
}: {
  config: ResourceConfig;
  row: Row | null;
  lookups: Lookups;
  onClose: () => void;
  /** Absent: no edit button (no right, or nothing to save with). */
  onEdit?: (row: Row) => void;
  /** Whether the user may reveal secrets (who may edit the row). */
  revealable: boolean;
}) {
  const { t } = useTranslation();
  const detail = useOne(config, row?.id ? String(row.id) : undefined);
  const shown = detail.data ?? row;
  return (
    <Drawer
      open={!!row}
      title={t('crud.detailTitle', { title: t(config.title) })}
      size={config.detailWidth ?? 560}
      onClose={onClose}
      extra={
        shown &&
        onEdit && (
          <Button type="primary" icon={<EditOutlined />} onClick={() => onEdit(shown)}>
            {t('crud.edit')}
          </Button>
        )
      }
    >
      <Spin spinning={detail.isFetching}>
        {shown && (
          <Descriptions
            column={1}
            bordered
            size="small"
            styles={{ label: { width: 160 } }}
            items={config.columns
              .filter((c) => !c.hideInDetail && c.type !== 'password')
              .map((c) => {
                const text = displayValue(c, shown, lookups, t);
                const empty = text === null || text === undefined || (typeof text === 'string' && isEmpty(text));
                return { key: c.prop, label: t(c.label), children: empty ? '-' : <Cell column={c} row={shown} lookups={lookups} revealable={revealable} /> };
              })}
          />
        )}
      </Spin>
    </Drawer>
  );
}
