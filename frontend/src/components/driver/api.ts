import { action } from '../../api/manifest';
import { apiPost, type BodyOf } from '../../api/client';
import { download, request } from '../../api/request';
import type { R } from '../../api/types';
import type { components } from '../../api/schema';

export type DriverOut = components['schemas']['DriverOut'];
export type DriverFull = components['schemas']['DriverFullOut'];
export type CardOut = components['schemas']['CardOut'];
export type FaceOut = components['schemas']['FaceOut'];
export type NewPassword = components['schemas']['NewPassword'];

const ADD = '/api/blade-fics-report/fics/personnel/addDriverInfo';
const UPDATE = '/api/blade-fics-report/fics/personnel/updateDriverInfo';
export type DriverBody = BodyOf<typeof ADD>;

/** A driver with cards, licence, face, account and the vehicles authorized (`getDriverDetail/{id}`). */
export async function getDriverFull(id: string): Promise<DriverFull> {
  const path = `/api/blade-fics-report/fics/driver/getDriverDetail/${encodeURIComponent(id)}`;
  return (await request<R<DriverFull>>(path)).data;
}

/** Saves the person, licence, cards and app account in one call (all or nothing): add without id, else update. */
export async function saveDriver(body: DriverBody & { id?: string | null }): Promise<DriverOut> {
  const saved = body.id ? await apiPost(UPDATE, { ...body, id: body.id }) : await apiPost(ADD, body);
  if (!saved) throw new Error('the server answered no driver');
  return saved;
}

/** Uploads a driver's face photo (JPG or PNG, at most 5 MB; judged by the server by its content). */
export async function uploadFace(driverId: string, file: Blob, name: string): Promise<FaceOut> {
  const form = new FormData();
  form.append('file', file, name);
  return (await request<R<FaceOut>>(action('driver', 'upload_face'), { method: 'POST', form, params: { driverId } })).data;
}

export async function deleteFace(driverId: string): Promise<void> {
  const path = action('driver', 'delete_face').replace('{id}', encodeURIComponent(driverId));
  await request(path, { method: 'DELETE' });
}

/** The face photo's bytes (its attachment link needs the session's token: no plain <img src>). */
export async function faceImage(link: string): Promise<Blob> {
  const url = new URL(link, window.location.origin);
  const { blob } = await download(url.pathname, Object.fromEntries(url.searchParams), { fallbackName: 'face' });
  return blob;
}

export async function revertPassword(driverId: string): Promise<NewPassword> {
  const path = action('driver', 'revert_password').replace('{id}', encodeURIComponent(driverId));
  return (await request<R<NewPassword>>(path)).data;
}

export function blacklist(ids: string[], blacklisted: 0 | 1, reason?: string): Promise<unknown> {
  return apiPost('/api/liftdesk/driver/blacklist', { ids: ids.join(','), blacklisted, reason: reason ?? null });
}

export function audit(ids: string[], applyStatus: 1 | 2, auditNote: string): Promise<unknown> {
  return apiPost('/api/blade-fics-report/fics/driverApply/auditBatch', { ids: ids.join(','), applyStatus, auditNote: auditNote || null });
}
