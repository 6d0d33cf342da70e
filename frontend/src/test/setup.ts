import { beforeEach } from 'vitest';
import i18n from '../i18n';

// The app fetches the English texts when English is chosen (src/i18n/index.ts); tests use both languages at once.
await i18n.loadLanguages('en');

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
