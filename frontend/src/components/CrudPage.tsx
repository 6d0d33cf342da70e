import { Fragment, useEffect, useMemo, useState, type Key, type ReactNode } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Col,
  Descriptions,
  Drawer,
  Empty,
  Form,
  Modal,
  Row as GridRow,
  Space,
  Spin,
  Table,
  Tooltip,
  type TableColumnsType,
} from 'antd';
import {
  DeleteOutlined,
  DownloadOutlined,
  DownOutlined,
  EditOutlined,
  EyeOutlined,
  NodeExpandOutlined,
  NodeCollapseOutlined,
  PlusOutlined,
  ReloadOutlined,
  SearchOutlined,
  SyncOutlined,
  UndoOutlined,
  UpOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, get, post, request, type Params } from '../api/request';
import { toast } from '../api/toast';
import { website } from '../config/website';
import type { Column, ResourceConfig, Row, RowAction } from '../resources/types';
import { getStore, setStore } from '../store/storage';
import { usePermissions } from '../app/useMenu';
import { ColumnSettings } from './crud/ColumnSettings';
import { ConfirmField, FieldInput, FormField } from './crud/fields';
import { displayText, displayValue, useColumnLookups } from './crud/lookups';
import { fieldOfMessage, messageForField } from './crud/rules';
import { saveFile } from './crud/saveFile';
import { SideTree } from './crud/SideTree';
import { ExportButton, ImportButton } from './crud/Transfer';
import { DictTag } from './DictSelect';
import {
  availableActions,
  buildSearchParams,
  initialValues,
  normalizeList,
  parentKeys,
  searchFields,
  toCsv,
  toFormValues,
  toPayload,
  type Values,
} from './crud/values';

export interface CrudPageProps {
  config: ResourceConfig;
  /** Parameters always sent with `list` (e.g. the parent of a dictionary's children). */
  fixedParams?: Params;
  /** Values of every new record (e.g. parentId and code of a dictionary's children). */
  fixedValues?: Row;
  /** Makes rows clickable (master/detail layouts). */
  onRowClick?: (row: Row) => void;
  activeRowId?: string;
  /** Shown instead of the table when the list cannot be loaded yet. */
  placeholder?: ReactNode;
  title?: ReactNode;
  /** Icon-only row actions and a shorter search form, for side-by-side layouts. */
  compact?: boolean;
}

type Mode = 'create' | 'edit' | 'child';

function downloadCsv(name: string, csv: string) {
  saveFile(new Blob([csv], { type: 'text/csv;charset=utf-8' }), name);
}

/** Row buttons must not also trigger the row's own click (master/detail selection). */
function stop(fn: () => void) {
  return (e: { stopPropagation: () => void }) => {
    e.stopPropagation();
    fn();
  };
}

function flattenRows(rows: Row[]): Row[] {
  return rows.flatMap((r) => [r, ...flattenRows((r.children as Row[] | undefined) ?? [])]);
}

/** One schema-driven list page: search, table, edit form (modal) and detail (drawer) from one column list. */
export function CrudPage({ config, fixedParams, fixedValues, onRowClick, activeRowId, placeholder, title, compact = false }: CrudPageProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const permissions = usePermissions();
  // a read-only resource (no submit/remove call) shows no add, edit or delete, whatever the user's buttons
  const callable: Record<string, boolean> = availableActions(config);
  const can = (op: string) => (callable[op] ?? true) && permissions.has(`${config.code}_${op}`);
  const [searchForm] = Form.useForm<Values>();
  const [editForm] = Form.useForm<Values>();

  const [search, setSearch] = useState<Record<string, string>>({});
  const [page, setPage] = useState<{ current: number; size: number }>({ current: 1, size: website.defaultPageSize });
  const [sideValue, setSideValue] = useState<string | undefined>();
  const [selected, setSelected] = useState<{ keys: Key[]; rows: Row[] }>({ keys: [], rows: [] });
  const [editing, setEditing] = useState<{ mode: Mode; row: Row | null } | null>(null);
  const [saving, setSaving] = useState(false);
  const [viewing, setViewing] = useState<Row | null>(null);
  const [searchOpen, setSearchOpen] = useState(false);
  const columnsKey = `columns-${config.code}`;
  const [hidden, setHidden] = useState<string[]>(() => getStore<string[]>(columnsKey) ?? []);
  const [expanded, setExpanded] = useState<Key[] | null>(null);

  const columns = config.columns;
  const transfer = config.transfer ?? {};
  const lookups = useColumnLookups(columns, t);
  const searchColumns = searchFields(columns);
  const tableColumns = columns.filter((c) => !c.hideInTable && c.type !== 'password');
  const formColumns = columns.filter((c) => !c.hideInForm);

  // what the list is filtered by: the export sends the same
  const filters: Params = {
    ...config.listParams,
    ...fixedParams,
    ...search,
    ...(config.sideTree && sideValue ? { [config.sideTree.param]: sideValue } : {}),
  };
  const params: Params = { ...filters, ...(config.paged ? { current: page.current, size: page.size } : {}) };
  const enabled = !placeholder;
  const list = useQuery({
    queryKey: ['crud', config.code, config.api.list, params],
    queryFn: () =>
      config.listMethod === 'POST' ? post<unknown>(config.api.list, undefined, { params }) : get<unknown>(config.api.list, params),
    placeholderData: keepPreviousData,
    enabled,
  });
  const { rows, total } = useMemo(() => normalizeList(list.data), [list.data]);
  const allParentKeys = useMemo(() => (config.tree ? parentKeys(rows) : []), [config.tree, rows]);
  // Tree tables open their first level by default.
  const expandedKeys = expanded ?? rows.filter((r) => r.children).map((r) => String(r.id));

  const reload = () => {
    void queryClient.invalidateQueries({ queryKey: ['crud', config.code] });
    // lists of other resources may show these rows in trees and selects
    void queryClient.invalidateQueries({ queryKey: ['tree'] });
    void queryClient.invalidateQueries({ queryKey: ['options'] });
  };

  const saveHidden = (next: string[]) => {
    setHidden(next);
    setStore(columnsKey, next);
  };

  // ---- search ------------------------------------------------------------------------------

  const runSearch = (values: Values) => {
    setSearch(buildSearchParams(values, searchColumns));
    setPage((p) => ({ ...p, current: 1 }));
  };
  const resetSearch = () => {
    searchForm.resetFields();
    setSearch({});
    setPage((p) => ({ ...p, current: 1 }));
  };

  // ---- create / edit -----------------------------------------------------------------------

  const detail = useQuery({
    queryKey: ['crud', config.code, 'detail', editing?.mode === 'edit' ? editing.row?.id : viewing?.id],
    queryFn: () => get<Row>(config.api.detail, { id: (editing?.mode === 'edit' ? editing.row?.id : viewing?.id) ?? '' }),
    enabled: (editing?.mode === 'edit' && !!editing.row?.id) || !!viewing?.id,
    staleTime: 0,
  });

  const openCreate = (parent?: Row) => {
    if (config.editRoute && !parent) {
      void navigate(config.editRoute);
      return;
    }
    const defaults: Row = { ...fixedValues, ...(parent ? (config.childDefaults?.(parent) ?? { parentId: parent.id }) : {}) };
    editForm.resetFields();
    editForm.setFieldsValue(initialValues(formColumns, defaults));
    setEditing({ mode: parent ? 'child' : 'create', row: null });
  };

  const openEdit = (row: Row) => {
    if (config.editRoute) {
      void navigate(`${config.editRoute}?id=${encodeURIComponent(String(row.id))}`);
      return;
    }
    editForm.resetFields();
    editForm.setFieldsValue(toFormValues(row, formColumns));
    setEditing({ mode: 'edit', row });
  };

  // Once the detail arrives, the form shows the complete record.
  const editingId = editing?.mode === 'edit' ? editing.row?.id : undefined;
  useEffect(() => {
    if (editingId && detail.data && String(detail.data.id) === String(editingId)) {
      editForm.setFieldsValue(toFormValues(detail.data, config.columns.filter((c) => !c.hideInForm)));
    }
  }, [editingId, detail.data, editForm, config.columns]);

  // the fields of the open form (a read-only one is not asked on create, a create-only one not on edit)
  const shownFormColumns = formColumns
    .filter((c) => !(c.readOnly && editing?.mode !== 'edit'))
    .filter((c) => !(c.addOnly && editing?.mode === 'edit'));

  /**
   * A refusal (400) that names a field of the form ("carNo 长度不能超过 64") also shows under that field, with the
   * field's label, until it is changed; the request wrapper has toasted it.
   */
  const showRefusal = (e: unknown) => {
    if (!(e instanceof ApiError) || e.code !== 400) return;
    const prop = fieldOfMessage(
      e.message,
      shownFormColumns.filter((c) => !c.readOnly).map((c) => c.prop),
    );
    const column = shownFormColumns.find((c) => c.prop === prop);
    if (!prop || !column) return;
    editForm.setFields([{ name: prop, errors: [messageForField(e.message, prop, t(column.label))] }]);
    editForm.scrollToField(prop, { block: 'center' });
  };

  const submit = async () => {
    if (!editing) return;
    let values: Values;
    try {
      values = await editForm.validateFields();
    } catch {
      return; // the form shows what is missing
    }
    const url = editing.mode === 'edit' ? config.api.submit : (config.api.create ?? config.api.submit);
    if (!url) return;
    const base = editing.mode === 'edit' ? { ...(detail.data ?? editing.row) } : null;
    const payload = toPayload(values, formColumns, base);
    if (editing.mode !== 'edit' && fixedValues) {
      for (const [k, v] of Object.entries(fixedValues)) if (payload[k] === undefined) payload[k] = v;
    }
    setSaving(true);
    try {
      await post(url, payload);
      toast.success(t(editing.mode === 'edit' ? 'crud.updated' : 'crud.added'));
      setEditing(null);
      reload();
    } catch (e) {
      // a toast shows the server's message; the form stays open for a correction, the field named marked
      showRefusal(e);
    } finally {
      setSaving(false);
    }
  };

  // ---- delete ------------------------------------------------------------------------------

  const remove = (ids: string[]) => {
    const url = config.api.remove;
    if (!url) return;
    if (ids.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    modal.confirm({
      title: t('crud.deleteConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        await request(url, { method: 'POST', params: { ids: ids.join(',') } });
        toast.success(t('crud.deleted'));
        setSelected({ keys: [], rows: [] });
        reload();
      },
    });
  };

  const runRowAction = (a: RowAction, row: Row) => {
    modal.confirm({
      title: t(a.confirm, row as Record<string, unknown>),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: a.danger ?? false },
      onOk: async () => {
        const answer = await request<{ data?: unknown }>(a.path, { method: 'POST', params: a.params(row) });
        toast.success(t(a.done));
        if (a.result) modal.info({ title: t(a.done), content: a.result(answer.data, row), okText: t('common.confirm') });
        reload();
      },
    });
  };

  // ---- export ------------------------------------------------------------------------------

  const visibleColumns = tableColumns.filter((c) => !hidden.includes(c.prop));
  const exportCsv = () => {
    const all = flattenRows(rows);
    const csv = toCsv(
      visibleColumns.map((c) => t(c.label)),
      all.map((r) => visibleColumns.map((c) => displayText(c, r, lookups, t))),
    );
    downloadCsv(`${config.code}-${new Date().toISOString().slice(0, 10)}.csv`, csv);
  };

  // ---- table -------------------------------------------------------------------------------

  const cell = (c: Column, row: Row): ReactNode => {
    if (c.type === 'dict' && !c.multiple && !c.displayProp && !c.format && c.dictCode)
      return <DictTag code={c.dictCode} biz={c.dictBiz} value={row[c.prop]} />;
    return displayValue(c, row, lookups, t);
  };

  const action = (key: string, label: string, icon: ReactNode, onClick: () => void, danger = false) =>
    compact ? (
      <Tooltip key={key} title={label}>
        <Button type="text" size="small" danger={danger} icon={icon} aria-label={label} onClick={stop(onClick)} />
      </Tooltip>
    ) : (
      <Button key={key} type="link" size="small" danger={danger} icon={icon} onClick={stop(onClick)}>
        {label}
      </Button>
    );
  const rowActions = (row: Row) => (
    <Space size={0} wrap={false}>
      {can('view') && action('view', t('crud.view'), <EyeOutlined />, () => setViewing(row))}
      {can('edit') && action('edit', t('crud.edit'), <EditOutlined />, () => openEdit(row))}
      {config.tree && can('add') && action('child', t('crud.addChild'), <PlusOutlined />, () => openCreate(row))}
      {can('delete') && action('delete', t('crud.delete'), <DeleteOutlined />, () => remove([String(row.id)]), true)}
      {(config.rowActions ?? [])
        .filter((a) => permissions.has(`${config.code}_${a.permission}`) && (a.when?.(row) ?? true))
        .map((a) => action(a.key, t(a.label), <SyncOutlined />, () => runRowAction(a, row), a.danger ?? false))}
    </Space>
  );
  const actionCount =
    ['view', 'edit', 'delete'].filter(can).length +
    (config.tree && can('add') ? 1 : 0) +
    (config.rowActions ?? []).filter((a) => permissions.has(`${config.code}_${a.permission}`)).length;

  const tableCols: TableColumnsType<Row> = [
    // tree tables carry their expand icon in the first column instead of an index
    ...(config.tree
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
    ...visibleColumns.map((c) => ({
      title: t(c.label),
      key: c.prop,
      dataIndex: c.prop,
      width: c.width ?? (c.type === 'textarea' ? 240 : undefined),
      ellipsis: c.ellipsis || c.type === 'textarea' ? { showTitle: true } : undefined,
      render: (_: unknown, row: Row) => cell(c, row),
    })),
  ];
  if (actionCount > 0) {
    tableCols.push({
      title: t('crud.actions'),
      key: '__actions',
      fixed: 'right',
      width: compact ? actionCount * 28 + 24 : actionCount * 72 + 16,
      render: (_v, row) => rowActions(row),
    });
  }

  const searchVisible = searchOpen ? searchColumns : searchColumns.slice(0, compact ? 2 : 3);
  const editingTitle = editing
    ? t(editing.mode === 'edit' ? 'crud.editTitle' : editing.mode === 'child' ? 'crud.addChildTitle' : 'crud.addTitle', {
        title: t(config.title),
      })
    : '';

  const table = (
    <Card variant="borderless" className="crud-card" title={title}>
      {searchColumns.length > 0 && (
        <Form form={searchForm} className="crud-search" layout="inline" onFinish={runSearch}>
          <GridRow gutter={[12, 12]} style={{ width: '100%' }}>
            {searchVisible.map((c) => (
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
                <Button icon={<UndoOutlined />} onClick={resetSearch}>
                  {t('crud.reset')}
                </Button>
                {searchColumns.length > (compact ? 2 : 3) && (
                  <Button type="link" onClick={() => setSearchOpen((o) => !o)}>
                    {searchOpen ? t('crud.collapse') : t('crud.expand')} {searchOpen ? <UpOutlined /> : <DownOutlined />}
                  </Button>
                )}
              </Space>
            </Col>
          </GridRow>
        </Form>
      )}
      <div className="crud-toolbar">
        <Space wrap>
          {can('add') && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => openCreate()}>
              {t('crud.add')}
            </Button>
          )}
          {can('delete') && (
            <Button danger icon={<DeleteOutlined />} onClick={() => remove(selected.keys.map(String))}>
              {t('crud.delete')}
            </Button>
          )}
          {transfer.import && transfer.progress && can('add') && (
            <ImportButton
              calls={transfer}
              title={t(config.title)}
              labels={Object.fromEntries(columns.map((c) => [c.prop, t(c.label)]))}
              onImported={reload}
            />
          )}
          {transfer.export && can('view') && <ExportButton url={transfer.export} params={filters} name={config.code} />}
          {config.toolbarExtras?.map((extra, i) => (
            <Fragment key={i}>
              {extra({ config, selectedRows: selected.rows, reload, clearSelection: () => setSelected({ keys: [], rows: [] }) })}
            </Fragment>
          ))}
          {selected.keys.length > 0 && (
            <span className="crud-selected">
              {t('crud.selected', { count: selected.keys.length })}
              <Button type="link" size="small" onClick={() => setSelected({ keys: [], rows: [] })}>
                {t('crud.clearSelection')}
              </Button>
            </span>
          )}
        </Space>
        <Space>
          {config.tree && (
            <Tooltip title={expandedKeys.length ? t('crud.collapseAll') : t('crud.expandAll')}>
              <Button
                icon={expandedKeys.length ? <NodeCollapseOutlined /> : <NodeExpandOutlined />}
                onClick={() => setExpanded(expandedKeys.length ? [] : allParentKeys)}
                aria-label={expandedKeys.length ? t('crud.collapseAll') : t('crud.expandAll')}
              />
            </Tooltip>
          )}
          <Tooltip title={t('crud.refresh')}>
            <Button icon={<ReloadOutlined spin={list.isFetching} />} onClick={() => void list.refetch()} aria-label={t('crud.refresh')} />
          </Tooltip>
          {/* the server's export (all rows, as a spreadsheet) replaces this page's CSV */}
          {!transfer.export && (
            <Tooltip title={t('crud.export')}>
              <Button icon={<DownloadOutlined />} onClick={exportCsv} disabled={!rows.length} aria-label={t('crud.export')} />
            </Tooltip>
          )}
          <ColumnSettings columns={tableColumns} hidden={hidden} onChange={saveHidden} />
        </Space>
      </div>
      {placeholder ?? (
        <Table<Row>
          size="middle"
          rowKey={(r) => String(r.id)}
          columns={tableCols}
          dataSource={rows}
          // a background refresh keeps the rows on screen; new parameters (page, search) show the spinner
          loading={list.isFetching && (list.isPlaceholderData || !list.data)}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
          rowSelection={{
            selectedRowKeys: selected.keys,
            onChange: (keys, selectedRows) => setSelected({ keys, rows: selectedRows }),
            checkStrictly: true,
          }}
          rowClassName={(r) => (activeRowId && String(r.id) === activeRowId ? 'crud-row-active' : '')}
          onRow={onRowClick ? (r) => ({ onClick: () => onRowClick(r), style: { cursor: 'pointer' } }) : undefined}
          expandable={config.tree ? { expandedRowKeys: expandedKeys, onExpandedRowsChange: (keys) => setExpanded([...keys]) } : undefined}
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
                  onChange: (current, size) => setPage({ current: size !== page.size ? 1 : current, size }),
                }
              : false
          }
        />
      )}
    </Card>
  );

  return (
    <>
      {config.sideTree ? (
        <div className="crud-with-tree">
          <SideTree
            url={config.sideTree.url}
            title={config.sideTree.title}
            value={sideValue}
            onChange={(v) => {
              setSideValue(v);
              setPage((p) => ({ ...p, current: 1 }));
            }}
          />
          <div className="crud-with-tree-main">{table}</div>
        </div>
      ) : (
        table
      )}

      <Modal
        open={!!editing}
        title={editingTitle}
        width={780}
        okText={t('common.save')}
        cancelText={t('common.cancel')}
        confirmLoading={saving}
        onOk={() => void submit()}
        onCancel={() => setEditing(null)}
        mask={{ closable: false }}
        forceRender
      >
        <Spin spinning={editing?.mode === 'edit' && detail.isFetching}>
          <Form form={editForm} layout="vertical" className="crud-form" requiredMark>
            <GridRow gutter={16}>
              {shownFormColumns.flatMap((c) => {
                const wide = c.wide || c.type === 'textarea';
                const items = [
                  <Col key={c.prop} span={wide ? 24 : 12}>
                    <FormField column={c} editing={editing?.mode === 'edit'} />
                  </Col>,
                ];
                if (c.type === 'password' && c.confirm)
                  items.push(
                    <Col key={`${c.prop}Confirm`} span={12}>
                      <ConfirmField column={c} />
                    </Col>,
                  );
                return items;
              })}
            </GridRow>
          </Form>
        </Spin>
      </Modal>

      <Drawer
        open={!!viewing}
        title={t('crud.detailTitle', { title: t(config.title) })}
        size={config.detailWidth ?? 560}
        onClose={() => setViewing(null)}
        extra={
          viewing &&
          can('edit') && (
            <Button
              type="primary"
              icon={<EditOutlined />}
              onClick={() => {
                const row = detail.data ?? viewing;
                setViewing(null);
                openEdit(row);
              }}
            >
              {t('crud.edit')}
            </Button>
          )
        }
      >
        <Spin spinning={detail.isFetching}>
          {viewing && (
            <Descriptions
              column={1}
              bordered
              size="small"
              styles={{ label: { width: 160 } }}
              items={columns
                .filter((c) => !c.hideInDetail && c.type !== 'password')
                .map((c) => ({ key: c.prop, label: t(c.label), children: cell(c, detail.data ?? viewing) || '-' }))}
            />
          )}
        </Spin>
      </Drawer>
    </>
  );
}
