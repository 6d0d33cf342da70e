import { describe, expect, it } from 'vitest';
import { mechanismOptions, type Mechanism } from './mechanisms';

const row = (id: string, parentId: string | null, name: string, path: string): Mechanism => ({
  id,
  mechanismId: id,
  mechanismName: name,
  parentId,
  deptCategory: 1,
  ancestors: '0',
  pathName: path,
});

describe('mechanismOptions', () => {
  it('keeps the order and indents each organisation under its parent', () => {
    const options = mechanismOptions([
      row('1', '0', 'Root', 'Root'),
      row('2', '1', 'A', 'Root / A'),
      row('4', '2', 'Leaf', 'Root / A / Leaf'),
      row('3', '1', 'B', 'Root / B'),
    ]);
    expect(options.map((o) => [o.value, o.label, o.depth, o.path])).toEqual([
      ['1', 'Root', 0, 'Root'],
      ['2', 'A', 1, 'Root / A'],
      ['4', 'Leaf', 2, 'Root / A / Leaf'],
      ['3', 'B', 1, 'Root / B'],
    ]);
  });

  it('starts at depth 0 where the caller sees no parent, and is empty without an answer', () => {
    expect(mechanismOptions([row('7', '5', 'Branch', 'Branch'), row('8', '7', 'Leaf', 'Branch / Leaf')]).map((o) => o.depth)).toEqual([0, 1]);
    expect(mechanismOptions(undefined)).toEqual([]);
  });
});
