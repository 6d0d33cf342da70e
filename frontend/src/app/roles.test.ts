import { describe, expect, it } from 'vitest';
import type { TreeNode } from '../api/types';
import { roleNames } from './roles';
import { greetingKey } from '../data/serverTime';

const zh = (_key: string, options: { defaultValue: string }) => options.defaultValue;
const en = (key: string, options: { defaultValue: string }) => ({ 'roleName.administrator': 'Administrator' })[key] ?? options.defaultValue;

describe('role names', () => {
  it('shows names, not aliases: from the role tree, else the seeded names, in the UI language', () => {
    const node = (id: string, title: string, children?: TreeNode[]): TreeNode => ({ id, title, key: id, value: id, children });
    const tree = [node('1', '超级管理员', [node('7', '仓库主管')])];
    expect(roleNames('1,7', 'administrator,keeper', tree, zh)).toEqual(['超级管理员', '仓库主管']);
    // the role list is not readable: the seeded name, else the alias
    expect(roleNames('1,7', 'administrator,keeper', undefined, zh)).toEqual(['超级管理员', 'keeper']);
    expect(roleNames('3', 'driver', undefined, zh)).toEqual(['普通司机']);
    expect(roleNames('1,7', 'administrator,keeper', tree, en)).toEqual(['Administrator', '仓库主管']);
    expect(roleNames(undefined, undefined, tree, zh)).toEqual([]);
  });
});

describe('greeting', () => {
  it('follows the hour in the tenant zone, not the browser', () => {
    const utc = (h: number) => Date.UTC(2025, 0, 1, h, 30);
    // 03:30 UTC is 11:30 in Beijing (morning) and 22:30 the day before in New York (evening)
    expect(greetingKey(utc(3), 480)).toBe('wel.morning');
    expect(greetingKey(utc(3), -300)).toBe('wel.evening');
    expect(greetingKey(utc(5), 480)).toBe('wel.afternoon');
    expect(greetingKey(utc(10), 480)).toBe('wel.evening');
    expect(greetingKey(utc(16), 480)).toBe('wel.morning');
  });
});
