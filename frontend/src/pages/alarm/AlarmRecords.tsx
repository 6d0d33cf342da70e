import { useState, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Input, Segmented, Select, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../api/client';
import { Can } from '../../components/Can';
import { ExportButton } from '../../components/crud/Transfer';
import { formatNumber } from '../../components/report/format';
import { ALARM_EXPORT, ALARM_LISTS, WARNING_KINDS, formatDuration, type AlarmList, type AlarmRow } from './api';
import { OrganisationFilter, RangeFilter, RangeProblem } from './Filters';
import { cleaned, useAlarmRange, useKindLabel } from './hooks';
import { ALARM_ACK, ALARM_CLOSE, HandleDialog, RowActions, SelectionActions, StepsDrawer, WorkStatusTag } from './AlarmWork';
import { useAccess } from '../../access/useAccess';

const SIZES = [10, 30, 50, 100, 200];
const LISTS: AlarmList[] = ['all', 'collision', 'speeding', 'overload', 'warning', 'fault'];
type Col = { key: keyof AlarmRow & string; title: string; numeric?: boolean; render?: (row: AlarmRow) => ReactNode };

/**
 * 报警中心 → 报警记录: every alarm the pipeline raised, by type (all, collision, speeding, overload, other alarms
 * and warnings, faults), filtered by organisation, vehicle, driver and a range of at most 7 days, and exported.
 */
export default function AlarmRecords() {
  const { t } = useTranslation();
  const kindLabel = useKindLabel();
  const range = useAlarmRange();
  const [list, setList] = useState<AlarmList>('all');
  const [organisation, setOrganisation] = useState<string | undefined>();
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [applied, setApplied] = useState<Record<string, string | number | boolean>>(() => range.initial);
  const [page, setPage] = useState({ current: 1, size: 10 });
  const set = (name: string) => (v: unknown) => setValues((all) => ({ ...all, [name]: v }));
  // working alarms: the selection (acknowledge, close), one row's handling form and its steps
  const { can } = useAccess();
  const [picked, setPicked] = useState<AlarmRow[]>([]);
  const [handling, setHandling] = useState<AlarmRow | null>(null);
  const [stepsOf, setStepsOf] = useState<AlarmRow | null>(null);

  const answer = useQuery({
    queryKey: ['alarms', list, applied, page],
    queryFn: () => apiPost(ALARM_LISTS[list].url, { ...applied, current: page.current, size: page.size }),
    placeholderData: keepPreviousData,
  });

  const paramsOf = (which: AlarmList, v: Record<string, unknown>) => {
    const own = which === 'collision' ? ['level'] : which === 'fault' ? ['code'] : which === 'all' || which === 'warning' ? ['kind'] : [];
    const chosen = Object.fromEntries(Object.entries(v).filter(([k]) => ['carNo', 'driverName', 'workStatus', ...own].includes(k)));
    return cleaned({ ...range.params(), mechanismId: organisation, ...chosen });
  };
  const search = () => {
    if (range.problem) return;
    setApplied(paramsOf(list, values));
    setPage((p) => ({ ...p, current: 1 }));
  };
  const reset = () => {
    range.reset();
    setOrganisation(undefined);
    setValues({});
    setApplied(range.initial);
    setPage((p) => ({ ...p, current: 1 }));
  };
  const switchList = (which: AlarmList) => {
    const kept = { ...values, kind: undefined, level: undefined, code: undefined };
    setList(which);
    setValues(kept);
    setApplied((a) => cleaned({ ...a, kind: undefined, level: undefined, code: undefined }));
    setPage((p) => ({ ...p, current: 1 }));
  };

  const time = (row: AlarmRow, key: 'beginTime' | 'endTime') =>
    key === 'endTime' && row.open ? <Tag color="processing">{t('alarm.open')}</Tag> : (row[key] ?? '-');
  const head: Col[] = [
    { key: 'mechanismName', title: 'report.organisation' },
    { key: 'carNo', title: 'alarm.carNo' },
    { key: 'deviceNumber', title: 'alarm.deviceNumber' },
  ];
  const kind: Col = { key: 'kindName', title: 'alarm.kindLabel' };
  const begin: Col = { key: 'beginTime', title: 'alarm.beginTime' };
  const end: Col = { key: 'endTime', title: 'alarm.endTime', render: (r) => time(r, 'endTime') };
  const duration: Col = { key: 'durationS', title: 'alarm.duration', render: (r) => formatDuration(r.durationS) };
  const driver: Col = { key: 'driverName', title: 'alarm.driver' };
  const num = (key: Col['key'], title: string): Col => ({ key, title, numeric: true });
  const COLUMNS: Record<AlarmList, Col[]> = {
    all: [...head, kind, { key: 'level', title: 'alarm.level', numeric: true, render: (r) => r.level }, begin, end, duration, num('value', 'alarm.value'), driver],
    collision: [
      ...head,
      { key: 'level', title: 'alarm.collisionLevel', numeric: true, render: (r) => r.level },
      { key: 'beginTime', title: 'alarm.time' },
      num('limitValue', 'alarm.collisionLimit'),
      num('value', 'alarm.collisionReal'),
      { key: 'direction', title: 'alarm.collisionDirection', numeric: true, render: (r) => r.direction ?? '-' },
      driver,
    ],
    speeding: [...head, begin, end, num('limitValue', 'alarm.speedLimit'), num('value', 'alarm.beginSpeed'), num('maxValue', 'alarm.maxSpeed'), duration, driver],
    overload: [...head, begin, end, num('limitValue', 'alarm.loadLimit'), num('maxValue', 'alarm.realLoad'), duration, driver],
    warning: [...head, kind, begin, end, duration, num('value', 'alarm.value'), num('limitValue', 'alarm.limit'), { key: 'info', title: 'alarm.info' }, driver],
    fault: [...head, { key: 'code', title: 'alarm.code' }, { key: 'beginTime', title: 'alarm.time' }, driver],
  };
  const columns: ColumnsType<AlarmRow> = [
    { key: '__index', title: '#', width: 56, render: (_v, _r, i) => (page.current - 1) * page.size + i + 1 },
    ...COLUMNS[list].map((c) => ({
      key: c.key,
      dataIndex: c.key,
      title: t(c.title),
      align: c.numeric ? ('right' as const) : undefined,
      render: (_v: unknown, row: AlarmRow) =>
        c.render ? c.render(row) : c.numeric ? formatNumber(row[c.key]) : ((row[c.key] as ReactNode) ?? '-'),
    })),
    { key: 'workStatus', title: t('alarm.work.state'), render: (_v, row) => <WorkStatusTag status={row.workStatus ?? 0} /> },
    {
      key: '__actions',
      title: t('crud.actions'),
      render: (_v, row) => <RowActions row={row} onHandle={setHandling} onSteps={setStepsOf} />,
    },
  ];
  const data = answer.data;
  const totals = data?.totals;

  return (
    <Flex vertical gap={12} className="report-page alarm-page">
      <Card variant="borderless" size="small">
        <Segmented<AlarmList>
          className="alarm-lists"
          data-testid="alarm-lists"
          value={list}
          onChange={switchList}
          options={LISTS.map((l) => ({ value: l, label: t(`alarm.list.${l}`) }))}
          style={{ marginBottom: 12, maxWidth: '100%', overflowX: 'auto' }}
        />
        <Flex wrap gap={12} align="center" className="report-filters">
          <OrganisationFilter value={organisation} onChange={setOrganisation} />
          <RangeFilter range={range} />
          <Input
            allowClear
            maxLength={64}
            value={(values.carNo as string | undefined) ?? ''}
            onChange={(e) => set('carNo')(e.target.value)}
            onPressEnter={search}
            placeholder={t('alarm.carNo')}
            aria-label={t('alarm.carNo')}
            style={{ width: 160, maxWidth: '100%' }}
          />
          <Input
            allowClear
            maxLength={64}
            value={(values.driverName as string | undefined) ?? ''}
            onChange={(e) => set('driverName')(e.target.value)}
            onPressEnter={search}
            placeholder={t('alarm.driver')}
            aria-label={t('alarm.driver')}
            style={{ width: 140, maxWidth: '100%' }}
          />
          {list === 'collision' && (
            <Select
              allowClear
              value={values.level as number | undefined}
              onChange={set('level')}
              placeholder={t('alarm.collisionLevel')}
              aria-label={t('alarm.collisionLevel')}
              options={[1, 2, 3, 4, 5].map((n) => ({ value: n, label: t('alarm.levelN', { n }) }))}
              style={{ width: 140 }}
            />
          )}
          {(list === 'all' || list === 'warning') && (
            <Select
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              value={values.kind as string | undefined}
              onChange={set('kind')}
              placeholder={t('alarm.kindLabel')}
              aria-label={t('alarm.kindLabel')}
              options={[...(list === 'all' ? ['collision', 'speeding', 'overload', 'fault'] : []), ...WARNING_KINDS].map((k) => ({
                value: k,
                label: kindLabel(k),
              }))}
              style={{ width: 180, maxWidth: '100%' }}
            />
          )}
          <Select
            allowClear
            value={values.workStatus as number | undefined}
            onChange={set('workStatus')}
            placeholder={t('alarm.work.state')}
            aria-label={t('alarm.work.state')}
            options={[0, 1, 2, 3].map((n) => ({ value: n, label: t(`alarm.work.status.${n}`) }))}
            style={{ width: 130 }}
          />
          {list === 'fault' && (
            <Input
              allowClear
              maxLength={32}
              value={(values.code as string | undefined) ?? ''}
              onChange={(e) => set('code')(e.target.value)}
              onPressEnter={search}
              placeholder={t('alarm.code')}
              aria-label={t('alarm.code')}
              style={{ width: 160, maxWidth: '100%' }}
            />
          )}
          <Flex gap={8}>
            <Button type="primary" icon={<SearchOutlined />} onClick={search} disabled={!!range.problem}>
              {t('crud.search')}
            </Button>
            <Button icon={<ReloadOutlined />} onClick={reset}>
              {t('crud.reset')}
            </Button>
          </Flex>
        </Flex>
        <RangeProblem range={range} />
      </Card>
      <Card
        variant="borderless"
        className="crud-card report-card"
        title={
          <Flex wrap gap={12} align="baseline">
            <span>{t(`alarm.list.${list}`)}</span>
            {totals && (
              <Typography.Text type="secondary" data-testid="alarm-totals">
                {t('alarm.totals', { alarms: totals.alarms, vehicles: totals.vehicles, duration: formatDuration(totals.durationS) })}
              </Typography.Text>
            )}
          </Flex>
        }
        extra={
          <Flex wrap gap={8}>
            <SelectionActions rows={picked} onDone={() => setPicked([])} />
            <Can code={ALARM_EXPORT}>
              <ExportButton url={ALARM_LISTS[list].export} params={applied} name={`alarms-${list}`} />
            </Can>
          </Flex>
        }
      >
        <Table<AlarmRow>
          rowKey="id"
          size="middle"
          data-testid="alarm-table"
          columns={columns}
          rowSelection={
            can(ALARM_ACK) || can(ALARM_CLOSE)
              ? {
                  selectedRowKeys: picked.map((r) => r.id),
                  onChange: (_keys, rows) => setPicked(rows),
                  preserveSelectedRowKeys: false,
                  columnWidth: 48,
                }
              : undefined
          }
          dataSource={data?.records ?? []}
          loading={answer.isFetching && (answer.isPlaceholderData || !answer.data)}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
          pagination={{
            current: data?.current ?? page.current,
            pageSize: page.size,
            total: data?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: SIZES,
            showTotal: (total) => t('crud.total', { count: total }),
            onChange: (current, size) => setPage({ current: size === page.size ? current : 1, size }),
          }}
        />
      </Card>
      <HandleDialog row={handling} onClose={() => setHandling(null)} />
      <StepsDrawer row={stepsOf} onClose={() => setStepsOf(null)} />
    </Flex>
  );
}
