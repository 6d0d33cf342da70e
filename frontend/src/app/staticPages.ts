import type { TFunction } from 'i18next';

/** Tab labels of the signed-in routes that are not menu routes. */
const STATIC: Record<string, string> = {
  '/wel/index': 'tabs.home',
  '/dict-horizontal/index': 'page.dictHorizontal',
  '/dict-vertical/index': 'page.dictVertical',
};

export function staticPageLabel(path: string, t: TFunction): string | undefined {
  const key = STATIC[path];
  return key ? t(key) : undefined;
}
