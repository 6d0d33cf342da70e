import { describe, expect, it } from 'vitest';
import { sizeClass } from './sizeClass';

describe('sizeClass', () => {
  it.each([
    [1920, 3],
    [1200, 3],
    [1199, 2],
    [992, 2],
    [991, 1],
    [768, 1],
    [767, 0],
    [320, 0],
    [0, 0],
  ])('width %i → %i', (width, expected) => {
    expect(sizeClass(width)).toBe(expected);
  });
});
