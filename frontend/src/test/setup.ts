import { beforeEach } from 'vitest';
import '../i18n';

// jsdom lacks these; antd and the shell touch them.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as unknown as MediaQueryList;
}

beforeEach(() => {
  window.localStorage.clear();
  window.sessionStorage.clear();
});
