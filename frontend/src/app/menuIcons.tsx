import type { ReactNode } from 'react';
import {
  AlertOutlined,
  ApartmentOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BarChartOutlined,
  BookOutlined,
  BorderOuterOutlined,
  CarOutlined,
  ClusterOutlined,
  CodeOutlined,
  ControlOutlined,
  DashboardOutlined,
  DatabaseOutlined,
  DesktopOutlined,
  EnvironmentOutlined,
  FileTextOutlined,
  FolderOutlined,
  HistoryOutlined,
  MessageOutlined,
  MonitorOutlined,
  NodeIndexOutlined,
  NotificationOutlined,
  PartitionOutlined,
  SafetyOutlined,
  SettingOutlined,
  TeamOutlined,
  ThunderboltOutlined,
  ToolOutlined,
  UserOutlined,
} from '@ant-design/icons';

/**
 * BladeX menus name iconfont classes in `source` that this app does not ship, so icons are
 * chosen by menu code (or by an antd icon name in `source`), with a neutral default.
 */
const BY_KEY: Record<string, ReactNode> = {
  desk: <DesktopOutlined />,
  work: <AuditOutlined />,
  monitor: <MonitorOutlined />,
  tool: <ToolOutlined />,
  flow: <PartitionOutlined />,
  report: <BarChartOutlined />,
  resource: <DatabaseOutlined />,
  base: <EnvironmentOutlined />,
  authority: <SafetyOutlined />,
  system: <SettingOutlined />,
  user: <UserOutlined />,
  dept: <ApartmentOutlined />,
  role: <TeamOutlined />,
  dict: <BookOutlined />,
  dictbiz: <BookOutlined />,
  menu: <AppstoreOutlined />,
  topmenu: <ClusterOutlined />,
  param: <SettingOutlined />,
  post: <FileTextOutlined />,
  tenant: <ClusterOutlined />,
  client: <CodeOutlined />,
  notice: <NotificationOutlined />,
  vehicle: <CarOutlined />,
  fleet: <CarOutlined />,
  battery: <ThunderboltOutlined />,
  dashboard: <DashboardOutlined />,
  operation: <ControlOutlined />,
  fence: <BorderOuterOutlined />,
  car_monitor: <EnvironmentOutlined />,
  command_log: <HistoryOutlined />,
  car_track: <NodeIndexOutlined />,
  intelligent_report: <BarChartOutlined />,
  alarm_center: <AlertOutlined />,
  message: <MessageOutlined />,
  SettingOutlined: <SettingOutlined />,
  CarOutlined: <CarOutlined />,
  DashboardOutlined: <DashboardOutlined />,
};

export function menuIcon(code: string | undefined, source: string | undefined, topLevel: boolean): ReactNode {
  if (source && BY_KEY[source]) return BY_KEY[source];
  if (code && BY_KEY[code]) return BY_KEY[code];
  return topLevel ? <FolderOutlined /> : undefined;
}
