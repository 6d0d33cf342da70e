import { useState } from 'react';
import { Button, Col, Form, Row as GridRow, Space } from 'antd';
import { DownOutlined, SearchOutlined, UndoOutlined, UpOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Column } from '../../resources/types';
import { FieldInput } from './fields';
import { buildSearchParams, type Values } from './values';

/**
 * The search form over a list: the first fields (three, two when compact), the others behind "expand". It answers
 * the query parameters of the search (`buildSearchParams`): empty ones dropped, ranges as `_dategt` / `_datelt`.
 */
export function SearchForm({
  columns,
  compact = false,
  onSearch,
}: {
  columns: Column[];
  compact?: boolean;
  onSearch: (params: Record<string, string>) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const [open, setOpen] = useState(false);
  if (columns.length === 0) return null;
  const first = compact ? 2 : 3;
  const visible = open ? columns : columns.slice(0, first);
  return (
    <Form form={form} className="crud-search" layout="inline" onFinish={(values) => onSearch(buildSearchParams(values, columns))}>
      <GridRow gutter={[12, 12]} style={{ width: '100%' }}>
        {visible.map((c) => (
          <Col key={c.prop} xs={24} sm={12} lg={compact ? 12 : 8} xl={compact ? 12 : c.searchRange ? 8 : 6}>
            <Form.Item name={c.prop} label={t(c.label)} style={{ width: '100%', marginInlineEnd: 0 }}>
              <FieldInput column={c} search />
            </Form.Item>
          </Col>
        ))}
        <Col flex="auto" className="crud-search-actions">
          <Space>
            <Button type="primary" htmlType="submit" icon={<SearchOutlined />}>
              {t('crud.search')}
            </Button>
            <Button
              icon={<UndoOutlined />}
              onClick={() => {
                form.resetFields();
                onSearch({});
              }}
            >
              {t('crud.reset')}
            </Button>
            {columns.length > first && (
              <Button type="link" onClick={() => setOpen((o) => !o)}>
                {open ? t('crud.collapse') : t('crud.expand')} {open ? <UpOutlined /> : <DownOutlined />}
              </Button>
            )}
          </Space>
        </Col>
      </GridRow>
    </Form>
  );
}
