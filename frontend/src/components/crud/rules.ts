import type { FormRule } from 'antd';
import type { Column, Translate } from '../../resources/types';

const TEXT_TYPES = new Set(['input', 'textarea', 'password']);

/** A column edited as text: a text type, and not a control of its own (`Column.input`, whose value may be a list). */
export function isTextColumn(column: Column): boolean {
  return !column.input && TEXT_TYPES.has(column.type ?? 'input');
}

/**
 * The "required" rules of a column. A rule of only `required` and `message` checks presence whatever the value's
 * type; any other key (even `whitespace: false`) makes the validator check the value as a string, so a number, a
 * switch or a numeric select was judged empty while it showed a value ("请输入排序" on an unchanged row). Blank
 * text is refused by a rule of its own, for text inputs only.
 */
export function requiredRules(column: Column, message: string): FormRule[] {
  if (!column.required) return [];
  const rules: FormRule[] = [{ required: true, message }];
  if (isTextColumn(column)) rules.push({ whitespace: true, message });
  return rules;
}

function blank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A rule that refuses a present value for which `wrong` answers a message (an empty value is `required`'s case). */
function check(wrong: (value: unknown) => string | null): FormRule {
  return {
    validator: (_rule, value: unknown) => {
      if (blank(value)) return Promise.resolve();
      const message = wrong(value);
      return message ? Promise.reject(new Error(message)) : Promise.resolve();
    },
  };
}

/** A JavaScript regular expression of the server's pattern, or null when JavaScript cannot read it. */
function regex(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern);
  } catch {
    return null;
  }
}

/**
 * The limits of a column the server checks too (from its manifest field): text length and pattern (on the text as it
 * is sent, trimmed), the range of a number. Each names the field and the limit, so the form says what is wrong
 * before the save instead of the server after it.
 */
export function limitRules(column: Column, t: Translate): FormRule[] {
  const label = t(column.label);
  const rules: FormRule[] = [];
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : String(value));
  if (isTextColumn(column)) {
    const { maxLength, minLength, pattern } = column;
    if (maxLength !== undefined)
      rules.push(check((v) => (Array.from(text(v)).length > maxLength ? t('crud.tooLong', { label, max: maxLength }) : null)));
    // a minimum of one is "required"
    if (minLength !== undefined && minLength > 1)
      rules.push(check((v) => (Array.from(text(v)).length < minLength ? t('crud.tooShort', { label, min: minLength }) : null)));
    const re = pattern ? regex(pattern) : null;
    if (re)
      rules.push(check((v) => (re.test(text(v)) ? null : column.patternMessage ? t(column.patternMessage) : t('crud.patternMismatch', { label }))));
  }
  if (column.type === 'number' && (column.min !== undefined || column.max !== undefined)) {
    const { min, max } = column;
    const message =
      min !== undefined && max !== undefined
        ? t('crud.between', { label, min, max })
        : min !== undefined
          ? t('crud.atLeast', { label, min })
          : t('crud.atMost', { label, max });
    rules.push(
      check((v) => {
        const n = Number(v);
        return Number.isNaN(n) || (min !== undefined && n < min) || (max !== undefined && n > max) ? message : null;
      }),
    );
  }
  return rules;
}

/**
 * The field a server message is about: the server names the field first ("carNo 长度不能超过 64", "ratedLoadKg
 * 超出允许范围", "deviceNumber: …", "points.0 …"). Undefined when the message names none of `fields`.
 */
export function fieldOfMessage(message: string, fields: readonly string[]): string | undefined {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(?=$|[\s:.,,:])/.exec(message.trim());
  return match && fields.includes(match[1]) ? match[1] : undefined;
}

/** The server message with its field name replaced by the field's label ("车辆编号 长度不能超过 64"). */
export function messageForField(message: string, field: string, label: string): string {
  const trimmed = message.trim();
  return trimmed.startsWith(field) ? `${label}${trimmed.slice(field.length)}` : trimmed;
}
