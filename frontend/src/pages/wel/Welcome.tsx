import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import { useNavigate, useOutletContext } from 'react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Avatar, Button, Card, Col, Descriptions, Empty, Flex, List, Row, Segmented, Spin, Table, Tag, TreeSelect, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { ReloadOutlined, UserOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../api/client';
import type { MenuVO, TreeNode } from '../../api/types';
import { roleNames } from '../../app/roles';
import { greetingKey } from '../../data/serverTime';
import { useServerClock } from '../../data/useServerClock';
import { leafMenus, menuLabel, openMenu } from '../../app/menuUtil';
import { menuIcon } from '../../app/menuIcons';
import { DAY_FORMAT, zonedToday } from '../../components/report/range';
import { dictLabel } from '../../i18n/dictLabel';
import { resolvePage } from '../../app/pages';
import { useSession } from '../../store/session';
import { homeCalls, REFRESH_MS, type HomeAlarm, type HomeFilter, type OfflineTerminal } from './api';
import { HomeReminders } from '../paper/HomeReminders';
import './home.css';

// ECharts is large: the charts load with their own chunk, after the cards
const OnlineTrendChart = lazy(() => import('./OnlineTrendChart'));
const TypeBars = lazy(() => import('./TypeBars'));

type TrendSpan = 'today' | 'week';

/** One number of the fleet (a card): its label, value and what it is out of. */
function Kpi({ id, label, value, extra, tone }: { id: string; label: string; value?: number; extra?: ReactNode; tone?: string }) {
  return (
    <Card variant="borderless" size="small" className={`home-kpi ${tone ?? ''}`} data-testid={`home-kpi-${id}`}>
      <div className="home-kpi-label">{label}</div>
      <div className="home-kpi-value" data-testid={`home-kpi-${id}-value`}>
        {value === undefined ? <Spin size="small" /> : value}
      </div>
      <div className="home-kpi-extra">{extra}</div>
    </Card>
  );
}

/** A count with its label, in a warnings block. */
function Count({ label, value, id }: { label: string; value: number; id: string }) {
  return (
    <div className={`home-count${value > 0 ? ' home-count-on' : ''}`} data-testid={`home-count-${id}`}>
      <span className="home-count-value">{value}</span>
      <span className="home-count-label">{label}</span>
    </div>
  );
}

export default function Welcome() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { userInfo } = useSession();
  const { menus } = useOutletContext<{ menus: MenuVO[] }>();
  const shortcuts = useMemo(() => leafMenus(menus).filter((m) => resolvePage(m.path)).slice(0, 8), [menus]);
  const clock = useServerClock();
  const greeting = clock.known ? t(greetingKey(clock.now(), clock.offset)) : t('wel.hello');
  // the roles' names: the server lists them to the users of 角色管理 or 用户管理 only (the others read their role's
  // alias, named by the seeded roles' names), so the others do not ask for them (an answer of 403 in the console)
  const mayReadRoles = useMemo(() => leafMenus(menus).some((m) => m.code === 'role' || m.code === 'user'), [menus]);
  const roleTree = useQuery({
    queryKey: ['role-names'],
    queryFn: () => apiGet('/api/blade-system/role/tree', undefined, { silent: true }),
    enabled: mayReadRoles,
    retry: false,
    staleTime: 5 * 60_000,
  });
  const roles = roleNames(userInfo?.role_id, userInfo?.role_name, roleTree.data, t).join(', ');
  const name = userInfo?.real_name || userInfo?.nick_name || userInfo?.user_name || '';

  const [deptId, setDeptId] = useState<string | undefined>();
  const [span, setSpan] = useState<TrendSpan>('today');
  const [offPage, setOffPage] = useState({ current: 1, size: 5 });
  const filter: HomeFilter = deptId ? { deptId } : {};
  // the organisations the caller may pick (silently absent without the organisation menu)
  const tree = useQuery({
    queryKey: ['home', 'dept-tree'],
    queryFn: () => apiGet('/api/blade-system/dept/tree', undefined, { silent: true }) as Promise<TreeNode[]>,
    retry: false,
    staleTime: 5 * 60_000,
  });
  const live = { refetchInterval: REFRESH_MS, placeholderData: keepPreviousData };
  const overview = useQuery({ queryKey: ['home', 'overview', filter], queryFn: () => homeCalls.overview(filter), ...live });
  const usage = useQuery({ queryKey: ['home', 'usage', filter], queryFn: () => homeCalls.usage(filter), ...live });
  const today = zonedToday(clock.now(), clock.offset);
  const weekStart = today.subtract(6, 'day').format(DAY_FORMAT);
  const trend = useQuery({
    queryKey: ['home', 'trend', filter, span, span === 'week' ? weekStart : ''],
    queryFn: () =>
      span === 'week' ? homeCalls.trend(filter, weekStart, today.format(DAY_FORMAT)) : homeCalls.trend(filter),
    ...live,
  });
  const types = useQuery({ queryKey: ['home', 'types', filter], queryFn: () => homeCalls.byType(filter), ...live });
  const alarms = useQuery({ queryKey: ['home', 'alarms', filter], queryFn: () => homeCalls.alarms(filter), ...live });
  const battery = useQuery({ queryKey: ['home', 'battery', filter], queryFn: () => homeCalls.battery(filter), ...live });
  const recent = useQuery({ queryKey: ['home', 'recent', filter], queryFn: () => homeCalls.recent(filter), ...live });
  const offline = useQuery({ queryKey: ['home', 'offline', filter], queryFn: () => homeCalls.offline(filter), ...live });
  const offList = useQuery({
    queryKey: ['home', 'offline-list', filter, offPage],
    queryFn: () => homeCalls.offlineList(filter, offPage.current, offPage.size),
    ...live,
  });
  // the time of the last reading on the tenant's clock (the server's clock and zone, like every time the app shows)
  const updated = overview.dataUpdatedAt
    ? new Date(overview.dataUpdatedAt + clock.skew + clock.offset * 60_000).toISOString().slice(11, 19)
    : '';
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['home'] });
  const typeNames = (types.data ?? []).map((c) => ({ ...c, carTypeName: dictLabel(t, 'car_type', c.carType, c.carTypeName) }));

  const o = overview.data;
  const u = usage.data;
  const kpis = [
    { id: 'total', label: t('home.kpi.total'), value: o?.total, extra: t('home.kpi.withTerminal', { count: o?.withTerminal ?? 0 }) },
    { id: 'online', label: t('home.kpi.online'), value: o?.online, extra: t('home.kpi.rate', { rate: o?.onlineRate ?? 0 }), tone: 'home-kpi-online' },
    {
      id: 'powered',
      label: t('home.kpi.poweredOn'),
      value: o?.poweredOn,
      extra: t('home.kpi.states', { moving: o?.moving ?? 0, loaded: o?.loaded ?? 0, idle: o?.idle ?? 0 }),
      tone: 'home-kpi-powered',
    },
    { id: 'alarm', label: t('home.kpi.inAlarm'), value: o?.inAlarm, extra: t('home.kpi.alarmsToday', { count: alarms.data?.total ?? 0 }), tone: 'home-kpi-alarm' },
    {
      id: 'terminal-offline',
      label: t('home.kpi.terminalOffline'),
      value: o?.terminalOffline,
      extra: t('home.kpi.anomaly', { count: offline.data?.sevenDaysOrMore ?? 0, days: offline.data?.anomalyDays ?? 7 }),
      tone: 'home-kpi-offline',
    },
  ];

  const offColumns: ColumnsType<OfflineTerminal> = [
    { key: 'carNo', dataIndex: 'carNo', title: t('home.offline.carNo'), fixed: 'left', width: 120 },
    { key: 'deviceNumber', dataIndex: 'deviceNumber', title: t('home.offline.deviceNumber'), width: 140 },
    { key: 'deptName', dataIndex: 'deptName', title: t('home.offline.dept'), width: 140, render: (v: string) => v || '-' },
    {
      key: 'carType',
      title: t('home.offline.carType'),
      width: 130,
      render: (_: unknown, r) => dictLabel(t, 'car_type', r.carType, r.carTypeName ?? ''),
    },
    { key: 'lastSeen', dataIndex: 'lastSeen', title: t('home.offline.lastSeen'), width: 170, render: (v?: string | null) => v || t('home.offline.never') },
    {
      key: 'silentDays',
      dataIndex: 'silentDays',
      title: t('home.offline.silentDays'),
      width: 110,
      render: (v?: number | null) => (v === null || v === undefined ? '-' : v),
    },
  ];

  const a = alarms.data;
  const b = battery.data;
  return (
    <div className="page wel-page home-page">
      <Card variant="borderless" className="wel-hero">
        <Flex wrap gap={16} align="center" justify="space-between">
          <div className="wel-hero-inner">
            <Avatar size={48} src={userInfo?.avatar || undefined} icon={<UserOutlined />} />
            <div>
              <Typography.Title level={3} style={{ margin: 0 }}>
                {greeting}, {name}
              </Typography.Title>
              <Descriptions
                className="home-account"
                size="small"
                column={{ xs: 1, sm: 3 }}
                items={[
                  { key: 'account', label: t('wel.accountName'), children: userInfo?.account || userInfo?.user_name || '-' },
                  { key: 'tenant', label: t('wel.tenant'), children: userInfo?.tenant_id || '-' },
                  { key: 'role', label: t('wel.roles'), children: roles || '-' },
                ]}
              />
            </div>
          </div>
          <Flex wrap gap={8} align="center" className="home-filters">
            {tree.data && tree.data.length > 0 && (
              <TreeSelect
                allowClear
                showSearch={{ treeNodeFilterProp: 'title' }}
                treeData={tree.data}
                treeDefaultExpandAll
                value={deptId}
                onChange={(v: string | undefined) => {
                  setDeptId(v || undefined);
                  setOffPage((p) => ({ ...p, current: 1 }));
                }}
                placeholder={t('home.allOrganisations')}
                aria-label={t('report.organisation')}
                className="home-org"
                styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
              />
            )}
            <Button icon={<ReloadOutlined />} onClick={refresh} aria-label={t('home.refresh')} data-testid="home-refresh">
              {t('home.refresh')}
            </Button>
            {updated && (
              <Typography.Text type="secondary" className="home-updated">
                {t('home.updated', { time: updated })}
              </Typography.Text>
            )}
          </Flex>
        </Flex>
      </Card>

      <Row gutter={[12, 12]} className="home-kpis">
        {kpis.map((k) => (
          <Col key={k.id} xs={24} sm={12} md={8} xl={{ flex: '20%' }}>
            <Kpi {...k} />
          </Col>
        ))}
      </Row>

      <Row gutter={[12, 12]}>
        <Col xs={24} lg={16}>
          <Card
            variant="borderless"
            size="small"
            title={t('home.trend.title')}
            className="home-card"
            extra={
              <Segmented<TrendSpan>
                size="small"
                value={span}
                onChange={setSpan}
                options={[
                  { value: 'today', label: t('home.trend.today') },
                  { value: 'week', label: t('home.trend.week') },
                ]}
              />
            }
          >
            {u && (
              <Typography.Text type="secondary" className="home-usage" data-testid="home-usage">
                {t('home.usage', {
                  vehicles: u.poweredOnVehicles,
                  boot: u.bootHours,
                  work: u.workHours,
                  rate: u.utilisation,
                })}
              </Typography.Text>
            )}
            <Suspense fallback={<Spin />}>{trend.data ? <OnlineTrendChart trend={trend.data} /> : <Spin />}</Suspense>
            <Typography.Text type="secondary" className="home-note">
              {t('home.trend.note')}
            </Typography.Text>
          </Card>
        </Col>
        <Col xs={24} lg={8}>
          <Card variant="borderless" size="small" title={t('home.types.title')} className="home-card">
            <Suspense fallback={<Spin />}>{types.data ? <TypeBars types={typeNames} /> : <Spin />}</Suspense>
          </Card>
        </Col>
      </Row>

      <Row gutter={[12, 12]}>
        <Col xs={24} lg={12}>
          <Card variant="borderless" size="small" title={t('home.warnings.title')} className="home-card" data-testid="home-warnings">
            {!a || !b ? (
              <Spin />
            ) : (
              <>
                <Typography.Text strong>{t('home.warnings.vehicle', { count: a.total })}</Typography.Text>
                <div className="home-counts">
                  <Count id="collision" label={t('monitor.alarm.collision')} value={a.collision} />
                  <Count id="speeding" label={t('monitor.alarm.speeding')} value={a.speeding} />
                  <Count id="overload" label={t('monitor.alarm.overload')} value={a.overload} />
                  <Count id="fence" label={t('home.warnings.fence')} value={a.fence} />
                  <Count id="fault" label={t('monitor.alarm.fault')} value={a.fault} />
                  <Count id="other" label={t('home.warnings.other')} value={a.other} />
                </div>
                <Typography.Text strong>{t('home.warnings.battery', { count: b.total })}</Typography.Text>
                <div className="home-counts">
                  {b.byKind.map((k) => (
                    <Count key={k.kind} id={k.kind} label={t(`monitor.alarm.${k.kind}`, { defaultValue: k.kind })} value={k.count} />
                  ))}
                  <Count id="low-soc" label={t('home.warnings.lowSoc', { pct: b.lowSocThreshold })} value={b.lowSoc} />
                </div>
                <Typography.Text type="secondary" className="home-note">
                  {t('home.warnings.note', { vehicles: a.vehiclesWithAlarms, open: b.openNow })}
                </Typography.Text>
              </>
            )}
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card variant="borderless" size="small" title={t('home.recent.title')} className="home-card" data-testid="home-recent">
            <List<HomeAlarm>
              size="small"
              loading={recent.isLoading}
              dataSource={recent.data ?? []}
              locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('home.recent.empty')} /> }}
              renderItem={(e) => (
                <List.Item className="home-alarm">
                  <Tag color={e.endTime ? 'default' : 'error'}>{t(`monitor.alarm.${e.kind}`, { defaultValue: e.kind })}</Tag>
                  <span className="home-alarm-car">{e.carNo}</span>
                  <span className="home-alarm-org">{e.deptName}</span>
                  <span className="home-alarm-time">{e.beginTime.slice(11)}</span>
                </List.Item>
              )}
            />
          </Card>
        </Col>
      </Row>

      <HomeReminders />

      <Card variant="borderless" size="small" title={t('home.offline.title')} className="home-card" data-testid="home-offline">
        {offline.data && (
          <Flex wrap gap={8} className="home-offline-groups">
            <Tag>{t('home.offline.neverSeen')}: {offline.data.neverSeen}</Tag>
            <Tag>{t('home.offline.underDay')}: {offline.data.underOneDay}</Tag>
            <Tag>{t('home.offline.week')}: {offline.data.oneToSevenDays}</Tag>
            <Tag color={offline.data.sevenDaysOrMore ? 'error' : undefined}>
              {t('home.offline.anomaly', { days: offline.data.anomalyDays })}: {offline.data.sevenDaysOrMore}
            </Tag>
          </Flex>
        )}
        <Table<OfflineTerminal>
          size="small"
          rowKey="carId"
          columns={offColumns}
          dataSource={offList.data?.records ?? []}
          loading={offList.isLoading}
          scroll={{ x: 800 }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('home.offline.empty')} /> }}
          pagination={{
            current: offPage.current,
            pageSize: offPage.size,
            total: offList.data?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: [5, 10, 30, 50],
            onChange: (current, size) => setOffPage({ current, size }),
          }}
        />
      </Card>

      {shortcuts.length > 0 && (
        <Card variant="borderless" size="small" title={t('wel.shortcuts')} className="home-card home-shortcuts">
          <div className="shortcut-grid">
            {shortcuts.map((m) => (
              <button type="button" key={m.id} className="shortcut" onClick={() => openMenu(m, (to) => void navigate(to))}>
                <span className="shortcut-icon">{menuIcon(m.code, m.source, true)}</span>
                <span className="shortcut-label">{menuLabel(t, m)}</span>
              </button>
            ))}
          </div>
        </Card>
      )}
    </div>
  );
}
