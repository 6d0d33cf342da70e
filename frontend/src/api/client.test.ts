import { describe, expect, it } from 'vitest';
import { apiGet, apiGetAt, apiPost, fillPath, type AnswerOf, type PathOf, type QueryOf } from './client';

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
      // @ts-expect-error a path without parameters given some
      void apiGetAt('/api/blade-system/dict/dictionary', { id: '1' });
      // @ts-expect-error a path parameter the path does not have
      void apiGetAt('/api/blade-fics/fics/message/messageInfo/{id}', { carId: '1' });
      // @ts-expect-error a path with parameters called without them
      void apiGet('/api/blade-fics/fics/message/messageInfo/{id}');
    }
  });

  it('fills the parameters of a path in, encoded', () => {
    expect(fillPath('/api/x/messageInfo/{id}', { id: '12' })).toBe('/api/x/messageInfo/12');
    expect(fillPath('/api/x/{a}/y/{b}', { a: 'a b', b: 3 })).toBe('/api/x/a%20b/y/3');
  });
});
