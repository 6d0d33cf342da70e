import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  App,
  Button,
  Card,
  Descriptions,
  Drawer,
  Dropdown,
  Empty,
  Form,
  Grid,
  Input,
  InputNumber,
  Modal,
  Select,
  Space,
  Table,
  Tooltip,
  Typography,
  type TableColumnsType,
} from 'antd';
import { DeleteOutlined, EditOutlined, EyeOutlined, MoreOutlined, PlusOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { toast } from '../../api/toast';
import { adminLevel } from '../../access/access';
import { useSession } from '../../store/session';
import { COUNTRY, SEARCH_PAGE, childPrefix, children, codeFits, detail, levelOf, remove, save, search, type Region, type RegionNode } from './api';

/** One row of the table: a region of the lazy tree (its children once loaded) or of a search's page. */
interface Row {
  code: string;
  name: string;
  parent: string;
  level: number;
  children?: Row[];
}

type Editing = { mode: 'add'; parent: string; parentName: string } | { mode: 'edit'; code: string };

/**
 * 系统管理 → 行政区划: the national list of regions as a tree table that loads one level at a time (the provinces
 * first; a row's children when it is expanded), a search by name and level (a flat, paged list), and for the platform
 * administrator (the only one the server lets change regions) add a child, edit and delete (a region with children is
 * refused by the server).
 */
export default function RegionPage() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const phone = !Grid.useBreakpoint().md;
  const { userInfo } = useSession();
  const writable = adminLevel(userInfo) === 'platform';

  const [kids, setKids] = useState<Record<string, RegionNode[]>>({});
  const [expanded, setExpanded] = useState<string[]>([]);
  const [loading, setLoading] = useState(true);
  const [name, setName] = useState('');
  const [level, setLevel] = useState<number | undefined>();
  const [query, setQuery] = useState<{ name: string; level?: number; current: number } | null>(null);
  const [found, setFound] = useState<{ rows: Row[]; total: number }>({ rows: [], total: 0 });
  const [editing, setEditing] = useState<Editing | null>(null);
  const [viewing, setViewing] = useState<Region | null>(null);

  const load = useCallback(async (parent: string) => {
    const nodes = await children(parent);
    setKids((k) => ({ ...k, [parent]: nodes }));
    return nodes;
  }, []);

  useEffect(() => {
    void children(COUNTRY)
      .then((nodes) => setKids((k) => ({ ...k, [COUNTRY]: nodes })))
      .finally(() => setLoading(false));
  }, []);

  /** Runs a search (null: back to the tree); the effect below answers it. */
  const ask = (next: { name: string; level?: number; current: number } | null) => {
    if (next) setLoading(true);
    setQuery(next);
  };

  useEffect(() => {
    if (!query) return;
    void search(query.name, query.level, query.current)
      .then((page) => {
        const records = (page?.records ?? []) as Region[];
        setFound({
          rows: records.map((r) => ({ code: r.code, name: r.name, parent: r.parentCode ?? COUNTRY, level: r.regionLevel ?? levelOf(r.code) })),
          total: page?.total ?? 0,
        });
      })
      .finally(() => setLoading(false));
  }, [query]);

  const tree = useMemo(() => {
    const rowsOf = (parent: string): Row[] =>
      (kids[parent] ?? []).map((n) => ({
        code: n.id,
        name: n.title,
        parent,
        level: levelOf(n.id),
        // an empty list shows the expand icon; the children load when it is pressed
        children: n.hasChildren ? rowsOf(n.id) : undefined,
      }));
    return rowsOf(COUNTRY);
  }, [kids]);

  /** After a change under `parent`: its children again, and its own level (whether it has children now). */
  const refresh = async (parent: string, grandparent?: string) => {
    if (query) ask({ ...query });
    await load(parent);
    if (grandparent !== undefined) await load(grandparent);
  };
  const parentOf = (code: string): string | undefined => Object.keys(kids).find((p) => kids[p].some((n) => n.id === code));

  const view = async (row: Row) => setViewing((await detail(row.code)) ?? null);

  const confirmDelete = (row: Row) =>
    modal.confirm({
      title: t('crud.deleteConfirm'),
      content: (
        <Typography.Paragraph style={{ marginBottom: 0 }} data-testid="delete-names">
          {t('crud.deleteNames', { title: t('region.title'), names: `${row.name} (${row.code})` })}
        </Typography.Paragraph>
      ),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await remove(row.code);
        } catch {
          return; // the server's refusal (a region with children) has been shown
        }
        toast.success(t('crud.deleted'));
        await refresh(row.parent, row.parent === COUNTRY ? undefined : parentOf(row.parent));
      },
    });

  type Action = { key: string; label: string; icon: ReactNode; danger?: boolean; run: () => void };
  const actions = (row: Row): Action[] => [
    ...(writable && row.level < 5
      ? [{ key: 'add', label: t('crud.addChild'), icon: <PlusOutlined />, run: () => setEditing({ mode: 'add', parent: row.code, parentName: row.name }) }]
      : []),
    ...(writable ? [{ key: 'edit', label: t('crud.edit'), icon: <EditOutlined />, run: () => setEditing({ mode: 'edit', code: row.code }) }] : []),
    { key: 'view', label: t('crud.view'), icon: <EyeOutlined />, run: () => void view(row) },
    ...(writable ? [{ key: 'delete', label: t('crud.delete'), icon: <DeleteOutlined />, danger: true, run: () => confirmDelete(row) }] : []),
  ];

  const columns: TableColumnsType<Row> = [
    { title: t('region.name'), key: 'name', dataIndex: 'name', fixed: phone ? 'left' : undefined, width: phone ? 150 : undefined },
    { title: t('region.code'), key: 'code', dataIndex: 'code', width: 140 },
    { title: t('region.level'), key: 'level', width: 100, render: (_v, row) => t(`region.level${row.level}`) },
    {
      title: t('crud.actions'),
      key: '__actions',
      fixed: phone ? undefined : 'right',
      width: phone ? 64 : writable ? 330 : 90,
      render: (_v, row) => {
        const all = actions(row);
        if (!phone)
          return (
            <Space size={0} wrap={false}>
              {all.map((a) => (
                <Button key={a.key} type="link" size="small" danger={a.danger} icon={a.icon} onClick={a.run}>
                  {a.label}
                </Button>
              ))}
            </Space>
          );
        const [first, ...rest] = all;
        return (
          <Space size={0} wrap={false}>
            <Tooltip title={first.label}>
              <Button type="text" size="small" icon={first.icon} aria-label={first.label} onClick={first.run} />
            </Tooltip>
            {rest.length > 0 && (
              <Dropdown
                trigger={['click']}
                menu={{
                  items: rest.map((a) => ({ key: a.key, label: a.label, icon: a.icon, danger: a.danger })),
                  onClick: ({ key }) => rest.find((a) => a.key === key)?.run(),
                }}
              >
                <Button type="text" size="small" icon={<MoreOutlined />} aria-label={t('tabs.more')} />
              </Dropdown>
            )}
          </Space>
        );
      },
    },
  ];

  const runSearch = () => {
    const text = name.trim();
    ask(text || level ? { name: text, level, current: 1 } : null);
  };
  const reset = () => {
    setName('');
    setLevel(undefined);
    ask(null);
  };

  return (
    <div className="page region-page">
      <Card variant="borderless" className="crud-card" title={t('region.title')}>
        <Space wrap style={{ marginBottom: 12 }} className="region-search">
          <Input
            allowClear
            value={name}
            onChange={(e) => setName(e.target.value)}
            onPressEnter={runSearch}
            placeholder={t('crud.pleaseEnter', { label: t('region.name') })}
            aria-label={t('region.name')}
            style={{ width: 200 }}
            data-testid="region-search-name"
          />
          <Select
            allowClear
            value={level}
            onChange={setLevel}
            placeholder={t('crud.pleaseSelect', { label: t('region.level') })}
            style={{ width: 140 }}
            options={[1, 2, 3, 4, 5].map((l) => ({ value: l, label: t(`region.level${l}`) }))}
            data-testid="region-search-level"
          />
          <Button type="primary" icon={<SearchOutlined />} onClick={runSearch}>
            {t('crud.search')}
          </Button>
          <Button onClick={reset}>{t('crud.reset')}</Button>
        </Space>
        <Space wrap style={{ marginBottom: 12, display: 'flex' }}>
          {writable && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ mode: 'add', parent: COUNTRY, parentName: t('region.country') })}>
              {t('crud.add')}
            </Button>
          )}
          <Button icon={<ReloadOutlined />} aria-label={t('crud.refresh')} onClick={() => void (query ? ask({ ...query }) : load(COUNTRY))} />
        </Space>
        <Table<Row>
          size="middle"
          rowKey="code"
          columns={columns}
          dataSource={query ? found.rows : tree}
          loading={loading}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
          expandable={
            query
              ? { childrenColumnName: '__none' }
              : {
                  expandedRowKeys: expanded,
                  onExpand: (open, row) => {
                    setExpanded((keys) => (open ? [...keys, row.code] : keys.filter((k) => k !== row.code)));
                    if (open && !kids[row.code]) void load(row.code);
                  },
                }
          }
          pagination={
            query
              ? {
                  current: query.current,
                  pageSize: SEARCH_PAGE,
                  total: found.total,
                  showSizeChanger: false,
                  showTotal: (n) => t('crud.total', { count: n }),
                  onChange: (current) => ask({ ...query, current }),
                }
              : false
          }
        />
      </Card>
      {editing && (
        <RegionForm
          editing={editing}
          onClose={() => setEditing(null)}
          onSaved={async (saved) => {
            setEditing(null);
            const parent = saved.parentCode ?? COUNTRY;
            if (editing.mode === 'add' && parent !== COUNTRY) setExpanded((keys) => (keys.includes(parent) ? keys : [...keys, parent]));
            await refresh(parent, parent === COUNTRY ? undefined : parentOf(parent));
          }}
        />
      )}
      <Drawer open={viewing !== null} onClose={() => setViewing(null)} title={t('crud.detailTitle', { title: t('region.title') })} size={phone ? '100%' : 480}>
        {viewing && (
          <Descriptions column={1} bordered size="small" data-testid="region-detail">
            <Descriptions.Item label={t('region.code')}>{viewing.code}</Descriptions.Item>
            <Descriptions.Item label={t('region.name')}>{viewing.name}</Descriptions.Item>
            <Descriptions.Item label={t('region.level')}>{t(`region.level${viewing.regionLevel ?? 0}`)}</Descriptions.Item>
            <Descriptions.Item label={t('region.parent')}>{viewing.parentCode === COUNTRY ? t('region.country') : viewing.parentCode}</Descriptions.Item>
            <Descriptions.Item label={t('region.path')}>
              {[viewing.provinceName, viewing.cityName, viewing.districtName, viewing.townName, viewing.villageName].filter(Boolean).join(' / ')}
            </Descriptions.Item>
            <Descriptions.Item label={t('common.sort')}>{viewing.sort}</Descriptions.Item>
            <Descriptions.Item label={t('common.remark')}>{viewing.remark ?? ''}</Descriptions.Item>
          </Descriptions>
        )}
      </Drawer>
    </div>
  );
}

/** The form of a new region under `parent` or of an existing one (its code and parent are fixed). */
function RegionForm({ editing, onClose, onSaved }: { editing: Editing; onClose: () => void; onSaved: (saved: Region) => Promise<void> }) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const [busy, setBusy] = useState(editing.mode === 'edit');
  const [parent, setParent] = useState(editing.mode === 'add' ? editing.parent : '');
  const [parentName, setParentName] = useState(editing.mode === 'add' ? editing.parentName : '');

  useEffect(() => {
    if (editing.mode === 'add') {
      form.setFieldsValue({ code: childPrefix(editing.parent), sort: 0 });
      return;
    }
    void detail(editing.code)
      .then((row) => {
        if (!row) return;
        form.setFieldsValue({ code: row.code, name: row.name, sort: row.sort, remark: row.remark });
        setParent(row.parentCode ?? COUNTRY);
        setParentName(row.parentCode === COUNTRY ? t('region.country') : (row.parentCode ?? ''));
      })
      .finally(() => setBusy(false));
  }, [editing, form, t]);

  const submit = async () => {
    let values: { code: string; name: string; sort?: number; remark?: string };
    try {
      values = await form.validateFields();
    } catch {
      return; // the form shows what is wrong
    }
    setBusy(true);
    try {
      const body =
        editing.mode === 'add'
          ? { code: values.code, parentCode: editing.parent, name: values.name, sort: values.sort ?? 0, remark: values.remark || null }
          : { id: editing.code, name: values.name, sort: values.sort ?? 0, remark: values.remark || null };
      const saved = await save(body as never);
      if (!saved) return;
      toast.success(t('crud.saved'));
      await onSaved(saved);
    } finally {
      setBusy(false);
    }
  };

  const title = editing.mode === 'add' ? t('crud.addTitle', { title: t('region.title') }) : t('crud.editTitle', { title: t('region.title') });
  return (
    <Modal open title={title} onCancel={onClose} onOk={() => void submit()} confirmLoading={busy} okText={t('common.save')} cancelText={t('common.cancel')} destroyOnHidden>
      <Form form={form} layout="vertical">
        <Form.Item label={t('region.parent')}>
          <Input value={parent === COUNTRY ? t('region.country') : `${parentName} (${parent})`} disabled />
        </Form.Item>
        <Form.Item
          name="code"
          label={t('region.code')}
          extra={editing.mode === 'add' ? t('region.codeHint') : undefined}
          rules={[
            { required: true, message: t('crud.pleaseEnter', { label: t('region.code') }) },
            {
              validator: async (_r, value: string) => {
                if (editing.mode === 'edit' || !value || codeFits(value, parent)) return;
                throw new Error(t('region.codeInvalid', { prefix: childPrefix(parent) || '—' }));
              },
            },
          ]}
        >
          <Input disabled={editing.mode === 'edit'} maxLength={12} inputMode="numeric" />
        </Form.Item>
        <Form.Item
          name="name"
          label={t('region.name')}
          rules={[
            { required: true, whitespace: true, message: t('crud.pleaseEnter', { label: t('region.name') }) },
            { max: 64, message: t('crud.tooLong', { label: t('region.name'), max: 64 }) },
          ]}
        >
          <Input maxLength={64} />
        </Form.Item>
        <Form.Item name="sort" label={t('common.sort')}>
          <InputNumber min={-1_000_000} max={1_000_000} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="remark" label={t('common.remark')} rules={[{ max: 255, message: t('crud.tooLong', { label: t('common.remark'), max: 255 }) }]}>
          <Input.TextArea rows={2} maxLength={255} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
