import { saveLanguage } from '../i18n';
import type { Language } from '../config/website';
import { website } from '../config/website';
import { resetTabs } from '../store/tabs';

/** Switching language clears every tab, returns to the home page and reloads. */
export function switchLanguage(lang: Language): void {
  saveLanguage(lang);
  resetTabs();
  window.location.assign(website.homePath);
}
