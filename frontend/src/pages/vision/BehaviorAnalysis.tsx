import { lazy, Suspense, useMemo, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Col, DatePicker, Empty, Flex, Input, Row, Spin, Statistic, TreeSelect, Typography } from 'antd';
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { operation } from '../../api/manifest';
import { apiPost } from '../../api/client';
import { useServerClock } from '../../data/useServerClock';
import { treeQuery } from '../../components/crud/lookups';
import { defaultRange, disabledDay, rangeParams, rangeProblem, zonedToday, type DayRange } from '../../components/report/range';
import { BEHAVIOR_MAX_DAYS, behaviorCalls, type BehaviorFilter } from './api';
import { countsDescription, countsOption, trendOption } from './charts';

// ECharts loads with this page only
const EChart = lazy(() => import('../../components/chart/EChart'));

function filters(organisation: string | undefined, range: DayRange, carNo: string): BehaviorFilter {
  const out: BehaviorFilter = { ...rangeParams(range) };
  if (organisation) out.mechanismId = organisation;
  if (carNo.trim()) out.carNo = carNo.trim();
  return out;
}

/**
 * 司机管理 → 司机行为分析: the driver cameras' behaviour alarms (fatigue, phone, smoking, distraction, no face, camera
 * blocked, face mismatch) over a range of days (the reports' rules: start ≤ end, at most 31 days; by default the last 7
 * up to today in the tenant zone), counted by type and per day, for an organisation branch or vehicles by number.
 */
export default function BehaviorAnalysis() {
  const { t } = useTranslation();
  const calls = behaviorCalls();
  const { now, offset } = useServerClock();
  const today = zonedToday(now(), offset);
  const [draft, setDraft] = useState<[DayRange[0] | null, DayRange[1] | null] | null>(() => defaultRange(today));
  const [organisation, setOrganisation] = useState<string | undefined>();
  const [carNo, setCarNo] = useState('');
  const [applied, setApplied] = useState<BehaviorFilter>(() => filters(undefined, defaultRange(today), ''));
  const problem = rangeProblem(draft, BEHAVIOR_MAX_DAYS);
  const tree = useQuery(treeQuery(operation('dept', 'tree')));
  const counts = useQuery({
    queryKey: ['behavior', calls.counts, applied],
    queryFn: () => apiPost(calls.counts, applied),
    placeholderData: keepPreviousData,
  });
  const trend = useQuery({
    queryKey: ['behavior', calls.trend, applied],
    queryFn: () => apiPost(calls.trend, applied),
    placeholderData: keepPreviousData,
  });
  const countsChart = useMemo(() => countsOption(counts.data ?? []), [counts.data]);
  const trendChart = useMemo(() => trendOption(trend.data ?? []), [trend.data]);
  const total = (counts.data ?? []).reduce((sum, c) => sum + c.count, 0);

  const search = () => {
    if (problem || !draft?.[0] || !draft[1]) return;
    setApplied(filters(organisation, [draft[0], draft[1]], carNo));
  };
  const reset = () => {
    const range = defaultRange(today);
    setDraft(range);
    setOrganisation(undefined);
    setCarNo('');
    setApplied(filters(undefined, range, ''));
  };

  const countsTitle = t('behavior.countsTitle');
  return (
    <Flex vertical gap={12} className="behavior-page">
      <Card variant="borderless" size="small">
        <Flex wrap gap={12} align="center">
          <TreeSelect
            allowClear
            showSearch={{ treeNodeFilterProp: 'title' }}
            loading={tree.isLoading}
            treeData={tree.data ?? []}
            treeDefaultExpandAll
            value={organisation}
            onChange={(v: string | undefined) => setOrganisation(v || undefined)}
            placeholder={t('report.organisation')}
            aria-label={t('report.organisation')}
            style={{ width: 220, maxWidth: '100%' }}
          />
          <DatePicker.RangePicker
            allowClear={false}
            value={draft}
            onCalendarChange={(v) => setDraft(v ? [v[0] ?? null, v[1] ?? null] : null)}
            onChange={(v) => setDraft(v ? [v[0] ?? null, v[1] ?? null] : null)}
            disabledDate={(current, info) => disabledDay(current, info?.from, today, BEHAVIOR_MAX_DAYS)}
            status={problem ? 'error' : undefined}
            aria-label={t('report.range')}
            data-testid="behavior-range"
            style={{ maxWidth: '100%' }}
          />
          <Input
            allowClear
            value={carNo}
            maxLength={64}
            onChange={(e) => setCarNo(e.target.value)}
            onPressEnter={search}
            placeholder={t('vehicle.carNo')}
            aria-label={t('vehicle.carNo')}
            style={{ width: 180, maxWidth: '100%' }}
          />
          <Button type="primary" icon={<SearchOutlined />} onClick={search} disabled={!!problem} data-testid="behavior-search">
            {t('crud.search')}
          </Button>
          <Button icon={<ReloadOutlined />} onClick={reset}>
            {t('crud.reset')}
          </Button>
        </Flex>
        {problem && (
          <Alert style={{ marginTop: 8 }} type="error" showIcon title={t(problem.key, { days: problem.days })} data-testid="behavior-range-problem" />
        )}
      </Card>
      {(counts.isError || trend.isError) && <Alert type="error" showIcon title={t('behavior.loadFailed')} />}
      <Row gutter={[12, 12]}>
        <Col xs={24} lg={9}>
          <Card title={countsTitle} size="small" variant="borderless" extra={<Statistic value={total} data-testid="behavior-total" styles={{ content: { fontSize: 18 } }} />}>
            {counts.isLoading ? (
              <Spin />
            ) : total === 0 ? (
              <Empty description={t('crud.empty')} />
            ) : (
              <Suspense fallback={<Spin />}>
                <EChart option={countsChart} height={300} ariaLabel={countsDescription(countsTitle, counts.data ?? [])} data-testid="behavior-counts-chart" />
              </Suspense>
            )}
            <Flex wrap gap={8} style={{ marginTop: 8 }} data-testid="behavior-counts">
              {(counts.data ?? []).map((c) => (
                <Typography.Text key={c.type} type="secondary" data-type={c.type}>
                  {c.typeName} <b>{c.count}</b>
                </Typography.Text>
              ))}
            </Flex>
          </Card>
        </Col>
        <Col xs={24} lg={15}>
          <Card title={t('behavior.trendTitle')} size="small" variant="borderless">
            {trend.isLoading ? (
              <Spin />
            ) : (
              <Suspense fallback={<Spin />}>
                <EChart option={trendChart} height={340} ariaLabel={t('behavior.trendTitle')} data-testid="behavior-trend-chart" />
              </Suspense>
            )}
          </Card>
        </Col>
      </Row>
    </Flex>
  );
}
