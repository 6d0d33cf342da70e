import { memo, startTransition, useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Card,
  Descriptions,
  Empty,
  Input,
  Modal,
  Radio,
  Result,
  Space,
  Spin,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { AimOutlined, CloseOutlined, NodeIndexOutlined, SettingOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { TFunction } from 'i18next';
import { useAccess } from '../../access/useAccess';
import { Address } from '../../components/address/Address';
import { useServerClock } from '../../data/useServerClock';
import { useLive } from '../../live/useLive';
import type { FeedStatus, LiveVehicle } from '../../live/types';
import MapView from '../../map/MapView';
import { FitBounds } from '../../map/FitBounds';
import { FlyTo } from '../../map/FlyTo';
import { TrackLayer } from '../../map/TrackLayer';
import { VehiclesLayer, type MapVehicle } from '../../map/VehiclesLayer';
import { STATE_COLORS } from '../../map/vehicleStyle';
import { boundsOf, type LonLat } from '../../map/geo';
import { QUERY_CONFIG_BUTTON, answeredParams, getTrack, getVehicleDetail, queryParameters, type CommandView } from './api';
import { ageParts, ageSeconds, filterVehicles, FILTERS, FleetView, hasPosition, todayPeriod, type AlarmEntry, type Filter } from './monitor';
import { VehicleList, type RowText } from './VehicleList';

/**
 * The map's vehicle of a live vehicle, the same object as long as the live vehicle is (the store keeps an unchanged
 * vehicle's object): the map layer then rebuilds only the features of the vehicles that changed.
 */
const mapVehicles = new WeakMap<LiveVehicle, MapVehicle>();
function toMapVehicle(v: LiveVehicle & { lat: number; lon: number }): MapVehicle {
  let m = mapVehicles.get(v);
  if (!m) {
    m = { id: v.carId, position: [v.lon, v.lat], state: v.state, online: v.online, alarm: v.alarms.length > 0, direction: v.direction };
    mapVehicles.set(v, m);
  }
  return m;
}

/** Re-renders every `ms` (for "n s ago" texts). */
function useTick(ms: number): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    // a transition: React renders it in slices, between which the page stays responsive
    const timer = setInterval(() => startTransition(() => setTick((n) => n + 1)), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return tick;
}

function StateTag({ v, t }: { v: LiveVehicle; t: TFunction }) {
  if (!v.online) return <Tag>{t('monitor.offline')}</Tag>;
  return <Tag color={STATE_COLORS[v.state] ?? 'default'}>{t(`monitor.state.${v.state}`, { defaultValue: v.state })}</Tag>;
}

function Age({ time, now, offset, t }: { time: string | null | undefined; now: number; offset: number; t: TFunction }) {
  const seconds = ageSeconds(time, now, offset);
  if (seconds === null) return <>-</>;
  const { value, unit } = ageParts(seconds);
  return <>{t(`monitor.ago.${unit}`, { n: value })}</>;
}

function FeedBadge({ status, t }: { status: FeedStatus; t: TFunction }) {
  const badge = status === 'open' ? 'success' : status === 'connecting' ? 'processing' : 'error';
  return <Badge status={badge} text={t(`monitor.feed.${status}`)} data-testid="feed-status" />;
}

/** The terminal's parameters, asked for when the dialog opens (the answer comes back through the command log). */
function ParametersDialog({ vehicle, onClose }: { vehicle: LiveVehicle; onClose: () => void }) {
  const { t } = useTranslation();
  const query = useQuery({
    queryKey: ['terminal-params', vehicle.carId],
    queryFn: () => queryParameters(vehicle.carId),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
  const command: CommandView | undefined = query.data ?? undefined;
  const params = answeredParams(command);
  let body;
  if (query.isPending) {
    body = (
      <div className="monitor-params-wait">
        <Spin />
        <Typography.Text type="secondary">{t('monitor.params.waiting')}</Typography.Text>
      </div>
    );
  } else if (query.isError) {
    body = <Result status="error" title={t('monitor.params.failed')} subTitle={query.error.message} />;
  } else if (command && command.status !== 'acknowledged') {
    body = (
      <Result
        status={command.status === 'pending' || command.status === 'sent' ? 'info' : 'warning'}
        title={t(`monitor.params.status.${command.status}`, { defaultValue: command.status })}
        subTitle={command.error ?? t('monitor.params.later')}
      />
    );
  } else {
    body = (
      <Table
        size="small"
        rowKey="id"
        pagination={false}
        scroll={{ y: 420 }}
        dataSource={params}
        columns={[
          { title: t('monitor.params.id'), dataIndex: 'id', width: 90 },
          { title: t('monitor.params.name'), dataIndex: 'name', render: (name: string) => t(`monitor.paramNames.${name}`, { defaultValue: name }) },
          { title: t('monitor.params.value'), dataIndex: 'value', render: (value: unknown) => (typeof value === 'object' ? JSON.stringify(value) : String(value)) },
        ]}
      />
    );
  }
  return (
    <Modal
      open
      title={t('monitor.params.title', { carNo: vehicle.carNo ?? vehicle.deviceNumber })}
      onCancel={onClose}
      width={640}
      footer={[
        <Button key="again" disabled={query.isFetching} onClick={() => void query.refetch()}>
          {t('monitor.params.again')}
        </Button>,
        <Button key="close" type="primary" onClick={onClose}>
          {t('common.close')}
        </Button>,
      ]}
    >
      {body}
    </Modal>
  );
}

interface DetailProps {
  vehicle: LiveVehicle;
  offset: number;
  now: number;
  showTrack: boolean;
  trackInfo: { count: number; truncated: boolean; loading: boolean } | null;
  canCommand: boolean;
  onTrack: (on: boolean) => void;
  onClose: () => void;
  onLocate: () => void;
}

/** The selected vehicle: its live state (feed) and what only the server knows (driver, mileage, lock, last seen). */
function VehicleCard({ vehicle, offset, now, showTrack, trackInfo, canCommand, onTrack, onClose, onLocate }: DetailProps) {
  const { t } = useTranslation();
  const [params, setParams] = useState(false);
  const detail = useQuery({
    queryKey: ['vehicle-live', vehicle.carId],
    queryFn: () => getVehicleDetail(vehicle.carId),
    refetchInterval: 10_000,
  });
  const d = detail.data;
  const unit = (value: number | null | undefined, u: string, digits = 1) =>
    value === null || value === undefined ? '-' : `${value.toFixed(digits)} ${u}`;
  return (
    <Card
      size="small"
      className="monitor-card"
      data-testid="vehicle-card"
      title={
        <Space>
          <span>{vehicle.carNo ?? vehicle.deviceNumber}</span>
          <StateTag v={vehicle} t={t} />
        </Space>
      }
      extra={<Button type="text" size="small" icon={<CloseOutlined />} aria-label={t('common.close')} onClick={onClose} />}
    >
      {vehicle.alarms.length > 0 && (
        <div className="monitor-card-alarms">
          {vehicle.alarms.map((kind) => (
            <Tag color="error" key={kind}>
              {t(`monitor.alarm.${kind}`, { defaultValue: kind })}
            </Tag>
          ))}
        </div>
      )}
      <Descriptions
        size="small"
        column={1}
        items={[
          { key: 'device', label: t('vehicle.deviceNumber'), children: vehicle.deviceNumber ?? '-' },
          { key: 'speed', label: t('monitor.speed'), children: unit(vehicle.speed, 'km/h') },
          { key: 'load', label: t('monitor.load'), children: unit(vehicle.loadKg, 'kg', 0) },
          { key: 'soc', label: t('monitor.soc'), children: vehicle.soc === null ? '-' : `${Math.round(vehicle.soc)} %` },
          { key: 'driver', label: t('monitor.driver'), children: d?.driverName ?? '-' },
          { key: 'lock', label: t('monitor.lock'), children: d?.lockLevel ? t(`monitor.lockLevel.l${d.lockLevel}`) : t('monitor.unlocked') },
          { key: 'mileage', label: t('vehicle.mileage'), children: unit(d?.mileage, 'km') },
          {
            key: 'position',
            label: t('monitor.position'),
            children: hasPosition(vehicle) ? `${vehicle.lat.toFixed(6)}, ${vehicle.lon.toFixed(6)}` : '-',
          },
          { key: 'address', label: t('address.label'), children: <Address lat={vehicle.lat} lon={vehicle.lon} /> },
          {
            key: 'time',
            label: t('monitor.gpsTime'),
            children: (
              <Tooltip title={<Age time={vehicle.gpsTime} now={now} offset={offset} t={t} />}>
                <span>{vehicle.gpsTime ?? '-'}</span>
              </Tooltip>
            ),
          },
          { key: 'seen', label: t('monitor.lastSeen'), children: d?.lastSeen ?? '-' },
        ]}
      />
      {showTrack && trackInfo && !trackInfo.loading && (
        <Typography.Text type="secondary" className="monitor-track-info">
          {trackInfo.count === 0 ? t('monitor.track.empty') : t('monitor.track.count', { n: trackInfo.count })}
          {trackInfo.truncated ? ` ${t('monitor.track.truncated')}` : ''}
        </Typography.Text>
      )}
      <Space wrap className="monitor-card-actions">
        <Button size="small" icon={<AimOutlined />} onClick={onLocate} disabled={!hasPosition(vehicle)}>
          {t('monitor.locate')}
        </Button>
        <Button
          size="small"
          icon={<NodeIndexOutlined />}
          type={showTrack ? 'primary' : 'default'}
          loading={showTrack && !!trackInfo?.loading}
          onClick={() => onTrack(!showTrack)}
        >
          {t('monitor.track.today')}
        </Button>
        {canCommand && (
          <Button size="small" icon={<SettingOutlined />} disabled={!vehicle.online} onClick={() => setParams(true)}>
            {t('monitor.params.query')}
          </Button>
        )}
      </Space>
      {params && <ParametersDialog vehicle={vehicle} onClose={() => setParams(false)} />}
    </Card>
  );
}

/**
 * One line of 实时报警. Plain elements but the tag, and memoised: with a busy fleet new alarms come every second, and
 * then only the new line mounts and the oldest unmounts (50 antd list items with tooltips, re-rendered and committed
 * for each, made the page's longest tasks while the feed streamed).
 */
const AlarmRow = memo(
  function AlarmRow({ entry: e, onSelect }: { entry: AlarmEntry; onSelect: (id: string) => void }) {
    const { t } = useTranslation();
    return (
      <li>
        {/* a button: reached with the keyboard (Tab) and opened with Enter or Space, as with the mouse */}
        <button type="button" className="monitor-event" onClick={() => onSelect(e.carId)} data-testid="alarm-entry">
          <span className="monitor-event-what">
            <Tag color="error">{t(`monitor.alarm.${e.kind}`, { defaultValue: e.kind })}</Tag>
            <span>{e.carNo ?? e.carId}</span>
          </span>
          <span className="monitor-event-time" title={e.current ? t('monitor.alarmOngoing') : undefined}>
            {(e.time ?? '-').slice(11) || '-'}
          </span>
        </button>
      </li>
    );
  },
  (a, b) => a.onSelect === b.onSelect && sameEntry(a.entry, b.entry),
);

/** 实时报警: the vehicles in alarm when the page opened, and the alarms that came since on top. */
const AlarmList = memo(
  function AlarmList({ entries, onSelect }: { entries: AlarmEntry[]; onSelect: (id: string) => void }) {
    const { t } = useTranslation();
    if (entries.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('monitor.noEvents')} />;
    return (
      <ul className="monitor-event-list">
        {entries.slice(0, 50).map((e) => (
          <AlarmRow key={e.key} entry={e} onSelect={onSelect} />
        ))}
      </ul>
    );
  },
  // the list is re-rendered only when what it shows changed, not on every update of the fleet
  (a, b) => a.onSelect === b.onSelect && sameEntries(a.entries, b.entries),
);

function sameEntry(a: AlarmEntry, b: AlarmEntry): boolean {
  return a.key === b.key && a.time === b.time && a.carNo === b.carNo && a.kind === b.kind && a.current === b.current && a.carId === b.carId;
}

/** The first 50 entries (what the list shows) say the same. */
function sameEntries(a: AlarmEntry[], b: AlarmEntry[]): boolean {
  const n = Math.min(50, a.length);
  if (n !== Math.min(50, b.length)) return false;
  for (let i = 0; i < n; i += 1) if (!sameEntry(a[i], b[i])) return false;
  return true;
}

/** The tabs by state with their counts, and the search: re-rendered when a count, the tab or the text changes. */
const FilterBar = memo(function FilterBar({
  filter,
  counts,
  text,
  onFilter,
  onText,
}: {
  filter: Filter;
  counts: Record<Filter, number>;
  text: string;
  onFilter: (f: Filter) => void;
  onText: (text: string) => void;
}) {
  const { t } = useTranslation();
  const options = useMemo(() => FILTERS.map((f) => ({ value: f, label: `${t(`monitor.filter.${f}`)} ${counts[f]}` })), [counts, t]);
  return (
    <>
      <Radio.Group
        size="small"
        className="monitor-filters"
        optionType="button"
        buttonStyle="solid"
        value={filter}
        onChange={(e) => onFilter(e.target.value as Filter)}
        options={options}
      />
      <Input.Search
        allowClear
        size="small"
        placeholder={t('monitor.searchPlaceholder')}
        value={text}
        onChange={(e) => onText(e.target.value)}
        className="monitor-search"
      />
    </>
  );
});

/** The map with the fleet, a track, and where to fly: re-rendered when one of them changes, not with the list. */
const MonitorMap = memo(function MonitorMap({
  vehicles,
  selected,
  onSelect,
  track,
  trackBounds,
  flyTarget,
}: {
  vehicles: MapVehicle[];
  selected: string | null;
  onSelect: (id: string) => void;
  track: LonLat[] | null;
  trackBounds: [LonLat, LonLat] | null;
  flyTarget: { at: LonLat; n: number } | null;
}) {
  return (
    // no symbol fades: the fleet changes every second, and each fade would redraw the map for its length
    <MapView fadeDuration={0}>
      <VehiclesLayer vehicles={vehicles} selected={selected} onSelect={onSelect} />
      {track && <TrackLayer points={track} />}
      {/* the fleet's extent is fitted by the vehicles' layer when they first arrive; a track's here */}
      <FitBounds bounds={trackBounds} />
      <FlyTo target={flyTarget?.at ?? null} token={flyTarget?.n ?? 0} />
    </MapView>
  );
});

/**
 * Height of an element, kept current (the virtual table needs a number). The first one comes from the observer too,
 * once the browser has laid the page out: read at mount (`clientHeight`), it made the browser lay out the whole new
 * page inside the commit that mounts it, a third of that task.
 */
function useHeight<T extends HTMLElement>(): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [height, setHeight] = useState(400);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    // (called after layout: reading the height there costs nothing)
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, height];
}

/**
 * Real-time monitoring: every vehicle of the user's scope on a map and in a list, as the live feed reports them
 * (at most one update per vehicle per second); a vehicle's card shows what it is doing, its track of today, and
 * lets an authorised user ask its terminal for its parameters.
 */
export default function LiveMonitor() {
  const { t } = useTranslation();
  const { live, status } = useLive();
  const { offset, now } = useServerClock();
  useTick(5000);
  const { can } = useAccess();
  const [filter, setFilter] = useState<Filter>('all');
  const [text, setText] = useState('');
  // ?carId= (an alarm's 在监控中查看): that vehicle selected, and the map flies to it once its state is known
  const [query] = useSearchParams();
  const [selected, setSelected] = useState<string | null>(() => query.get('carId'));
  const asked = useRef(query.get('carId'));
  const [flyTarget, setFlyTarget] = useState<{ at: LonLat; n: number } | null>(null);
  const [showTrack, setShowTrack] = useState(false);
  // today, as of when the track was asked for
  const [period, setPeriod] = useState<{ beginTime: string; endTime: string } | null>(null);
  const [listRef, listHeight] = useHeight<HTMLDivElement>();

  // what every part shows of a live batch, derived once per batch: sorted once (later updates keep the order, see
  // sortedFleet), the counts by tab (the same object while they hold), the alarms named by car number
  const [view] = useState(() => new FleetView());
  const { all, counts, alarms } = useMemo(() => view.derive(live.vehicles, live.events), [view, live.vehicles, live.events]);
  const rows = useMemo(() => filterVehicles(all, filter, text), [all, filter, text]);
  const onMap: MapVehicle[] = useMemo(() => rows.filter(hasPosition).map(toMapVehicle), [rows]);
  const vehicle = selected ? (live.vehicles.get(selected) ?? null) : null;
  const track = useQuery({
    queryKey: ['track', selected, period],
    queryFn: () => getTrack(selected!, period!.beginTime, period!.endTime),
    enabled: !!selected && showTrack && !!period,
    staleTime: 60_000,
  });
  const trackPoints: LonLat[] = useMemo(() => (track.data?.points ?? []).map((p) => [p.lon, p.lat] as LonLat), [track.data]);
  const trackBounds = useMemo(() => (showTrack && trackPoints.length > 1 ? boundsOf(trackPoints) : null), [showTrack, trackPoints]);

  const vehiclesNow = useRef(live.vehicles);
  useEffect(() => {
    vehiclesNow.current = live.vehicles;
  });
  useEffect(() => {
    const id = asked.current;
    const v = id ? live.vehicles.get(id) : undefined;
    if (v && hasPosition(v)) {
      asked.current = null;
      setFlyTarget({ at: [v.lon, v.lat], n: Date.now() });
    }
  }, [live.vehicles, live.version]);
  const select = useCallback((id: string, fly: boolean) => {
    setSelected(id);
    setShowTrack(false);
    const v = vehiclesNow.current.get(id);
    if (fly && v && hasPosition(v)) setFlyTarget({ at: [v.lon, v.lat], n: Date.now() });
  }, []);
  const selectFromList = useCallback((id: string) => select(id, true), [select]);
  const selectOnMap = useCallback((id: string) => select(id, false), [select]);
  const nowMs = now();
  const describe = useCallback(
    (v: LiveVehicle): RowText => {
      const seconds = ageSeconds(v.gpsTime, nowMs, offset);
      const age = seconds === null ? '-' : (({ value, unit }) => t(`monitor.ago.${unit}`, { n: value }))(ageParts(seconds));
      if (!v.online) return { state: t('monitor.offline'), color: undefined, age };
      return { state: t(`monitor.state.${v.state}`, { defaultValue: v.state }), color: STATE_COLORS[v.state] ?? 'default', age };
    },
    [nowMs, offset, t],
  );
  const canCommand = can(QUERY_CONFIG_BUTTON);
  const noVehicles = status === 'open' && live.version > 0 && all.length === 0;

  return (
    <div className="page monitor-page">
      <Card className="monitor-panel" size="small" title={t('monitor.title')} extra={<FeedBadge status={status} t={t} />}>
        <FilterBar filter={filter} counts={counts} text={text} onFilter={setFilter} onText={setText} />
        <div className="monitor-list" ref={listRef}>
          {status !== 'open' && live.version === 0 ? (
            <div className="monitor-list-wait">
              <Spin />
            </div>
          ) : noVehicles ? (
            <Empty description={t('monitor.noVehicles')} />
          ) : (
            <VehicleList rows={rows} selected={selected} reveal={selected} height={listHeight} onSelect={selectFromList} t={t} describe={describe} />
          )}
        </div>
        <Typography.Title level={5} className="monitor-events-title">
          {t('monitor.events')}
        </Typography.Title>
        <div className="monitor-events">
          <AlarmList entries={alarms} onSelect={selectFromList} />
        </div>
      </Card>
      <div className="monitor-map">
        {status === 'closed' && live.version > 0 && (
          <Alert className="monitor-map-alert" type="warning" showIcon title={t('monitor.feed.reconnecting')} />
        )}
        <MonitorMap
          vehicles={onMap}
          selected={selected}
          onSelect={selectOnMap}
          track={showTrack ? trackPoints : null}
          trackBounds={trackBounds}
          flyTarget={flyTarget}
        />
        {vehicle && (
          <VehicleCard
            vehicle={vehicle}
            offset={offset}
            now={nowMs}
            showTrack={showTrack}
            trackInfo={showTrack ? { count: track.data?.count ?? 0, truncated: !!track.data?.truncated, loading: track.isFetching } : null}
            canCommand={canCommand}
            onTrack={(on) => {
              if (on) setPeriod(todayPeriod(now(), offset));
              setShowTrack(on);
            }}
            onClose={() => {
              setSelected(null);
              setShowTrack(false);
            }}
            onLocate={() => hasPosition(vehicle) && setFlyTarget({ at: [vehicle.lon, vehicle.lat], n: Date.now() })}
          />
        )}
      </div>
    </div>
  );
}
