import { apiGet, apiPost } from '../api/client';
import { download, request } from '../api/request';
import type { R } from '../api/types';
import type { components } from '../api/schema';

type Schemas = components['schemas'];

/** The tenant's map as the server keeps it (`/api/liftdesk/map/setting`). */
export type MapSetting = Schemas['MapSettingOut'];
/** What the settings page saves (the image is uploaded apart). */
export type MapSettingInput = Schemas['MapSettingIn'];

export const MAP_API = '/api/liftdesk/map';
/** Query keys: the setting (every map reads it) and the site plan image by its hash. */
export const MAP_SETTING_KEY = ['map', 'setting'] as const;
export const planImageKey = (hash: string) => ['map', 'plan', hash] as const;
/** Largest site plan image (bytes), as the server checks it. */
export const MAX_PLAN_BYTES = 5 * 1024 * 1024;
export const PLAN_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

export async function getMapSetting(): Promise<MapSetting> {
  // a failure leaves the maps on the default basemap: no toast on every map page
  const setting = await apiGet('/api/liftdesk/map/setting', undefined, { silent: true });
  if (!setting) throw new Error('the server answered no map setting');
  return setting;
}

export async function saveMapSetting(input: MapSettingInput): Promise<MapSetting> {
  const saved = await apiPost('/api/liftdesk/map/setting/save', input);
  if (!saved) throw new Error('the server answered no map setting');
  return saved;
}

export async function uploadPlan(file: Blob, name = 'plan'): Promise<MapSetting> {
  const form = new FormData();
  form.append('file', file, name);
  const body = await request<R<MapSetting>>(`${MAP_API}/plan/upload`, { method: 'POST', form });
  return body.data;
}

export async function removePlan(): Promise<MapSetting> {
  const saved = await apiPost('/api/liftdesk/map/plan/remove');
  if (!saved) throw new Error('the server answered no map setting');
  return saved;
}

/**
 * The site plan image's bytes (the call needs the token, which MapLibre or an `<img>` could not send: the maps load it
 * through the `liftdeskplan://` scheme, the settings page as an object URL). Its address names its content (`hash`),
 * so the browser's cache answers again for the same image.
 */
export async function planImage(hash: string): Promise<Blob> {
  const { blob } = await download(`${MAP_API}/plan/image`, { hash }, { silent: true });
  return blob;
}
