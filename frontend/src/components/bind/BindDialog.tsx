import { useState, type Key, type ReactNode } from 'react';
import { App, Button, Card, Flex, Modal, Progress, Typography } from 'antd';
import { DisconnectOutlined, LinkOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { BindingCalls } from '../../api/manifest';
import { toast } from '../../api/toast';
import { useAccess } from '../../access/useAccess';
import { website } from '../../config/website';
import { useCustom, useList } from '../../data/hooks';
import type { ResourceConfig, Row } from '../../resources/types';
import { CrudTable, type Paging } from '../crud/CrudTable';
import { useColumnLookups } from '../crud/lookups';
import { SearchForm } from '../crud/SearchForm';
import { searchFields } from '../crud/values';
import { bindCheck } from './bind';

/** A binding page's description: which rows of which resource are bound to an owner row, and how. */
export interface BindSpec {
  /** The owner's menu code (its lists refresh after a change, e.g. a fence's vehicle count). */
  ownerCode: string;
  /** The other resource's config: its columns, search fields and dictionaries show on both sides. */
  other: ResourceConfig;
  /** The other columns shown (by prop), in order. */
  columns: string[];
  calls: BindingCalls;
  /** The owner id's name in the calls (`fenceId`) and the other ids' (`carIds`). */
  ownerParam: string;
  othersParam: string;
  /** The most rows one owner may have bound (the server refuses beyond). */
  limit?: number;
  /** i18n key of the dialog's title (receives `name`, the owner's label). */
  title: string;
}

type Side = 'unbound' | 'bound';

/** One side: a searchable, paged list of the other rows bound (or not) to the owner, with a selection. */
function BindList({
  spec,
  ownerId,
  side,
  selected,
  onSelect,
  extra,
}: {
  spec: BindSpec;
  ownerId: string;
  side: Side;
  selected: { keys: Key[]; rows: Row[] };
  onSelect: (keys: Key[], rows: Row[]) => void;
  extra: ReactNode;
}) {
  const { t } = useTranslation();
  const columns = spec.columns.map((prop) => spec.other.columns.find((c) => c.prop === prop)).filter((c) => c !== undefined);
  const search = searchFields(spec.other.columns);
  const lookups = useColumnLookups(columns, t);
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [page, setPage] = useState<Paging>({ current: 1, size: website.defaultPageSize });
  // the binding's lists share one code: a change refreshes both sides
  const list = useList(bindingSource(spec, side), { ...filters, [spec.ownerParam]: ownerId, current: page.current, size: page.size });
  return (
    <Card
      size="small"
      className={`bind-list bind-list-${side}`}
      data-testid={`bind-${side}`}
      title={t(side === 'bound' ? 'bind.boundTitle' : 'bind.unboundTitle', { count: list.total })}
      extra={extra}
      style={{ flex: 1, minWidth: 0 }}
    >
      <SearchForm
        columns={search}
        compact
        onSearch={(next) => {
          setFilters(next);
          setPage((p) => ({ ...p, current: 1 }));
        }}
      />
      <CrudTable
        config={{ paged: true, tree: false }}
        columns={columns}
        rows={list.rows}
        total={list.total}
        loading={list.isFetching && (list.isPlaceholderData || !list.data)}
        page={page}
        onPage={setPage}
        selectedKeys={selected.keys}
        onSelect={onSelect}
        buttons={() => []}
        buttonCount={0}
        compact
        lookups={lookups}
        revealable={false}
      />
    </Card>
  );
}

function bindingCode(spec: BindSpec): string {
  return `${spec.ownerCode}-${spec.other.code}-binding`;
}

/** A side's list call; both sides share one code, so that a change refreshes both. */
function bindingSource(spec: BindSpec, side: Side) {
  return { code: bindingCode(spec), api: { ...spec.other.api, list: side === 'bound' ? spec.calls.bound : spec.calls.unbound }, listMethod: 'GET' as const };
}

const NONE = { keys: [] as Key[], rows: [] as Row[] };

/**
 * The bind / unbind page of one owner row (e.g. the vehicles of an electronic fence): the rows not bound on the
 * left and the rows bound on the right, each searchable and paged; selected rows are bound or unbound through the
 * binding's calls, within the limit (shown).
 */
export function BindDialog({ spec, owner, ownerName, onClose }: { spec: BindSpec; owner: Row; ownerName: string; onClose: () => void }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const { can } = useAccess();
  const ownerId = String(owner.id);
  const change = useCustom<number>(bindingCode(spec), [spec.ownerCode, spec.other.code]);
  const [unbound, setUnbound] = useState(NONE);
  const [bound, setBound] = useState(NONE);
  // how many are bound, whatever the bound side is searched for (the limit is on all of them)
  const count = useList(bindingSource(spec, 'bound'), { [spec.ownerParam]: ownerId, current: 1, size: 1 });
  const editable = !spec.calls.button || can(spec.calls.button);

  const send = async (path: string, rows: Row[]) => {
    const ids = rows.map((r) => String(r.id));
    return change.mutateAsync({ path, method: 'POST', data: { [spec.ownerParam]: ownerId, [spec.othersParam]: ids } });
  };

  const bind = async () => {
    const problem = bindCheck(unbound.rows.length, count.total, spec.limit);
    if (problem) {
      toast.warning(t(problem.key, problem.values));
      return;
    }
    try {
      const n = await send(spec.calls.bind, unbound.rows);
      toast.success(t('bind.bound', { count: n }));
      setUnbound(NONE);
    } catch {
      // the request wrapper showed the server's reason (e.g. over the limit); the selection stays
    }
  };

  const unbind = () => {
    if (bound.rows.length === 0) {
      toast.warning(t('crud.selectOne'));
      return;
    }
    modal.confirm({
      title: t('bind.unbindConfirm', { count: bound.rows.length, name: ownerName }),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        const n = await send(spec.calls.unbind, bound.rows);
        toast.success(t('bind.unbound', { count: n }));
        setBound(NONE);
      },
    });
  };

  const used = count.total;
  return (
    <Modal
      open
      width={1280}
      title={t(spec.title, { name: ownerName })}
      onCancel={onClose}
      footer={<Button onClick={onClose}>{t('common.close')}</Button>}
      styles={{ body: { paddingTop: 8 } }}
    >
      <Flex align="center" gap={12} style={{ marginBottom: 12 }} data-testid="bind-count">
        <Typography.Text>
          {spec.limit ? t('bind.count', { count: used, limit: spec.limit }) : t('bind.countNoLimit', { count: used })}
        </Typography.Text>
        {spec.limit && (
          <Progress
            percent={Math.min(100, Math.round((used / spec.limit) * 100))}
            size="small"
            showInfo={false}
            status={used >= spec.limit ? 'exception' : 'normal'}
            style={{ width: 160, margin: 0 }}
          />
        )}
        {!editable && <Typography.Text type="secondary">{t('bind.readOnly')}</Typography.Text>}
      </Flex>
      <Flex gap={16} align="stretch" wrap={false}>
        <BindList
          spec={spec}
          ownerId={ownerId}
          side="unbound"
          selected={unbound}
          onSelect={(keys, rows) => setUnbound({ keys, rows })}
          extra={
            editable && (
              <Button type="primary" size="small" icon={<LinkOutlined />} loading={change.isPending} disabled={unbound.keys.length === 0} onClick={() => void bind()}>
                {unbound.keys.length ? t('bind.bindCount', { count: unbound.keys.length }) : t('bind.bind')}
              </Button>
            )
          }
        />
        <BindList
          spec={spec}
          ownerId={ownerId}
          side="bound"
          selected={bound}
          onSelect={(keys, rows) => setBound({ keys, rows })}
          extra={
            editable && (
              <Button danger size="small" icon={<DisconnectOutlined />} disabled={bound.keys.length === 0} onClick={unbind}>
                {bound.keys.length ? t('bind.unbindCount', { count: bound.keys.length }) : t('bind.unbind')}
              </Button>
            )
          }
        />
      </Flex>
    </Modal>
  );
}
