import type { Column, Row } from '../../resources/types';

/** What a secret shows until it is revealed. */
export const MASK = '••••';

/** A parameter key (or any name) that names a secret: a password, a secret, a token, a private key. */
export function isSecretName(name: unknown): boolean {
  if (typeof name !== 'string') return false;
  return /password|passwd|pwd|secret|token|credential|private[._-]?key|api[._-]?key|密码|密钥|口令/i.test(name);
}

/** Whether the column's value in `row` is a secret (see `Column.secret`). */
export function isSecretCell(column: Column, row: Row): boolean {
  const { secret } = column;
  return typeof secret === 'function' ? secret(row) : !!secret;
}
