import type { Row } from '../../resources/types';

/** Review states of a paper (fleet/papers.py): not submitted, submitted, first review passed / failed, second. */
export const AUDIT_STATES = [0, 1, 2, 3, 4, 5] as const;
export const NOT_LENT = 0;
export const LENT = 1;
export const ARCHIVED = 1;
/** Paper categories (the server's `paperType`, 1–5). */
export const PAPER_TYPES = [1, 2, 3, 4, 5] as const;
/** Picture sides (1 front, 2 back, 3 other), the most pictures of a paper, and what a picture may be. */
export const SIDES = [1, 2, 3] as const;
export const MAX_PICTURES = 6;
export const PICTURE_MAX_BYTES = 5 * 1024 * 1024;
export const PICTURE_TYPES = ['image/jpeg', 'image/png'];

export type Axis = 'auditStatus' | 'loanStatus' | 'archiveStatus';

export const auditOptions = AUDIT_STATES.map((v) => ({ value: v, label: `paper.audit.s${v}` }));
export const loanOptions = [
  { value: NOT_LENT, label: 'paper.loan.s0' },
  { value: LENT, label: 'paper.loan.s1' },
];
export const archiveOptions = [
  { value: 0, label: 'paper.archive.s0' },
  { value: ARCHIVED, label: 'paper.archive.s1' },
];
export const typeOptions = PAPER_TYPES.map((v) => ({ value: v, label: `paper.type.t${v}` }));
export const sideOptions = SIDES.map((v) => ({ value: v, label: `paper.side.s${v}` }));

/** Tag colours of the review states. */
export const AUDIT_COLORS: Record<number, string> = { 0: 'default', 1: 'processing', 2: 'cyan', 3: 'error', 4: 'success', 5: 'error' };

/**
 * The first state the selected rows do not share, among `axes` (spec 001 §5: selections must share their loan or
 * archive status; an audit takes one review stage at a time), or null when they share them all. The page refuses
 * such a selection before calling; the server refuses it too.
 */
export function mixedState(rows: Row[], axes: Axis[]): Axis | null {
  for (const axis of axes) {
    const values = new Set(rows.map((r) => Number(r[axis] ?? 0)));
    if (values.size > 1) return axis;
  }
  return null;
}

/** A picture of a paper as the form holds it (and as the server answers it). */
export interface Picture {
  attachId: string;
  side: number;
  link?: string | null;
  originalName?: string | null;
}

/** Whether a file may become a paper's picture: jpg or png, at most 5 MB (the server checks its content again). */
export function pictureProblem(file: { type: string; size: number }): 'type' | 'size' | null {
  if (!PICTURE_TYPES.includes(file.type)) return 'type';
  if (file.size > PICTURE_MAX_BYTES) return 'size';
  return null;
}

/** The pictures of a form value (none, or an array of them). */
export function picturesOf(value: unknown): Picture[] {
  return Array.isArray(value) ? (value as Picture[]).filter((p) => p && p.attachId) : [];
}

/** Days left until a date shown as text, coloured: expired (red), within 30 days (orange), else plain. */
export function daysTone(days: unknown): 'error' | 'warning' | undefined {
  const n = Number(days);
  if (days === null || days === undefined || days === '' || !Number.isFinite(n)) return undefined;
  if (n <= 0) return 'error';
  return n <= 30 ? 'warning' : undefined;
}
