import { describe, expect, it } from 'vitest';
import { mobileProblem } from './rules';

describe('mobile number rule (spec 000 §5)', () => {
  it('names empty, wrong length and landline numbers apart', () => {
    expect(mobileProblem('')).toBe('required');
    expect(mobileProblem('  ')).toBe('required');
    expect(mobileProblem('1391234567')).toBe('length');
    expect(mobileProblem('010-12345678')).toBe('format');
    expect(mobileProblem('23912345678')).toBe('format');
    expect(mobileProblem('13912345678')).toBeNull();
  });
});
