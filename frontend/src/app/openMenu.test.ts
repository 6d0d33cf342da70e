import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MenuVO } from '../api/types';
import { iframeRoute, iframeTarget, openMenu } from './menuUtil';

const menu = (path: string, isOpen = 1): MenuVO =>
  ({ id: '42', parentId: '0', code: 'm', name: 'M', path, isOpen, sort: 1, category: 1 }) as MenuVO;

describe('openMenu', () => {
  afterEach(() => vi.restoreAllMocks());

  it('routes inside the app, embeds external pages, opens new-window menus, and records each visit', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ code: 200, success: true, data: true, msg: '' })));
    vi.stubGlobal('fetch', fetchMock);
    const opened = vi.spyOn(window, 'open').mockImplementation(() => null);
    const go: string[] = [];
    openMenu(menu('/system/param'), (to) => go.push(to));
    openMenu(menu('https://example.org/docs.html'), (to) => go.push(to));
    openMenu(menu('https://example.org/', 2), (to) => go.push(to));
    expect(go).toEqual(['/system/param', iframeRoute('https://example.org/docs.html')]);
    expect(go[1]).toBe('/myiframe/https%3A%2F%2Fexample.org%2Fdocs.html');
    expect(opened).toHaveBeenCalledWith('https://example.org/', '_blank', 'noopener');
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(3));
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toContain('/api/blade-system/menu/visit');
    expect(JSON.parse(String(init.body))).toEqual({ menuId: '42' });
  });
});

describe('iframeTarget', () => {
  it('reads back the page an iframe route embeds, and nothing from another route', () => {
    expect(iframeTarget(iframeRoute('https://example.org/docs.html?a=1&b=2'))).toBe('https://example.org/docs.html?a=1&b=2');
    expect(iframeTarget('/myiframe/%2Flogo.svg')).toBe('/logo.svg');
    expect(iframeTarget('/myiframe/')).toBeUndefined();
    expect(iframeTarget('/myiframe/%E0%A4%A')).toBeUndefined();
    expect(iframeTarget('/system/param')).toBeUndefined();
  });
});
