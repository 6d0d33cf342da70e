import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import { SUB_PAGES, staticPageLabel } from './staticPages';

const t = ((key: string) => `<${key}>`) as unknown as TFunction;

describe('labels of pages that are not menus', () => {
  it('names the fixed pages', () => {
    expect(staticPageLabel('/wel/index', t)).toBe('<tabs.home>');
    expect(staticPageLabel('/system/user', t)).toBeUndefined();
  });

  it('names a page opened from a list by what it does', () => {
    expect(staticPageLabel('/adds/addOperating', t)).toBe('<fence.addTitle>');
    expect(staticPageLabel('/adds/addOperating', t, '?id=42')).toBe('<fence.editTitle>');
    expect(SUB_PAGES['/adds/addOperating'].parent).toBe('/operation/fence');
  });
});
