import type { FormRule } from 'antd';
import type { Column } from '../../resources/types';

const TEXT_TYPES = new Set(['input', 'textarea', 'password']);

/**
 * The "required" rules of a column. A rule of only `required` and `message` checks presence whatever the value's
 * type; any other key (even `whitespace: false`) makes the validator check the value as a string, so a number, a
 * switch or a numeric select was judged empty while it showed a value ("请输入排序" on an unchanged row). Blank
 * text is refused by a rule of its own, for text inputs only.
 */
export function requiredRules(column: Column, message: string): FormRule[] {
  if (!column.required) return [];
  const rules: FormRule[] = [{ required: true, message }];
  if (TEXT_TYPES.has(column.type ?? 'input')) rules.push({ whitespace: true, message });
  return rules;
}
