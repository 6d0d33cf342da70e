import { memo } from 'react';
import { useNavigate } from 'react-router';
import { App, Button, Dropdown, Tabs, type MenuProps } from 'antd';
import { ClearOutlined, CloseCircleOutlined, CloseOutlined, DownOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import {
  HOME,
  closeAll,
  closeOthers,
  closeTab,
  findTab,
  isClosable,
  openTab,
  tabHref,
  tabsStore,
  useTabs,
  type TabsState,
} from '../store/tabs';
import { confirmClearCache } from './clearCache';

/** Rendered again only when its props change (the shell renders as tabs and queries change). */
export const TabBar = memo(function TabBar({ onSearch }: { onSearch: () => void }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const tabs = useTabs();

  /** Applies a tab operation and follows the tab that became active. */
  const apply = (next: TabsState) => {
    const before = tabsStore.get().active;
    tabsStore.set(next);
    if (next.active !== before || next.active !== window.location.pathname) {
      const tab = findTab(next, next.active);
      if (tab) void navigate(tabHref(tab));
    }
  };

  const home = { label: t('tabs.home'), value: HOME };
  const run = (key: string, target?: string) => {
    let state = tabsStore.get();
    if (target && target !== state.active) {
      const tab = findTab(state, target);
      if (tab) state = openTab(state, tab);
    }
    if (key === 'closeOthers') apply(closeOthers(state));
    else if (key === 'closeAll') apply(closeAll(state, home));
    else if (key === 'clearCache') confirmClearCache(modal);
    else if (key === 'search') onSearch();
  };

  const contextItems: MenuProps['items'] = [
    { key: 'clearCache', icon: <ClearOutlined />, label: t('tabs.clearCache') },
    { key: 'closeOthers', icon: <CloseOutlined />, label: t('tabs.closeOthers') },
    { key: 'closeAll', icon: <CloseCircleOutlined />, label: t('tabs.closeAll') },
  ];
  const dropdownItems: MenuProps['items'] = [
    { key: 'search', icon: <SearchOutlined />, label: t('tabs.search') },
    { key: 'closeOthers', icon: <CloseOutlined />, label: t('tabs.closeOthers') },
    { key: 'closeAll', icon: <CloseCircleOutlined />, label: t('tabs.closeAll') },
    { type: 'divider' },
    { key: 'clearCache', icon: <ClearOutlined />, label: t('tabs.clearCache') },
  ];

  return (
    <div className="tab-bar" data-testid="tab-bar">
      <Tabs
        type="editable-card"
        size="small"
        hideAdd
        activeKey={tabs.active}
        onChange={(key) => {
          const tab = findTab(tabs, key);
          if (tab) void navigate(tabHref(tab));
        }}
        onEdit={(key, action) => {
          if (action === 'remove' && typeof key === 'string') apply(closeTab(tabsStore.get(), key));
        }}
        items={tabs.list.map((tab) => ({
          key: tab.value,
          closable: isClosable(tabs, tab.value),
          label: (
            <Dropdown trigger={['contextMenu']} menu={{ items: contextItems, onClick: ({ key }) => run(key, tab.value) }}>
              <span className="tab-label" data-path={tab.value}>
                {tab.label}
              </span>
            </Dropdown>
          ),
        }))}
        tabBarExtraContent={{
          right: (
            <Dropdown menu={{ items: dropdownItems, onClick: ({ key }) => run(key) }} placement="bottomRight" trigger={['click']}>
              <Button size="small" type="text" className="tab-bar-more" aria-label={t('tabs.more')}>
                {t('tabs.more')} <DownOutlined />
              </Button>
            </Dropdown>
          ),
        }}
      />
    </div>
  );
});
