import { useEffect, useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, DatePicker, Empty, Input, Segmented, Slider, Spin, Table, Tabs, Tag, Tree, Tooltip } from 'antd';
import { CaretRightOutlined, PauseOutlined, SearchOutlined } from '@ant-design/icons';
import type { DataNode } from 'antd/es/tree';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { apiGet } from '../../api/client';
import type { components } from '../../api/schema';
import { useServerClock } from '../../data/useServerClock';
import { Address } from '../../components/address/Address';
import MapView from '../../map/MapView';
import { FitBounds } from '../../map/FitBounds';
import { PointsLayer, type MapPoint } from '../../map/PointsLayer';
import { TrackLayer } from '../../map/TrackLayer';
import { useMapContext } from '../../map/context';
import { webglLayer } from '../../map/webglGate';
import { boundsOf, type LonLat } from '../../map/geo';
import { formatZoned } from '../../data/serverTime';
import { todayPeriod, zonedMs } from '../monitor/monitor';
import { advance, formatDuration, positionAt, shares, SPEEDS, type Speed, type TimedPoint } from './playback';

type Schemas = components['schemas'];
type TreeNode = Schemas['CarTreeNode'];
type Alarm = Schemas['AlarmItem'];
type Stop = Schemas['Stop'];

const P = '/api/blade-fics-report/fics/positionTrailing';
const FORMAT = 'YYYY-MM-DD HH:mm:ss';
const MAX_DAYS = 7;
const PHASE_COLORS: Record<string, string> = { off: '#bfbfbf', idle: '#faad14', moving: '#1677ff', loaded: '#52c41a', none: '#f0f0f0' };

function toTree(nodes: TreeNode[]): DataNode[] {
  return nodes.map((n) => ({
    key: n.id,
    title: n.title,
    selectable: n.type === 'car',
    isLeaf: n.type === 'car',
    children: n.type === 'car' ? undefined : toTree(n.children ?? []),
  }));
}

/** Why a period is refused, as the server would say it (i18n key and values), or null. */
function periodProblem(range: [Dayjs, Dayjs] | null): { key: string; days?: number } | null {
  if (!range) return { key: 'report.rangeRequired' };
  if (!range[0].isBefore(range[1])) return { key: 'track.rangeOrder' };
  if (range[1].diff(range[0], 'second') > MAX_DAYS * 86_400) return { key: 'report.rangeTooLong', days: MAX_DAYS };
  return null;
}

/** Asks for the track again when the user zooms by a level or more (the server simplifies it for the zoom). */
const ZoomWatcher = webglLayer(function ZoomWatcher({ onZoom }: { onZoom: (zoom: number) => void }) {
  const { map } = useMapContext();
  const report = useRef(onZoom);
  useEffect(() => {
    report.current = onZoom;
  });
  useEffect(() => {
    const ended = () => report.current(Math.round(map.getZoom()));
    map.on('zoomend', ended);
    ended();
    return () => {
      map.off('zoomend', ended);
    };
  }, [map]);
  return null;
});

/** The period a link names (both ends, in the page's format), else null. */
function linkedPeriod(query: URLSearchParams): { beginTime: string; endTime: string } | null {
  const beginTime = query.get('beginTime');
  const endTime = query.get('endTime');
  const valid = (s: string | null): s is string => !!s && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(s) && dayjs(s).isValid();
  return valid(beginTime) && valid(endTime) ? { beginTime, endTime } : null;
}

/**
 * 轨迹回放: pick a vehicle and a period (up to 7 days); its track plays back on the map (1×: a minute of track per
 * second, up to 16×; pause, seek), with its stops and alarms marked and the phases of the period on a timeline.
 * The server sends the track simplified for the map's zoom (at most 2,000 points).
 */
export default function TrackPlayback() {
  const { t } = useTranslation();
  const { offset, now } = useServerClock();
  const [search, setSearch] = useState('');
  // ?carId=&beginTime=&endTime= (an alarm's 查看轨迹): that vehicle's track of that period, shown at once
  const [query] = useSearchParams();
  const linked = linkedPeriod(query);
  const [carId, setCarId] = useState<string | null>(() => query.get('carId'));
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(() => {
    if (linked) return [dayjs(linked.beginTime, FORMAT), dayjs(linked.endTime, FORMAT)];
    const today = todayPeriod(Date.now(), offset);
    return [dayjs(today.beginTime, FORMAT), dayjs(today.endTime, FORMAT)];
  });
  const [asked, setAsked] = useState<{ beginTime: string; endTime: string } | null>(() => (query.get('carId') ? linked : null));
  const [zoom, setZoom] = useState<number | null>(null);
  const [speed, setSpeed] = useState<Speed>(4);
  const [playing, setPlaying] = useState(false);
  const [cursor, setCursor] = useState(0);
  const problem = periodProblem(range);

  const tree = useQuery({
    queryKey: ['track-tree', search],
    queryFn: () => apiGet(`${P}/mechanismCarTree`, search ? { carNo: search } : {}),
  });
  const params = carId && asked ? { carId, ...asked } : null;
  const track = useQuery({
    queryKey: ['track-playback', params, zoom],
    queryFn: () => apiGet(`${P}/positionTrailing`, { ...params!, ...(zoom === null ? {} : { zoom }) }),
    enabled: !!params,
    placeholderData: (previous) => previous,
  });
  const phases = useQuery({ queryKey: ['track-phases', params], queryFn: () => apiGet(`${P}/phaseData`, params!), enabled: !!params });
  const alarms = useQuery({ queryKey: ['track-alarms', params], queryFn: () => apiGet(`${P}/alarmDetail`, params!), enabled: !!params });

  const points: TimedPoint[] = useMemo(
    () =>
      (track.data?.points ?? []).flatMap((p) => {
        const at = zonedMs(p.gpsTime, offset);
        return at === null ? [] : [{ t: at, position: [p.lon, p.lat] as LonLat, speed: p.speed, direction: p.direction }];
      }),
    [track.data, offset],
  );
  const line = useMemo(() => points.map((p) => p.position), [points]);
  const start = zonedMs(asked?.beginTime, offset) ?? 0;
  const end = zonedMs(asked?.endTime, offset) ?? 0;
  const first = points[0]?.t ?? start;
  const last = points[points.length - 1]?.t ?? end;
  // a new track: the cursor goes to its start, paused (state reset while rendering, as React advises)
  const trackKey = `${params?.carId}|${params?.beginTime}|${params?.endTime}|${first}`;
  const [shownKey, setShownKey] = useState(trackKey);
  if (shownKey !== trackKey) {
    setShownKey(trackKey);
    setCursor(first);
    setPlaying(false);
  }

  // playback: the cursor moves with the clock while playing (about 10 updates a second)
  useEffect(() => {
    if (!playing) return;
    let previous = performance.now();
    const timer = window.setInterval(() => {
      const at = performance.now();
      setCursor((c) => {
        const next = advance(c, at - previous, speed, last);
        if (next.ended) setPlaying(false);
        return next.cursor;
      });
      previous = at;
    }, 100);
    return () => window.clearInterval(timer);
  }, [playing, speed, last]);

  const here = positionAt(points, cursor);
  const marker: MapPoint[] = here ? [{ id: 'here', position: here.position, label: '' }] : [];
  const stops: MapPoint[] = useMemo(
    () => (track.data?.stops ?? []).map((s, i) => ({ id: `stop-${i}`, position: [s.lon, s.lat] as LonLat, label: formatDuration(s.durationS) })),
    [track.data],
  );
  const alarmPoints: MapPoint[] = useMemo(
    () =>
      (alarms.data ?? [])
        .filter((a) => typeof a.lat === 'number' && typeof a.lon === 'number')
        .map((a) => ({ id: `alarm-${a.id}`, position: [a.lon!, a.lat!] as LonLat, label: a.kind })),
    [alarms.data],
  );
  // the view fits the track once per vehicle and period (not on a zoom's refetch)
  const fitKey = `${params?.carId}-${params?.beginTime}-${params?.endTime}-${line.length > 1}`;
  const bounds = useMemo(() => (line.length > 1 ? boundsOf(line) : null), [fitKey]); // eslint-disable-line react-hooks/exhaustive-deps

  const seekTo = (time: string) => {
    const at = zonedMs(time, offset);
    if (at !== null) setCursor(at);
  };
  const show = () => {
    if (!range || problem) return;
    const clock = formatZoned(now(), offset);
    const endText = range[1].format(FORMAT);
    // never past now (the picker's end may be later today)
    const nowText = `${clock.date} ${clock.time}`;
    setAsked({ beginTime: range[0].format(FORMAT), endTime: endText > nowText ? nowText : endText });
  };
  const alarmLabel = (kind: string) => t(`monitor.alarm.${kind}`, { defaultValue: kind });

  const stopColumns = [
    { title: t('track.stopBegin'), dataIndex: 'beginTime', key: 'b' },
    { title: t('track.stopEnd'), dataIndex: 'endTime', key: 'e' },
    { title: t('track.duration'), dataIndex: 'durationS', key: 'd', render: (s: number) => formatDuration(s) },
    { title: t('address.label'), key: 'a', render: (_: unknown, s: Stop) => <Address lat={s.lat} lon={s.lon} /> },
  ];
  const alarmColumns = [
    { title: t('track.alarmKind'), dataIndex: 'kind', key: 'k', render: (k: string) => <Tag color="red">{alarmLabel(k)}</Tag> },
    { title: t('track.level'), dataIndex: 'level', key: 'l' },
    { title: t('track.alarmTime'), dataIndex: 'beginTime', key: 't' },
    {
      title: t('track.value'),
      key: 'v',
      render: (_: unknown, a: Alarm) => (a.value ?? a.maxValue ?? '') + (a.limitValue != null ? ` / ${a.limitValue}` : ''),
    },
  ];
  const spans = phases.data?.spans ?? [];
  const widths = shares(spans, 0.2);
  const cursorText = here ? formatZoned(cursor, offset) : null;

  return (
    <div className="track-page" data-testid="track-page">
      <aside className="track-side">
        <Input.Search
          allowClear
          placeholder={t('track.searchCar')}
          onSearch={(v) => setSearch(v.trim())}
          enterButton={<SearchOutlined />}
          data-testid="track-search"
        />
        <Spin spinning={tree.isFetching}>
          {!tree.data ? null : tree.data.length === 0 ? (
            <Empty description={t('track.noVehicles')} />
          ) : (
            // mounted once the tree is there, so that it opens expanded (again for each search)
            <Tree
              className="track-tree"
              defaultExpandAll
              key={search}
              treeData={toTree(tree.data ?? [])}
              selectedKeys={carId ? [`car-${carId}`] : []}
              onSelect={(keys) => {
                const key = String(keys[0] ?? '');
                if (key.startsWith('car-')) setCarId(key.slice(4));
              }}
            />
          )}
        </Spin>
      </aside>
      <section className="track-main">
        <div className="track-toolbar">
          <span data-testid="track-range">
            <DatePicker.RangePicker
              showTime
              value={range}
              format={FORMAT}
              onChange={(v) => setRange(v && v[0] && v[1] ? [v[0], v[1]] : null)}
              status={problem ? 'error' : undefined}
            />
          </span>
          <Button type="primary" disabled={!carId || !!problem} onClick={show} data-testid="track-show">
            {t('track.show')}
          </Button>
          {problem && <span className="track-problem">{t(problem.key, { days: problem.days })}</span>}
          {!carId && <span className="track-hint">{t('track.pickCar')}</span>}
        </div>
        {track.error && <Alert type="error" showIcon title={String((track.error as Error).message)} />}
        {track.data?.truncated && <Alert type="warning" showIcon title={t('track.truncated')} />}
        <div className="track-map">
          <MapView>
            {line.length > 0 && <TrackLayer points={line} />}
            <PointsLayer points={stops} color="#fa8c16" />
            <PointsLayer points={alarmPoints} color="#f5222d" />
            <PointsLayer points={marker} color="#1677ff" />
            <FitBounds bounds={bounds} />
            <ZoomWatcher onZoom={(z) => params && setZoom(z)} />
          </MapView>
          {params && track.isFetched && points.length === 0 && (
            <div className="track-empty">
              <Empty description={t('track.noPoints')} />
            </div>
          )}
        </div>
        <div className="track-controls">
          <Button
            shape="circle"
            icon={playing ? <PauseOutlined /> : <CaretRightOutlined />}
            disabled={points.length < 2}
            aria-label={playing ? t('track.pause') : t('track.play')}
            data-testid="track-play"
            onClick={() => {
              if (!playing && cursor >= last) setCursor(first);
              setPlaying(!playing);
            }}
          />
          <Segmented
            size="small"
            value={speed}
            options={SPEEDS.map((s) => ({ label: `${s}×`, value: s }))}
            onChange={(v) => setSpeed(v as Speed)}
            data-testid="track-speed"
          />
          <Slider
            className="track-slider"
            min={first}
            max={Math.max(first + 1, last)}
            value={Math.min(Math.max(cursor, first), last)}
            disabled={points.length < 2}
            tooltip={{ formatter: (v) => (v ? formatZoned(v, offset).time : '') }}
            onChange={(v) => setCursor(v)}
          />
          <span className="track-now" data-testid="track-now">
            {cursorText ? `${cursorText.date} ${cursorText.time}` : '—'}
            {here ? ` · ${here.speed.toFixed(1)} km/h` : ''}
          </span>
        </div>
        {spans.length > 0 && (
          <div className="track-phases" data-testid="track-phases">
            {spans.map((s, i) => (
              <Tooltip key={`${s.beginTime}-${i}`} title={`${t(`track.phase.${s.state}`)} ${s.beginTime} – ${s.endTime} (${formatDuration(s.durationS)})`}>
                <span
                  className="track-phase"
                  data-state={s.state}
                  style={{ width: `${widths[i]}%`, background: PHASE_COLORS[s.state] }}
                  onClick={() => seekTo(s.beginTime)}
                />
              </Tooltip>
            ))}
          </div>
        )}
        {phases.data && (
          <div className="track-legend">
            {Object.entries(phases.data.totals).map(([state, seconds]) => (
              <span key={state} className="track-legend-item" data-state={state}>
                <span className="map-legend-dot" style={{ background: PHASE_COLORS[state] }} />
                {t(`track.phase.${state}`)} {formatDuration(seconds)}
              </span>
            ))}
            {track.data && (
              <span className="track-legend-item">
                {t('track.distance')} {track.data.distanceKm.toFixed(2)} km · {t('track.points', { count: track.data.count, total: track.data.total })}
              </span>
            )}
          </div>
        )}
        {params && (
          <Tabs
            size="small"
            items={[
              {
                key: 'stops',
                label: `${t('track.stops')} (${track.data?.stops.length ?? 0})`,
                children: (
                  <Table<Stop>
                    size="small"
                    rowKey="beginTime"
                    columns={stopColumns}
                    dataSource={track.data?.stops ?? []}
                    pagination={{ pageSize: 5 }}
                    onRow={(s) => ({ onClick: () => seekTo(s.beginTime) })}
                  />
                ),
              },
              {
                key: 'alarms',
                label: `${t('track.alarms')} (${alarms.data?.length ?? 0})`,
                children: (
                  <Table<Alarm>
                    size="small"
                    rowKey="id"
                    columns={alarmColumns}
                    dataSource={alarms.data ?? []}
                    loading={alarms.isFetching}
                    pagination={{ pageSize: 5 }}
                    onRow={(a) => ({ onClick: () => seekTo(a.beginTime) })}
                  />
                ),
              },
            ]}
          />
        )}
      </section>
    </div>
  );
}
