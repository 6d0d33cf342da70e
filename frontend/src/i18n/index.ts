import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import 'dayjs/locale/en';
import zh from './zh.json';
import en from './en.json';
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

const initial = storedLanguage();
dayjs.locale(initial === 'en' ? 'en' : 'zh-cn');
document.documentElement.lang = acceptLanguage(initial);

void i18n.use(initReactI18next).init({
  resources: { zh: { translation: zh }, en: { translation: en } },
  lng: initial,
  fallbackLng: 'zh',
  interpolation: { escapeValue: false },
  returnNull: false,
});
i18n.services.formatter?.add('lowercase', (value: unknown) => String(value).toLowerCase());

export default i18n;
