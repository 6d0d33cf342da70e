import { describe, expect, it } from 'vitest';
import { apiGet, apiPost, type AnswerOf, type PathOf, type QueryOf } from './client';

/** The typed client refuses, at compile time, what the server's document does not have (`npm run typecheck`). */
describe('typed client', () => {
  it('types paths, queries and answers from the OpenAPI document', () => {
    const dictionary: PathOf<'get'> = '/api/blade-system/dict/dictionary';
    const query: QueryOf<'/api/blade-system/dict/dictionary', 'get'> = { code: 'sex' };
    const keyOf = (items: AnswerOf<'/api/blade-system/dict/dictionary', 'get'>) => items?.[0]?.dictKey;
    expect([dictionary, query.code, keyOf([])]).toEqual(['/api/blade-system/dict/dictionary', 'sex', undefined]);
    if (Math.random() > 2) {
      // never run: what follows must not compile
      // @ts-expect-error a path the server does not serve
      void apiGet('/api/blade-system/menu/routez');
      // @ts-expect-error a query parameter the call does not take
      void apiGet('/api/blade-system/dict/dictionary', { kode: 'x' });
      // @ts-expect-error a GET-only path used with POST
      void apiPost('/api/blade-system/dict/dictionary', {});
    }
  });
});
