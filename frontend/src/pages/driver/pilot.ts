/** The rules of the driver page that need no server (spec 001 §5), as pure functions. */

/** The largest face photo (5 MB) and the kinds it may be. */
export const FACE_MAX_BYTES = 5 * 1024 * 1024;
const FACE_TYPES = new Set(['image/jpeg', 'image/png']);

/** Why a chosen face photo cannot be used (an i18n key), or null. The server judges it again by its content. */
export function checkFace(file: { type: string; size: number; name: string }): string | null {
  const byName = /\.(jpe?g|png)$/i.test(file.name);
  if (!FACE_TYPES.has(file.type) && !byName) return 'driver.faceType';
  if (file.size > FACE_MAX_BYTES) return 'driver.faceTooLarge';
  return null;
}

/** A card as the form holds it. */
export interface CardValues {
  id?: string;
  cardNumber?: string;
  serialNumber?: string;
  cardLevel?: string;
  verifyMode?: string;
  password?: string;
  /** A stored card with a password (sent back masked, the server keeps it). */
  hasPassword?: boolean;
}

export interface CardPayload {
  id?: string;
  cardKind: 1 | 2;
  cardNumber: string;
  serialNumber: string;
  cardLevel: number | null;
  verifyMode: number | null;
  password: string | null;
}

const blank = (v: unknown) => v === undefined || v === null || String(v).trim() === '';

/**
 * Why a card cannot be saved (an i18n key), or null: a main card needs its number, serial and password (a stored
 * one keeps its password), a sub card its number, serial and level; a serial is 10 digits, a password 4+ digits. An
 * empty new card is no card.
 */
export function cardProblem(card: CardValues | undefined, kind: 1 | 2): string | null {
  if (!card || (!card.id && blank(card.cardNumber) && blank(card.serialNumber) && blank(card.password))) return null;
  if (blank(card.cardNumber) || blank(card.serialNumber)) return kind === 1 ? 'driver.mainCardRule' : 'driver.subCardRule';
  if (!/^\d{10}$/.test(String(card.serialNumber).trim())) return 'driver.serialRule';
  if (kind === 1 && blank(card.password) && !card.hasPassword) return 'driver.mainCardRule';
  if (kind === 2 && blank(card.cardLevel)) return 'driver.subCardRule';
  if (!blank(card.password) && !/^\d{4,16}$/.test(String(card.password))) return 'driver.passwordRule';
  return null;
}

/** The card as the server takes it (null: no card). A stored card whose password was left empty sends the mask. */
export function cardPayload(card: CardValues | undefined, kind: 1 | 2): CardPayload | null {
  if (!card || (!card.id && blank(card.cardNumber) && blank(card.serialNumber) && blank(card.password))) return null;
  const number = (v: unknown) => (blank(v) ? null : Number(v));
  return {
    ...(card.id ? { id: card.id } : {}),
    cardKind: kind,
    cardNumber: String(card.cardNumber ?? '').trim(),
    serialNumber: String(card.serialNumber ?? '').trim(),
    cardLevel: number(card.cardLevel),
    verifyMode: number(card.verifyMode),
    password: blank(card.password) ? (card.hasPassword ? '******' : null) : String(card.password),
  };
}
