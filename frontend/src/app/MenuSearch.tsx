import { memo, useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { AutoComplete, Empty, Input, Modal } from 'antd';
import { EnterOutlined, SearchOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { MenuVO } from '../api/types';
import { leafMenus, menuLabel, searchMenus, type PinyinMatch } from './menuUtil';
import { openMenu } from './menuUtil';

/** pinyin-pro's matcher, loaded once the search is first opened (it is no part of the shell's first load). */
function usePinyin(wanted: boolean): PinyinMatch | undefined {
  const [matcher, setMatcher] = useState<PinyinMatch>();
  useEffect(() => {
    if (!wanted || matcher) return;
    let live = true;
    void import('pinyin-pro').then(({ match }) => {
      if (live) setMatcher(() => (name: string, query: string) => match(name, query, { precision: 'start', continuous: true }) !== null);
    });
    return () => {
      live = false;
    };
  }, [wanted, matcher]);
  return matcher;
}

function useMenuFilter(menus: MenuVO[], open: boolean) {
  const { t } = useTranslation();
  const leaves = useMemo(() => leafMenus(menus), [menus]);
  const pinyin = usePinyin(open);
  const labelOf = (m: MenuVO) => menuLabel(t, m);
  return (query: string) => searchMenus(leaves, query, labelOf, pinyin).map((m) => ({ menu: m, label: labelOf(m) }));
}

/**
 * Full-screen style search over the leaf menus; Esc closes, Enter or a click navigates.
 * Memoised: rendered again only when its props change (the shell renders as tabs and queries change).
 */
export const MenuSearchOverlay = memo(function MenuSearchOverlay({ open, onClose, menus }: { open: boolean; onClose: () => void; menus: MenuVO[] }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const filter = useMenuFilter(menus, open);
  const [query, setQuery] = useState('');
  const [cursor, setCursor] = useState(0);
  const results = filter(query);

  const choose = (menu: MenuVO) => {
    onClose();
    setQuery('');
    openMenu(menu, (to) => void navigate(to));
  };

  return (
    <Modal
      open={open}
      onCancel={() => {
        setQuery('');
        onClose();
      }}
      footer={null}
      closable={false}
      destroyOnHidden
      width={560}
      className="menu-search"
      title={null}
      keyboard
      // after a jump the focus stays on the new page instead of returning to the search button
      focusable={{ focusTriggerAfterClose: false }}
    >
      <Input
        autoFocus
        size="large"
        allowClear
        prefix={<SearchOutlined />}
        placeholder={t('search.placeholder')}
        aria-label={t('search.placeholder')}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setCursor(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setCursor((c) => Math.min(c + 1, results.length - 1));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setCursor((c) => Math.max(c - 1, 0));
          } else if (e.key === 'Enter' && results[cursor]) {
            choose(results[cursor].menu);
          }
        }}
      />
      <div className="menu-search-results" role="listbox">
        {query.trim() && results.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('search.noResult')} />}
        {results.map((r, i) => (
          <div
            key={r.menu.id}
            role="option"
            aria-selected={i === cursor}
            className={`menu-search-item${i === cursor ? ' active' : ''}`}
            onMouseEnter={() => setCursor(i)}
            onClick={() => choose(r.menu)}
          >
            <span>{r.label}</span>
            <span className="menu-search-path">
              {r.menu.path} {i === cursor && <EnterOutlined />}
            </span>
          </div>
        ))}
      </div>
      <div className="menu-search-tip">{t('search.tip')}</div>
    </Modal>
  );
});

/** The top bar's autocomplete, with the same filter as the overlay. */
export function MenuAutoComplete({ menus }: { menus: MenuVO[] }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const filter = useMenuFilter(menus, query !== '');
  const results = filter(query);
  return (
    <AutoComplete
      className="top-search"
      value={query}
      options={results.map((r) => ({ value: r.menu.id, label: r.label }))}
      showSearch={{ onSearch: setQuery }}
      onSelect={(id: string) => {
        const hit = results.find((r) => r.menu.id === id);
        setQuery('');
        if (hit) openMenu(hit.menu, (to) => void navigate(to));
      }}
      popupMatchSelectWidth={240}
      defaultActiveFirstOption
    >
      <Input size="small" prefix={<SearchOutlined />} placeholder={t('search.short')} aria-label={t('search.short')} allowClear />
    </AutoComplete>
  );
}
