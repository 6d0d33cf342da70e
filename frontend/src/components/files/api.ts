import { action } from '../../api/manifest';
import { download, request } from '../../api/request';
import type { R } from '../../api/types';
import type { components } from '../../api/schema';
import { saveFile } from '../crud/saveFile';

/** What an upload answers (`POST /api/blade-fics/file/upload`): the attachment's link, key and id. */
export type Uploaded = components['schemas']['UploadOut'];

/** The page an uploaded file belongs to: the server asks for that page's add or edit button. */
export type UploadPage = 'attach' | 'driverPaper';

/**
 * Uploads one file to the tenant's enabled store (else the server's disk); it becomes an attachment. The server
 * refuses it past the tenant's storage quota or the user's hourly upload rate, with a message naming the limit.
 */
export async function uploadFile(file: Blob, name: string, page: UploadPage = 'attach'): Promise<Uploaded> {
  const form = new FormData();
  form.append('file', file, name);
  const body = await request<R<Uploaded>>(action('attach', 'upload_file'), { method: 'POST', form, params: { page } });
  return body.data;
}

/** Fetches an attachment's file with the session's token (a plain link could not send it) and saves it. */
export async function downloadAttach(id: string, fallbackName: string): Promise<void> {
  const { blob, filename } = await download(action('attach', 'download_attach'), { id }, { fallbackName });
  saveFile(blob, filename);
}

/** A size in bytes as people read it (B, KB, MB). */
export function humanSize(bytes: unknown): string {
  const n = Number(bytes);
  if (!Number.isFinite(n) || n < 0) return '-';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
