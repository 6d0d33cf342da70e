import { lazy, Suspense, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, DatePicker, Descriptions, Drawer, Empty, Row, Spin, Statistic, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useTranslation } from 'react-i18next';
import { useServerClock } from '../../data/useServerClock';
import { defaultRange, disabledDay, rangeProblem, zonedToday, type DayRange } from '../report/range';
import type { RowDialogProps } from '../../resources/types';
import { DETAIL_MAX_DAYS, vehicleCalls, type Diagnosis, type Meter, type StageDay } from './api';
import './vehicle.css';

// ECharts is large: the charts load when the drawer first shows them
const VehicleCharts = lazy(() => import('./VehicleCharts'));

const dash = (v: unknown, unit = ''): string => (v === null || v === undefined || v === '' ? '-' : `${String(v)}${unit ? ` ${unit}` : ''}`);

function MeterCard({ meter }: { meter: Meter }) {
  const { t } = useTranslation();
  const electric = meter.power === 'electric';
  const stats: { key: string; title: string; value: string }[] = [
    { key: 'speed', title: t('vehicleDetail.speed'), value: dash(meter.speed, 'km/h') },
    { key: 'load', title: t('vehicleDetail.load'), value: dash(meter.loadKg, 'kg') },
    electric
      ? { key: 'soc', title: t('vehicleDetail.soc'), value: dash(meter.soc, '%') }
      : { key: 'fuel', title: t('vehicleDetail.fuel'), value: dash(meter.fuelL, 'L') },
    { key: 'lock', title: t('vehicleDetail.lockLevel'), value: meter.lockLevel === null || meter.lockLevel === undefined ? '-' : t(`vehicleDetail.lock.l${meter.lockLevel}`) },
    { key: 'state', title: t('vehicleDetail.state'), value: t(`monitor.state.${meter.state ?? 'off'}`) },
    { key: 'mileage', title: t('vehicleDetail.mileage'), value: dash(meter.mileage, 'km') },
  ];
  return (
    <Card size="small" title={t('vehicleDetail.meter')} extra={<Tag color={meter.online ? 'success' : 'default'}>{t(meter.online ? 'vehicle.isOnline' : 'vehicle.isOffline')}</Tag>}>
      <Row gutter={[12, 12]}>
        {stats.map((s) => (
          <Col key={s.key} xs={12} sm={8} md={4}>
            <div data-testid={`meter-${s.key}`}>
              <Statistic title={s.title} value={s.value} />
            </div>
          </Col>
        ))}
      </Row>
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2, md: 3 }}
        className="vd-meter-more"
        items={[
          { key: 'acc', label: 'ACC', children: meter.acc ? t('vehicleDetail.on') : t('vehicleDetail.off') },
          { key: 'limit', label: t('vehicleDetail.speedLimit'), children: dash(meter.speedLimitKmh, 'km/h') },
          { key: 'rated', label: t('vehicleDetail.loadPct'), children: `${dash(meter.loadPct, '%')} / ${dash(meter.ratedLoadKg, 'kg')}` },
          ...(electric
            ? [
                { key: 'v', label: t('vehicleDetail.battery'), children: `${dash(meter.batteryVoltageV, 'V')} · ${dash(meter.batteryCurrentA, 'A')}` },
                { key: 't', label: t('vehicleDetail.batteryTemp'), children: dash(meter.batteryTemperatureC, '°C') },
              ]
            : []),
          { key: 'fork', label: t('vehicleDetail.forkHeight'), children: dash(meter.forkHeightMm, 'mm') },
          { key: 'belt', label: t('vehicleDetail.seatBelt'), children: meter.seatBelt === null || meter.seatBelt === undefined ? '-' : t(meter.seatBelt ? 'vehicleDetail.fastened' : 'vehicleDetail.unfastened') },
          { key: 'driver', label: t('vehicleDetail.driver'), children: dash(meter.driverName) },
          { key: 'time', label: t('vehicleDetail.gpsTime'), children: dash(meter.gpsTime) },
        ]}
      />
    </Card>
  );
}

function DiagnosisCard({ diagnosis }: { diagnosis: Diagnosis }) {
  const { t } = useTranslation();
  const kind = (k: string) => t(`alarm.kind.${k}`, { defaultValue: k });
  return (
    <Card size="small" title={t('vehicleDetail.diagnosis')}>
      {diagnosis.healthy ? (
        <Alert type="success" showIcon title={t('vehicleDetail.healthy')} data-testid="vd-healthy" />
      ) : (
        <Alert
          type="warning"
          showIcon
          data-testid="vd-unhealthy"
          title={t('vehicleDetail.unhealthy')}
          description={
            <>
              {(diagnosis.activeFaults ?? []).length > 0 && (
                <div data-testid="vd-faults">
                  {t('vehicleDetail.activeFaults')}: {(diagnosis.activeFaults ?? []).map((c) => <Tag key={c} color="red">{c}</Tag>)}
                </div>
              )}
              {(diagnosis.openAlarms ?? []).length > 0 && (
                <div>
                  {t('vehicleDetail.openAlarms')}: {(diagnosis.openAlarms ?? []).map((k) => <Tag key={k} color="orange">{kind(k)}</Tag>)}
                </div>
              )}
              {diagnosis.clockFault && <div>{t('vehicleDetail.clockFault')}</div>}
            </>
          }
        />
      )}
      <Table
        size="small"
        className="vd-table"
        rowKey={(r) => `${r.kind}-${r.beginTime}-${r.code ?? ''}`}
        pagination={{ pageSize: 5, size: 'small' }}
        scroll={{ x: 480 }}
        dataSource={diagnosis.events ?? []}
        locale={{ emptyText: t('vehicleDetail.noEvents') }}
        columns={[
          { title: t('vehicleDetail.kind'), dataIndex: 'kind', render: (k: string) => kind(k) },
          { title: t('vehicleDetail.code'), dataIndex: 'code', render: (c?: string | null) => dash(c) },
          { title: t('vehicleDetail.begin'), dataIndex: 'beginTime' },
          { title: t('vehicleDetail.end'), dataIndex: 'endTime', render: (v?: string | null) => dash(v) },
        ]}
      />
    </Card>
  );
}

/** 车辆档案 → 详情: one vehicle's meter, file, CAN data, diagnosis, run history and charts over up to 7 days. */
export default function VehicleDetail({ row, onClose }: RowDialogProps) {
  const { t } = useTranslation();
  const carId = String(row.id);
  const { now, offset } = useServerClock();
  const today = zonedToday(now(), offset);
  const [draft, setDraft] = useState<[DayRange[0] | null, DayRange[1] | null] | null>(() => defaultRange(today));
  const [range, setRange] = useState<DayRange>(() => defaultRange(today));
  const problem = rangeProblem(draft, DETAIL_MAX_DAYS);
  const rangeKey = [carId, range[0].format(), range[1].format()];

  const meter = useQuery({ queryKey: ['vd-meter', carId], queryFn: () => vehicleCalls.meter(carId), refetchInterval: 15_000 });
  const info = useQuery({ queryKey: ['vd-info', carId], queryFn: () => vehicleCalls.info(carId) });
  const live = useQuery({ queryKey: ['vd-live', carId], queryFn: () => vehicleCalls.live(carId), refetchInterval: 15_000 });
  const stages = useQuery({ queryKey: ['vd-stages', ...rangeKey], queryFn: () => vehicleCalls.stages(carId, range) });
  const diagnosis = useQuery({ queryKey: ['vd-diagnosis', ...rangeKey], queryFn: () => vehicleCalls.diagnosis(carId, range) });

  const can = Object.entries(live.data?.can ?? {}).map(([id, frame]) => ({ id, ...(frame as Record<string, unknown>) }));
  const energyUnit = stages.data?.power === 'combustion' ? 'L' : '%';
  const stageColumns: ColumnsType<StageDay> = [
    { title: t('vehicleDetail.day'), dataIndex: 'day', fixed: 'left', width: 100 },
    { title: t('vehicleDetail.bootHours'), dataIndex: 'bootHours' },
    { title: t('vehicleDetail.workHours'), dataIndex: 'workHours' },
    { title: t('vehicleDetail.moveHours'), dataIndex: 'moveHours' },
    { title: t('vehicleDetail.loadHours'), dataIndex: 'loadHours' },
    { title: t('vehicleDetail.liftHours'), dataIndex: 'liftHours' },
    { title: t('vehicleDetail.idleHours'), dataIndex: 'idleHours' },
    { title: t('vehicleDetail.distance'), dataIndex: 'distanceKm' },
    { title: t('vehicleDetail.alarms'), dataIndex: 'alarms' },
    { title: t('vehicleDetail.energyUsed', { unit: energyUnit }), dataIndex: 'energyUsed' },
    { title: t('vehicleDetail.energyAdded', { unit: energyUnit }), dataIndex: 'energyAdded' },
  ];
  const i = info.data;
  return (
    <Drawer
      open
      onClose={onClose}
      // never wider than the screen (a phone, or a window narrowed while open)
      size="min(1080px, 100vw)"
      title={t('vehicleDetail.title', { carNo: String(row.carNo ?? '') })}
      destroyOnHidden
      rootClassName="vehicle-detail"
    >
      <div className="vd-range">
        <span>{t('vehicleDetail.range')}</span>
        <DatePicker.RangePicker
          value={draft}
          allowClear={false}
          disabledDate={(current, infoArg) => disabledDay(current, infoArg?.from, today, DETAIL_MAX_DAYS)}
          onChange={(v) => {
            const next = v ? ([v[0], v[1]] as [DayRange[0] | null, DayRange[1] | null]) : null;
            setDraft(next);
            if (next && next[0] && next[1] && !rangeProblem(next, DETAIL_MAX_DAYS)) setRange([next[0], next[1]]);
          }}
          status={problem ? 'error' : undefined}
          className="vd-range-picker"
        />
        {problem && <Typography.Text type="danger">{t(problem.key, { days: problem.days })}</Typography.Text>}
      </div>
      <div className="vd-grid">
        {meter.data ? <MeterCard meter={meter.data} /> : <Spin />}
        <Card size="small" title={t('vehicleDetail.info')}>
          {i ? (
            <Descriptions
              size="small"
              column={{ xs: 1, sm: 2, md: 3 }}
              items={[
                { key: 'no', label: t('vehicle.carNo'), children: i.carNo },
                { key: 'type', label: t('vehicle.carType'), children: dash(i.carTypeName) },
                { key: 'power', label: t('vehicleDetail.power'), children: t(`vehicleDetail.powerKind.${i.power}`) },
                { key: 'org', label: t('vehicle.mechanism'), children: dash(i.mechanismName) },
                { key: 'dev', label: t('vehicle.deviceNumber'), children: dash(i.deviceNumber) },
                { key: 'sim', label: t('vehicle.simNumber'), children: dash(i.simNumber) },
                { key: 'proto', label: t('vehicleDetail.protocol'), children: `${dash(i.protocol)} ${i.protocolVersion ?? ''}` },
                { key: 'fw', label: t('vehicleDetail.firmware'), children: dash(i.firmwareVersion) },
                { key: 'seen', label: t('vehicleDetail.lastSeen'), children: dash(i.lastSeen) },
              ]}
            />
          ) : (
            <Spin />
          )}
        </Card>
        <Card size="small" title={t('vehicleDetail.can')}>
          <Table
            size="small"
            className="vd-table"
            rowKey="id"
            pagination={false}
            scroll={{ x: 420 }}
            dataSource={can}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('vehicleDetail.noCan')} /> }}
            columns={[
              { title: 'CAN ID', dataIndex: 'id' },
              { title: t('vehicleDetail.canData'), dataIndex: 'data', render: (v: unknown) => <code>{dash(v)}</code> },
              { title: t('vehicleDetail.canChannel'), dataIndex: 'channel', render: (v: unknown) => dash(v) },
              { title: t('vehicleDetail.canTime'), dataIndex: 'time', render: (v: unknown) => dash(v) },
            ]}
          />
        </Card>
        {diagnosis.data ? <DiagnosisCard diagnosis={diagnosis.data} /> : <Spin />}
        <Card size="small" title={t('vehicleDetail.history')}>
          <Table
            size="small"
            className="vd-table"
            rowKey="day"
            pagination={false}
            loading={stages.isLoading}
            scroll={{ x: 900 }}
            dataSource={stages.data?.days ?? []}
            columns={stageColumns}
            data-testid="vd-history"
            summary={() => {
              const totals = stages.data?.totals;
              return totals ? (
                <Table.Summary.Row>
                  {stageColumns.map((c, n) => {
                    const prop = (c as { dataIndex: keyof StageDay }).dataIndex;
                    return (
                      <Table.Summary.Cell key={String(prop)} index={n}>
                        {n === 0 ? t('vehicleDetail.total') : String(totals[prop] ?? '')}
                      </Table.Summary.Cell>
                    );
                  })}
                </Table.Summary.Row>
              ) : null;
            }}
          />
        </Card>
        <Card size="small" title={t('vehicleDetail.charts')}>
          <Suspense fallback={<Spin />}>
            <VehicleCharts carId={carId} range={range} />
          </Suspense>
        </Card>
      </div>
    </Drawer>
  );
}
