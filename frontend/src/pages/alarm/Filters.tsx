import { Alert, DatePicker, TreeSelect } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { operation } from '../../api/manifest';
import { treeQuery } from '../../components/crud/lookups';
import { disabledDay } from '../../components/report/range';
import { ALARM_MAX_DAYS } from './api';
import type { useAlarmRange } from './hooks';

export function RangeFilter({ range }: { range: ReturnType<typeof useAlarmRange> }) {
  const { t } = useTranslation();
  return (
    <DatePicker.RangePicker
      allowClear={false}
      value={range.draft}
      onCalendarChange={(v) => range.setDraft(v ? [v[0] ?? null, v[1] ?? null] : null)}
      onChange={(v) => range.setDraft(v ? [v[0] ?? null, v[1] ?? null] : null)}
      disabledDate={(current, info) => disabledDay(current, info?.from, range.today, ALARM_MAX_DAYS)}
      status={range.problem ? 'error' : undefined}
      aria-label={t('report.range')}
      data-testid="alarm-range"
      style={{ maxWidth: '100%' }}
    />
  );
}

export function RangeProblem({ range }: { range: ReturnType<typeof useAlarmRange> }) {
  const { t } = useTranslation();
  if (!range.problem) return null;
  return (
    <Alert
      style={{ marginTop: 8 }}
      type="error"
      showIcon
      data-testid="alarm-range-problem"
      title={t(range.problem.key, { days: range.problem.days })}
    />
  );
}

/** The organisation filter: the caller's organisation tree (an organisation and those under it). */
export function OrganisationFilter({ value, onChange }: { value: string | undefined; onChange: (v: string | undefined) => void }) {
  const { t } = useTranslation();
  const tree = useQuery(treeQuery(operation('dept', 'tree')));
  return (
    <TreeSelect
      allowClear
      showSearch={{ treeNodeFilterProp: 'title' }}
      loading={tree.isLoading}
      treeData={tree.data ?? []}
      treeDefaultExpandAll
      value={value}
      onChange={(v: string | undefined) => onChange(v || undefined)}
      placeholder={t('report.organisation')}
      aria-label={t('report.organisation')}
      style={{ width: 220, maxWidth: '100%' }}
      styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
    />
  );
}
