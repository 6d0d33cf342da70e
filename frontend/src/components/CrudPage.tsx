import { Fragment, Suspense, useMemo, useState, type Key, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Card } from 'antd';
import { DeleteOutlined, EditOutlined, EyeOutlined, LinkOutlined, PlusOutlined, SyncOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Params } from '../api/request';
import { useAccess } from '../access/useAccess';
import { website } from '../config/website';
import { invalidateResource, useList } from '../data/hooks';
import { isOpenAction, type OpenRowAction, type ResourceConfig, type Row, type RowAction } from '../resources/types';
import { CrudTable, type Paging, type RowButton } from './crud/CrudTable';
import { CrudToolbar } from './crud/CrudToolbar';
import { DetailDrawer } from './crud/DetailDrawer';
import { FormDialog, type FormState } from './crud/FormDialog';
import { displayText, useColumnLookups } from './crud/lookups';
import { saveFile } from './crud/saveFile';
import { SearchForm } from './crud/SearchForm';
import { isSecretCell, MASK } from './crud/secret';
import { SideTree } from './crud/SideTree';
import { ExportButton, ImportButton } from './crud/Transfer';
import { useCrudActions } from './crud/useCrudActions';
import { useHiddenColumns } from './crud/useHiddenColumns';
import { availableActions, parentKeys, searchFields, toCsv } from './crud/values';

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

function flattenRows(rows: Row[]): Row[] {
  return rows.flatMap((r) => [r, ...flattenRows((r.children as Row[] | undefined) ?? [])]);
}

const NO_SELECTION = { keys: [] as Key[], rows: [] as Row[] };

/**
 * One schema-driven list page, composed of the list parts over the data provider (`data/hooks.ts`): the search form,
 * the toolbar, the table, the add / edit dialog and the detail drawer, with the organisation tree beside it when
 * the config has one. Every button asks `useAccess`.
 */
export function CrudPage({ config, fixedParams, fixedValues, onRowClick, activeRowId, placeholder, title, compact = false }: CrudPageProps) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const access = useAccess();
  // a read-only resource (no submit/remove call) shows no add, edit or delete, whatever the user's buttons
  const callable: Record<string, boolean> = availableActions(config);
  const can = (op: string) => (callable[op] ?? true) && access.canDo(config.code, op);

  const [search, setSearch] = useState<Record<string, string>>({});
  const [page, setPage] = useState<Paging>({ current: 1, size: website.defaultPageSize });
  const [sideValue, setSideValue] = useState<string | undefined>();
  const [selected, setSelected] = useState(NO_SELECTION);
  const [editing, setEditing] = useState<FormState | null>(null);
  const [viewing, setViewing] = useState<Row | null>(null);
  const [dialog, setDialog] = useState<{ action: OpenRowAction; row: Row } | null>(null);
  const [hidden, saveHidden] = useHiddenColumns(config.code);
  const [expanded, setExpanded] = useState<Key[] | null>(null);

  const columns = config.columns;
  const transfer = config.transfer ?? {};
  const lookups = useColumnLookups(columns, t);
  const searchColumns = searchFields(columns);
  const tableColumns = columns.filter((c) => !c.hideInTable && c.type !== 'password');
  const visibleColumns = tableColumns.filter((c) => !hidden.includes(c.prop));

  // what the list is filtered by: the export sends the same
  const filters: Params = {
    ...config.listParams,
    ...fixedParams,
    ...search,
    ...(config.sideTree && sideValue ? { [config.sideTree.param]: sideValue } : {}),
  };
  const params: Params = { ...filters, ...(config.paged ? { current: page.current, size: page.size } : {}) };
  const list = useList(config, params, { enabled: !placeholder });
  const { rows, total } = list;
  const allParentKeys = useMemo(() => (config.tree ? parentKeys(rows) : []), [config.tree, rows]);
  // Tree tables open their first level by default.
  const expandedKeys = expanded ?? rows.filter((r) => r.children).map((r) => String(r.id));

  const reload = () => void invalidateResource(queryClient, config.code);
  const clearSelection = () => setSelected(NO_SELECTION);
  const { confirmDelete, runCall } = useCrudActions(config, clearSelection);

  const openCreate = (parent?: Row) => {
    if (config.editRoute && !parent) {
      void navigate(config.editRoute);
      return;
    }
    const defaults: Row = { ...fixedValues, ...(parent ? (config.childDefaults?.(parent) ?? { parentId: parent.id }) : {}) };
    setEditing({ mode: parent ? 'child' : 'create', row: null, defaults });
  };

  const openEdit = (row: Row) => {
    if (config.editRoute) {
      void navigate(`${config.editRoute}?id=${encodeURIComponent(String(row.id))}`);
      return;
    }
    setEditing({ mode: 'edit', row });
  };

  const exportCsv = () => {
    const csv = toCsv(
      visibleColumns.map((c) => t(c.label)),
      flattenRows(rows).map((r) => visibleColumns.map((c) => (isSecretCell(c, r) ? MASK : displayText(c, r, lookups, t)))),
    );
    saveFile(new Blob([csv], { type: 'text/csv;charset=utf-8' }), `${config.code}-${new Date().toISOString().slice(0, 10)}.csv`);
  };

  // ---- the row buttons ---------------------------------------------------------------------

  const ownActions = (config.rowActions ?? []).filter((a) => (a.button ? access.can(a.button) : access.canDo(config.code, a.permission)));
  const runAction = (a: RowAction, row: Row) => (isOpenAction(a) ? setDialog({ action: a, row }) : runCall(a, row));
  const buttons = (row: Row): RowButton[] => {
    const out: RowButton[] = [];
    if (can('view')) out.push({ key: 'view', label: t('crud.view'), icon: <EyeOutlined />, onClick: () => setViewing(row) });
    if (can('edit')) out.push({ key: 'edit', label: t('crud.edit'), icon: <EditOutlined />, onClick: () => openEdit(row) });
    if (config.tree && can('add')) out.push({ key: 'child', label: t('crud.addChild'), icon: <PlusOutlined />, onClick: () => openCreate(row) });
    if (can('delete')) out.push({ key: 'delete', label: t('crud.delete'), icon: <DeleteOutlined />, onClick: () => confirmDelete([row]), danger: true });
    for (const a of ownActions.filter((a) => a.when?.(row) ?? true))
      out.push({
        key: a.key,
        label: t(a.label),
        icon: isOpenAction(a) ? <LinkOutlined /> : <SyncOutlined />,
        onClick: () => runAction(a, row),
        danger: a.danger ?? false,
      });
    return out;
  };
  const buttonCount = ['view', 'edit', 'delete'].filter(can).length + (config.tree && can('add') ? 1 : 0) + ownActions.length;

  const extras = (
    <>
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
        <Fragment key={i}>{extra({ config, selectedRows: selected.rows, reload, clearSelection })}</Fragment>
      ))}
    </>
  );

  const table = (
    <Card variant="borderless" className="crud-card" title={title}>
      <SearchForm
        columns={searchColumns}
        compact={compact}
        onSearch={(next) => {
          setSearch(next);
          setPage((p) => ({ ...p, current: 1 }));
        }}
      />
      <CrudToolbar
        onAdd={can('add') ? () => openCreate() : undefined}
        onDeleteSelected={can('delete') ? () => confirmDelete(selected.rows) : undefined}
        extras={extras}
        selectedCount={selected.keys.length}
        onClearSelection={clearSelection}
        tree={config.tree ? { expanded: expandedKeys.length > 0, onToggle: () => setExpanded(expandedKeys.length ? [] : allParentKeys) } : undefined}
        refreshing={list.isFetching}
        onRefresh={() => void list.refetch()}
        // the server's export (all rows, as a spreadsheet) replaces this page's CSV
        onCsv={transfer.export ? undefined : { run: exportCsv, disabled: !rows.length }}
        columns={tableColumns}
        hidden={hidden}
        onHiddenChange={saveHidden}
      />
      {placeholder ?? (
        <CrudTable
          config={config}
          columns={visibleColumns}
          rows={rows}
          total={total}
          // a background refresh keeps the rows on screen; new parameters (page, search) show the spinner
          loading={list.isFetching && (list.isPlaceholderData || !list.data)}
          page={page}
          onPage={setPage}
          selectedKeys={selected.keys}
          onSelect={(keys, selectedRows) => setSelected({ keys, rows: selectedRows })}
          buttons={buttons}
          buttonCount={buttonCount}
          compact={compact}
          lookups={lookups}
          revealable={can('edit')}
          activeRowId={activeRowId}
          onRowClick={onRowClick}
          expandedKeys={expandedKeys}
          onExpand={setExpanded}
        />
      )}
    </Card>
  );

  const Dialog = dialog?.action.open;
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
      <FormDialog config={config} state={editing} fixedValues={fixedValues} onClose={() => setEditing(null)} />
      <DetailDrawer
        config={config}
        row={viewing}
        lookups={lookups}
        revealable={can('edit')}
        onClose={() => setViewing(null)}
        onEdit={
          can('edit')
            ? (row) => {
                setViewing(null);
                openEdit(row);
              }
            : undefined
        }
      />
      {Dialog && dialog && (
        <Suspense fallback={null}>
          <Dialog row={dialog.row} onClose={() => setDialog(null)} reload={reload} />
        </Suspense>
      )}
    </>
  );
}
