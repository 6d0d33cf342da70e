import { Button, Checkbox, Popover, Tooltip } from 'antd';
import { SettingOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Column } from '../../resources/types';

/** Per-table column visibility (persisted by the caller). */
export function ColumnSettings({
  columns,
  hidden,
  onChange,
}: {
  columns: Column[];
  hidden: string[];
  onChange: (hidden: string[]) => void;
}) {
  const { t } = useTranslation();
  const visible = columns.filter((c) => !hidden.includes(c.prop)).map((c) => c.prop);
  const content = (
    <div className="column-settings">
      <Checkbox
        indeterminate={visible.length > 0 && visible.length < columns.length}
        checked={visible.length === columns.length}
        onChange={(e) => onChange(e.target.checked ? [] : columns.map((c) => c.prop))}
      >
        {t('crud.allColumns')}
      </Checkbox>
      <Checkbox.Group
        value={visible}
        onChange={(values) => onChange(columns.map((c) => c.prop).filter((p) => !values.includes(p)))}
        options={columns.map((c) => ({ value: c.prop, label: t(c.label) }))}
      />
      <Button size="small" type="link" onClick={() => onChange([])} style={{ padding: 0 }}>
        {t('crud.resetColumns')}
      </Button>
    </div>
  );
  return (
    <Popover content={content} title={t('crud.columns')} trigger="click" placement="bottomRight">
      <Tooltip title={t('crud.columns')}>
        <Button icon={<SettingOutlined />} aria-label={t('crud.columns')} />
      </Tooltip>
    </Popover>
  );
}
