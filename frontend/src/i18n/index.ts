import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import 'dayjs/locale/en';
import zh from './zh.json';
import { getStore, setStore } from '../store/storage';
import type { Language } from '../config/website';

export function storedLanguage(): Language {
  const value = getStore<string>('language');
  return value === 'en' ? 'en' : 'zh';
}

/** The value of the Accept-Language header for a UI language. */
export function acceptLanguage(lang: string): string {
  return lang === 'en' ? 'en-US' : 'zh-CN';
}

export function saveLanguage(lang: Language): void {
  setStore('language', lang);
}

/**
 * Chinese (the default, and the fallback of every key) is bundled; English is its own chunk, fetched when it is
 * chosen (i18next waits for it before switching), so that the first page does not carry both.
 */
const lazyLanguages: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read: (language, _namespace, callback) => {
    if (language !== 'en') {
      callback(null, language === 'zh' ? zh : {});
      return;
    }
    import('./en.json').then(
      (en) => callback(null, en.default),
      (error: Error) => callback(error, null),
    );
  },
};

const initial = storedLanguage();
dayjs.locale(initial === 'en' ? 'en' : 'zh-cn');
document.documentElement.lang = acceptLanguage(initial);

/** Resolves once the stored language's texts are there (at once for Chinese): render after it. */
export const i18nReady = i18n
  .use(lazyLanguages)
  .use(initReactI18next)
  .init({
    resources: { zh: { translation: zh } },
    partialBundledLanguages: true,
    lng: initial,
    fallbackLng: 'zh',
    interpolation: { escapeValue: false },
    returnNull: false,
  });
i18n.services.formatter?.add('lowercase', (value: unknown) => String(value).toLowerCase());

export default i18n;
