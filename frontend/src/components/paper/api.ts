import { apiGet, apiPost } from '../../api/client';
import { action } from '../../api/manifest';
import { download } from '../../api/request';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];
export type PaperLog = Schemas['PaperLogOut'];
export type PaperView = Schemas['PaperViewOut'];

const PAPER = '/api/blade-fics/fics/driverInfoPaper';
/**
 * The selected papers' ids, sent as an array as ever: the server takes `[1, 2]` as well as `1,2` (its IdList) but
 * documents only the string.
 */
const ids = (rows: { id?: string }[]) => rows.map((r) => String(r.id)) as unknown as string;

export const submitPapers = (rows: { id?: string }[]) => apiPost(`${PAPER}/submitTrial`, { ids: ids(rows) });

export const auditPapers = (rows: { id?: string }[], auditResult: 1 | 2, auditNote: string) =>
  apiPost(`${PAPER}/audit`, { ids: ids(rows), auditResult, auditNote });

export interface LoanForm {
  loanOrg?: string;
  loanPurpose?: string;
  returnDate?: string;
  certificateNumber?: string;
  note?: string;
  archivePlace?: string;
}

/** Lend (1), return (2) or archive (3) the papers. */
export const loanPapers = (rows: { id?: string }[], loanType: 1 | 2 | 3, form: LoanForm) =>
  apiPost(`${PAPER}/loan`, { ids: ids(rows), loanType, ...form });

export const loanRecords = (paperId: string, current: number, size: number) =>
  apiGet(`${PAPER}/loanRecord`, { paperId, current, size });

export const paperView = (id: string) => apiGet(`${PAPER}/paperView`, { id });

/** An attachment's bytes, fetched with the session's token (an <img> could not send it). */
export async function attachBlob(id: string): Promise<Blob> {
  return (await download(action('attach', 'download_attach'), { id })).blob;
}
