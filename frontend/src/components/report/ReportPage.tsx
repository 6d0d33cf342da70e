import { Suspense, useState, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, DatePicker, Empty, Flex, Input, Spin, Switch, Table, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { InfoCircleOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { post, type Params } from '../../api/request';
import { useServerClock } from '../../data/useServerClock';
import { Can } from '../Can';
import { DictSelect } from '../DictSelect';
import { ExportButton } from '../crud/Transfer';
import { MechanismSelect } from '../mechanism/MechanismSelect';
import { formatNumber } from './format';
import { defaultRange, disabledDay, rangeParams, rangeProblem, zonedToday, type DayRange } from './range';

/** A filter of a report beside the organisation and the range: a text, a dictionary value or a switch. */
export type ReportFilter =
  | { name: string; label: string; kind: 'text'; maxLength?: number }
  | { name: string; label: string; kind: 'dict'; dict: string }
  | { name: string; label: string; kind: 'switch'; initial: boolean; help?: string };

/** A column of a report's table; `total` names the field of the answer's `totals` shown under it. */
export interface ReportColumn<Row> {
  key: keyof Row & string;
  title: string;
  width?: number;
  numeric?: boolean;
  total?: string;
  render?: (row: Row) => ReactNode;
}

/** The paged answer of a report (backend core/report.py `ReportPage`). */
export interface ReportAnswer<Row, Totals> {
  records: Row[];
  total: number;
  size: number;
  current: number;
  pages: number;
  totals: Totals;
}

export interface ReportPageProps<Row> {
  title: string;
  /** The report's paged call (POST: the filters, `current`, `size`). */
  url: string;
  /** Its export (GET, the same filters as query parameters) and the button code that allows it. */
  exportUrl?: string;
  exportName?: string;
  exportCode?: string;
  columns: ReportColumn<Row>[];
  rowKey: keyof Row & string;
  /** The longest range the server takes for this report. */
  maxDays: number;
  filters?: ReportFilter[];
  /** What the figures mean, shown beside the title. */
  definitions?: string;
  /** The chart slot, above the table: given the applied filters; load its chart library lazily. */
  chart?: (params: Params) => ReactNode;
}

const SIZES = [10, 30, 50, 100, 200];

function initialValues(filters: ReportFilter[]): Record<string, unknown> {
  return Object.fromEntries(filters.filter((f) => f.kind === 'switch').map((f) => [f.name, f.initial]));
}

/** The params of a search: the organisation, the range and the other filters, empty ones left out. */
function searchParams(organisation: string | undefined, range: DayRange, values: Record<string, unknown>): Params {
  const out: Params = { ...rangeParams(range) };
  if (organisation) out.mechanismId = organisation;
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null || value === '') continue;
    out[name] = typeof value === 'string' ? value.trim() || undefined : (value as boolean | number);
  }
  return out;
}

/**
 * A report page: organisation (the organisations the caller may see, `MechanismSelect`), range (the report's rules: start ≤ end, at most `maxDays` days; by default the
 * last 7 days up to today in the tenant zone), the report's own filters, a chart slot, the table with its totals row,
 * paging and the export of the same rows.
 */
export function ReportPage<Row extends object, Totals extends object>(props: ReportPageProps<Row>) {
  const { title, url, columns, rowKey, maxDays, filters = [], chart } = props;
  const { t } = useTranslation();
  const { now, offset } = useServerClock();
  const today = zonedToday(now(), offset);
  const [draftRange, setDraftRange] = useState<[DayRange[0] | null, DayRange[1] | null] | null>(() => defaultRange(today));
  const [organisation, setOrganisation] = useState<string | undefined>();
  const [values, setValues] = useState<Record<string, unknown>>(() => initialValues(filters));
  const [applied, setApplied] = useState<Params>(() => searchParams(undefined, defaultRange(today), initialValues(filters)));
  const [page, setPage] = useState({ current: 1, size: 10 });
  const problem = rangeProblem(draftRange, maxDays);

  const report = useQuery({
    queryKey: ['report', url, applied, page],
    queryFn: () => post<ReportAnswer<Row, Totals>>(url, { ...applied, current: page.current, size: page.size }),
    placeholderData: keepPreviousData,
  });

  const search = () => {
    if (problem || !draftRange?.[0] || !draftRange[1]) return;
    setApplied(searchParams(organisation, [draftRange[0], draftRange[1]], values));
    setPage((p) => ({ ...p, current: 1 }));
  };
  const reset = () => {
    const range = defaultRange(today);
    setDraftRange(range);
    setOrganisation(undefined);
    setValues(initialValues(filters));
    setApplied(searchParams(undefined, range, initialValues(filters)));
    setPage((p) => ({ ...p, current: 1 }));
  };

  const tableColumns: ColumnsType<Row> = [
      {
        key: '__index',
        title: '#',
        width: 56,
        fixed: 'left',
        render: (_v, _r, i) => (page.current - 1) * page.size + i + 1,
      },
      ...columns.map((c) => ({
        key: c.key,
        dataIndex: c.key,
        title: t(c.title),
        width: c.width,
        align: c.numeric ? ('right' as const) : undefined,
        render: (_v: unknown, row: Row) => (c.render ? c.render(row) : c.numeric ? formatNumber(row[c.key]) : ((row[c.key] as ReactNode) ?? '-')),
      })),
  ];

  const answer = report.data;
  const totals = answer?.totals as Record<string, unknown> | undefined;
  const firstTotal = columns.findIndex((c) => c.total);
  const summary = () =>
    totals && answer && answer.total > 0 ? (
      <Table.Summary fixed="bottom">
        <Table.Summary.Row className="report-totals">
          <Table.Summary.Cell index={0} colSpan={firstTotal + 1}>
            <Typography.Text strong data-testid="report-totals-label">
              {t('report.total')} ({t('report.vehicles', { count: answer.total })})
            </Typography.Text>
          </Table.Summary.Cell>
          {columns.slice(firstTotal).map((c, i) => (
            <Table.Summary.Cell key={c.key} index={firstTotal + 1 + i} align={c.numeric ? 'right' : undefined}>
              <Typography.Text strong data-testid={`report-total-${c.key}`}>
                {c.total ? formatNumber(totals[c.total]) : ''}
              </Typography.Text>
            </Table.Summary.Cell>
          ))}
        </Table.Summary.Row>
      </Table.Summary>
    ) : undefined;

  const titleNode = (
    <Flex align="center" gap={8}>
      <span>{t(title)}</span>
      {props.definitions && (
        <Tooltip title={t(props.definitions)}>
          <InfoCircleOutlined aria-label={t('report.definitionsLabel')} style={{ color: 'var(--ant-color-text-tertiary, #999)' }} />
        </Tooltip>
      )}
    </Flex>
  );

  return (
    <Flex vertical gap={12} className="report-page">
      <Card variant="borderless" size="small">
        <Flex wrap gap={12} align="center" className="report-filters">
          <MechanismSelect
            value={organisation}
            onChange={setOrganisation}
            placeholder={t('report.organisation')}
            aria-label={t('report.organisation')}
            style={{ width: 220, maxWidth: '100%' }}
          />
          <DatePicker.RangePicker
            allowClear={false}
            value={draftRange}
            onCalendarChange={(v) => setDraftRange(v ? [v[0] ?? null, v[1] ?? null] : null)}
            onChange={(v) => setDraftRange(v ? [v[0] ?? null, v[1] ?? null] : null)}
            disabledDate={(current, info) => disabledDay(current, info?.from, today, maxDays)}
            status={problem ? 'error' : undefined}
            aria-label={t('report.range')}
            data-testid="report-range"
            style={{ maxWidth: '100%' }}
          />
          {filters.map((f) => {
            const value = values[f.name];
            const set = (v: unknown) => setValues((all) => ({ ...all, [f.name]: v }));
            if (f.kind === 'text')
              return (
                <Input
                  key={f.name}
                  allowClear
                  maxLength={f.maxLength}
                  value={(value as string | undefined) ?? ''}
                  onChange={(e) => set(e.target.value)}
                  onPressEnter={search}
                  placeholder={t(f.label)}
                  aria-label={t(f.label)}
                  style={{ width: 180, maxWidth: '100%' }}
                />
              );
            if (f.kind === 'dict')
              return (
                <DictSelect
                  key={f.name}
                  code={f.dict}
                  value={value as string | undefined}
                  onChange={(v: unknown) => set(v)}
                  placeholder={t(f.label)}
                  aria-label={t(f.label)}
                  style={{ width: 180, maxWidth: '100%' }}
                />
              );
            return (
              <Flex key={f.name} align="center" gap={6}>
                <Switch size="small" checked={!!value} onChange={(v) => set(v)} aria-label={t(f.label)} />
                <span>{t(f.label)}</span>
                {f.help && (
                  <Tooltip title={t(f.help)}>
                    <InfoCircleOutlined style={{ color: 'var(--ant-color-text-tertiary, #999)' }} />
                  </Tooltip>
                )}
              </Flex>
            );
          })}
          <Flex gap={8}>
            <Button type="primary" icon={<SearchOutlined />} onClick={search} disabled={!!problem}>
              {t('crud.search')}
            </Button>
            <Button icon={<ReloadOutlined />} onClick={reset}>
              {t('crud.reset')}
            </Button>
          </Flex>
        </Flex>
        {problem && (
          <Alert
            style={{ marginTop: 8 }}
            type="error"
            showIcon
            data-testid="report-range-problem"
            title={t(problem.key, { days: problem.days })}
          />
        )}
      </Card>
      {chart && (
        <Card variant="borderless" size="small">
          <Suspense fallback={<Spin />}>{chart(applied)}</Suspense>
        </Card>
      )}
      <Card
        variant="borderless"
        className="crud-card report-card"
        title={titleNode}
        extra={
          props.exportUrl &&
          (props.exportCode ? (
            <Can code={props.exportCode}>
              <ExportButton url={props.exportUrl} params={applied} name={props.exportName ?? 'report'} />
            </Can>
          ) : (
            <ExportButton url={props.exportUrl} params={applied} name={props.exportName ?? 'report'} />
          ))
        }
      >
        <Table<Row>
          rowKey={rowKey}
          size="middle"
          columns={tableColumns}
          dataSource={answer?.records ?? []}
          loading={report.isFetching && (report.isPlaceholderData || !report.data)}
          scroll={{ x: 'max-content' }}
          summary={summary}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
          pagination={{
            current: answer?.current ?? page.current,
            pageSize: page.size,
            total: answer?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: SIZES,
            showTotal: (total) => t('crud.total', { count: total }),
            onChange: (current, size) => setPage({ current: size === page.size ? current : 1, size }),
          }}
        />
      </Card>
    </Flex>
  );
}
