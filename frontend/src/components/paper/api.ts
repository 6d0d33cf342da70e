import { action } from '../../api/manifest';
import { download, get, post } from '../../api/request';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];
export type PaperLog = Schemas['PaperLogOut'];
export type PaperView = Schemas['PaperViewOut'];

const call = (name: string) => action('driver_paper', name);
const ids = (rows: { id?: string }[]) => rows.map((r) => String(r.id));

export const submitPapers = (rows: { id?: string }[]) => post<number>(call('submit_trial'), { ids: ids(rows) });

export const auditPapers = (rows: { id?: string }[], auditResult: 1 | 2, auditNote: string) =>
  post<number>(call('audit'), { ids: ids(rows), auditResult, auditNote });

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
  post<number>(call('loan'), { ids: ids(rows), loanType, ...form });

export const loanRecords = (paperId: string, current: number, size: number) =>
  get<{ records: PaperLog[]; total: number }>(call('loan_record'), { paperId, current, size });

export const paperView = (id: string) => get<PaperView>(call('paper_view'), { id });

/** An attachment's bytes, fetched with the session's token (an <img> could not send it). */
export async function attachBlob(id: string): Promise<Blob> {
  return (await download(action('attach', 'download_attach'), { id })).blob;
}
