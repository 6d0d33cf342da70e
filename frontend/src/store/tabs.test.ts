import { describe, expect, it } from 'vitest';
import { HOME, closeAll, closeOthers, closeTab, emptyTabs, isClosable, openTab, tabHref, type Tab, type TabsState } from './tabs';

const home: Tab = { label: '首页', value: HOME };
const a: Tab = { label: 'A', value: '/system/param' };
const b: Tab = { label: 'B', value: '/system/user' };
const c: Tab = { label: 'C', value: '/system/dept' };

function withTabs(tabs: Tab[], active: string): TabsState {
  return { list: tabs, active };
}

describe('tab rules', () => {
  it('opens every visited page as a tab once and activates it', () => {
    let s = openTab(emptyTabs, home);
    s = openTab(s, a);
    s = openTab(s, b);
    s = openTab(s, { ...a, query: { x: '1' } });
    expect(s.list.map((t) => t.value)).toEqual([HOME, a.value, b.value]);
    expect(s.active).toBe(a.value);
    expect(s.list[1].query).toEqual({ x: '1' });
  });

  it('a single tab cannot be closed, even when it is not home', () => {
    expect(isClosable(withTabs([home], HOME), HOME)).toBe(false);
    const only = withTabs([a], a.value);
    expect(isClosable(only, a.value)).toBe(false);
    expect(closeTab(only, a.value)).toBe(only);
  });

  it('with several tabs every tab but home can be closed', () => {
    const s = withTabs([home, a, b], a.value);
    expect(isClosable(s, HOME)).toBe(false);
    expect(isClosable(s, a.value)).toBe(true);
    expect(isClosable(s, b.value)).toBe(true);
    expect(closeTab(s, HOME)).toBe(s);
  });

  it('closing an inactive tab keeps the active one', () => {
    const s = closeTab(withTabs([home, a, b], b.value), a.value);
    expect(s.list.map((t) => t.value)).toEqual([HOME, b.value]);
    expect(s.active).toBe(b.value);
  });

  it('closing the active tab opens its left neighbour', () => {
    const s = closeTab(withTabs([home, a, b, c], b.value), b.value);
    expect(s.list.map((t) => t.value)).toEqual([HOME, a.value, c.value]);
    expect(s.active).toBe(a.value);
  });

  it('closing the active first tab opens its right neighbour', () => {
    const s = closeTab(withTabs([a, b, home], a.value), a.value);
    expect(s.active).toBe(b.value);
  });

  it('close others keeps the current and home tabs', () => {
    const s = closeOthers(withTabs([home, a, b, c], b.value));
    expect(s.list.map((t) => t.value)).toEqual([HOME, b.value]);
    expect(s.active).toBe(b.value);
  });

  it('close others on home leaves home alone', () => {
    const s = closeOthers(withTabs([home, a, b], HOME));
    expect(s.list.map((t) => t.value)).toEqual([HOME]);
  });

  it('close all returns to the home tab', () => {
    const s = closeAll(withTabs([a, b, c], c.value), home);
    expect(s.list).toEqual([home]);
    expect(s.active).toBe(HOME);
  });

  it('builds the href of a tab from its path and query', () => {
    expect(tabHref({ label: 'x', value: '/a', query: { id: '1', q: 'a b' } })).toBe('/a?id=1&q=a+b');
    expect(tabHref({ label: 'x', value: '/a' })).toBe('/a');
  });
});
