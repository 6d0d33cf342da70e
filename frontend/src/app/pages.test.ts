import { describe, expect, it } from 'vitest';
import { RESOURCE_PAGES, RESOURCES } from '../resources';
import { MIRROR_PAGES, SUB_PAGES } from './staticPages';
import { PAGES, SUB_PAGE_COMPONENTS, resolvePage } from './pages';

describe('the route table', () => {
  it('renders every resource declaration of resources/ at its path, and the pages of their own besides', () => {
    for (const [path, config] of Object.entries(RESOURCE_PAGES)) expect(PAGES[path]).toEqual({ kind: 'resource', config });
    const own = Object.keys(PAGES).filter((path) => PAGES[path].kind === 'component');
    expect(own.filter((path) => path in RESOURCE_PAGES)).toEqual([]);
    expect(own).toContain('/system/dict');
    expect(Object.keys(PAGES)).toHaveLength(Object.keys(RESOURCE_PAGES).length + own.length);
  });

  it('resolves a path with or without /index', () => {
    expect(resolvePage('/system/param')).toEqual({ kind: 'resource', config: RESOURCES.param });
    expect(resolvePage('/system/param/index')).toBe(resolvePage('/system/param'));
    expect(resolvePage('/nowhere')).toBeUndefined();
  });

  it('has a component for every page opened from a list and a page for every mirrored one', () => {
    expect(Object.keys(SUB_PAGE_COMPONENTS).sort()).toEqual(Object.keys(SUB_PAGES).sort());
    for (const mirror of Object.values(MIRROR_PAGES)) expect(resolvePage(mirror.page)).toBeDefined();
  });
});
