import { useState, type ReactNode } from 'react';
import { Button, Space, Tooltip } from 'antd';
import { EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Column, Row } from '../../resources/types';
import { DictTag } from '../DictSelect';
import { displayValue, type Lookups } from './lookups';
import { isSecretCell, MASK } from './secret';

/** A secret's ••••, with an eye button that shows it to a user who may edit it (see `Column.secret`). */
export function SecretValue({ value, revealable }: { value: ReactNode; revealable: boolean }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  if (value === '' || value === null || value === undefined) return null;
  const label = t(shown ? 'crud.hideSecret' : 'crud.showSecret');
  return (
    <Space size={4} className="crud-secret">
      <span data-testid="secret-value">{shown ? value : MASK}</span>
      {revealable && (
        <Tooltip title={label}>
          <Button
            type="text"
            size="small"
            aria-label={label}
            icon={shown ? <EyeInvisibleOutlined /> : <EyeOutlined />}
            onClick={(e) => {
              e.stopPropagation();
              setShown((s) => !s);
            }}
          />
        </Tooltip>
      )}
    </Space>
  );
}

/** A cell of the table or a row of the detail: a dictionary tag, a secret, or the column's text. */
export function Cell({ column: c, row, lookups, revealable }: { column: Column; row: Row; lookups: Lookups; revealable: boolean }) {
  const { t } = useTranslation();
  if (isSecretCell(c, row)) return <SecretValue value={displayValue(c, row, lookups, t)} revealable={revealable} />;
  if (c.type === 'dict' && !c.multiple && !c.displayProp && !c.format && c.dictCode)
    return <DictTag code={c.dictCode} biz={c.dictBiz} value={row[c.prop]} />;
  return <>{displayValue(c, row, lookups, t)}</>;
}
