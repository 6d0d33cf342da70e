import { describe, expect, it } from 'vitest';
import { LOGO_MAX_BYTES, isOwnLink, logoProblem } from './logo';

describe('logo checks before upload', () => {
  it('takes jpg, jpeg and png of at most 5 MB, whatever the case of the name', () => {
    for (const name of ['a.jpg', 'a.JPEG', 'b.png', 'c.d.Png']) expect(logoProblem({ name, size: 10 })).toBeNull();
    expect(logoProblem({ name: 'big.png', size: LOGO_MAX_BYTES })).toBeNull();
  });

  it('refuses other names, empty files and files over 5 MB', () => {
    expect(logoProblem({ name: 'a.gif', size: 10 })).toBe('logo.wrongType');
    expect(logoProblem({ name: 'png', size: 10 })).toBe('logo.wrongType');
    expect(logoProblem({ name: 'a.png.exe', size: 10 })).toBe('logo.wrongType');
    expect(logoProblem({ name: 'a.png', size: 0 })).toBe('logo.empty');
    expect(logoProblem({ name: 'a.png', size: 6 * 1024 * 1024 })).toBe('logo.tooLarge');
  });

  it('reads our own links with the token, shows other addresses as they are', () => {
    expect(isOwnLink('/api/blade-resource/attach/download?id=1')).toBe(true);
    expect(isOwnLink('https://cdn.example.com/logo.png')).toBe(false);
  });
});
