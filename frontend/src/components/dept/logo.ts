import { apiGet } from '../../api/client';
import { action } from '../../api/manifest';
import { download, request } from '../../api/request';
import type { R } from '../../api/types';
import type { components } from '../../api/schema';

/** The largest logo the server takes (the specification's 5 MB). */
export const LOGO_MAX_BYTES = 5 * 1024 * 1024;
/** The names a logo may have; the server checks that the content is that kind of picture too. */
export const LOGO_EXTENSIONS = ['jpg', 'jpeg', 'png'];

export type UploadedLogo = components['schemas']['UploadOut'];
export type OwnLogo = components['schemas']['LogoOut'];

/** Why a chosen file cannot be a logo (an i18n key), checked before it is sent; null when it may be. */
export function logoProblem(file: { name: string; size: number }): string | null {
  const dot = file.name.lastIndexOf('.');
  const extension = dot < 0 ? '' : file.name.slice(dot + 1).toLowerCase();
  if (!LOGO_EXTENSIONS.includes(extension)) return 'logo.wrongType';
  if (file.size === 0) return 'logo.empty';
  if (file.size > LOGO_MAX_BYTES) return 'logo.tooLarge';
  return null;
}

/** Uploads a logo to the tenant's store; its link is what the organisation saves as `deptLogo`. */
export async function uploadLogo(file: Blob, name: string): Promise<UploadedLogo> {
  const form = new FormData();
  form.append('file', file, name);
  const body = await request<R<UploadedLogo>>(action('dept', 'upload_logo'), { method: 'POST', form, silent: true });
  return body.data;
}

/** The logo of the signed-in user's organisation, or of its nearest ancestor with one (null: none has one). */
export function ownLogo(): Promise<OwnLogo | null> {
  return apiGet('/api/blade-system/dept/logo', undefined, { silent: true });
}

/** A link of our own (an attachment) is read with the session's token; any other address is shown as it is. */
export function isOwnLink(link: string): boolean {
  return link.startsWith('/api/');
}

/** The picture of a logo link, as a blob (its attachment link needs the session's token: no plain <img src>). */
export async function logoBlob(link: string): Promise<Blob> {
  const url = new URL(link, window.location.origin);
  const { blob } = await download(url.pathname, Object.fromEntries(url.searchParams), { fallbackName: 'logo', silent: true });
  return blob;
}
