import { describe, expect, it } from 'vitest';
import { moved, parentChoices } from './tree';

const tree = [
  {
    id: '1',
    title: 'Root',
    key: '1',
    value: '1',
    children: [
      { id: '2', title: 'A', key: '2', value: '2', children: [{ id: '3', title: 'A1', key: '3', value: '3' }] },
      { id: '4', title: 'B', key: '4', value: '4' },
    ],
  },
];

describe('parentChoices', () => {
  it('disables the moved organisation and its branch only', () => {
    const [root] = parentChoices(tree, '2');
    expect(root?.disabled).toBe(false);
    const [a, b] = root?.children ?? [];
    expect(a?.disabled).toBe(true);
    expect(a?.children?.[0]?.disabled).toBe(true);
    expect(b?.disabled).toBe(false);
  });

  it('takes no tree', () => {
    expect(parentChoices(undefined, '1')).toEqual([]);
  });
});

describe('moved', () => {
  it('moves a row up and down within bounds', () => {
    expect(moved(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moved(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moved(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moved(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });
});
