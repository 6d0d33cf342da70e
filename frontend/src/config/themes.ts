/** The 11 named themes (spec §2 Shell). Each sets antd's colorPrimary plus a few layout colours. */
export interface ThemeDef {
  name: string;
  primary: string;
  /** Sidebar background; dark sidebars use antd's dark menu. */
  sider: string;
  siderDark: boolean;
  header: string;
  headerDark: boolean;
}

export const THEMES: ThemeDef[] = [
  { name: 'cool', primary: '#3064C7', sider: '#14233f', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'red', primary: '#C8102E', sider: '#2b1518', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'ocean', primary: '#1677FF', sider: '#0b2a4a', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'forest', primary: '#2E8B57', sider: '#14301f', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'violet', primary: '#6A4BC4', sider: '#221a3d', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'amber', primary: '#D48806', sider: '#2f2412', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'teal', primary: '#0E9AA7', sider: '#0f2e31', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'sunset', primary: '#E8590C', sider: '#33190d', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'graphite', primary: '#475569', sider: '#1f2530', siderDark: true, header: '#ffffff', headerDark: false },
  { name: 'navy', primary: '#3064C7', sider: '#ffffff', siderDark: false, header: '#1d3a6e', headerDark: true },
  { name: 'light', primary: '#2F54EB', sider: '#ffffff', siderDark: false, header: '#ffffff', headerDark: false },
];

export const DEFAULT_THEME = 'cool';

export function themeByName(name: string | undefined): ThemeDef {
  return THEMES.find((t) => t.name === name) ?? THEMES[0];
}
