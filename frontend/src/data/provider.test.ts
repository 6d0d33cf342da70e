import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toaster } from '../api/toast';
import { RESOURCES } from '../resources';
import { ApiError } from '../api/request';
import { dataProvider, ProviderError, saveUrl } from './provider';

type Call = { url: string; method: string; body: unknown };

/** A fetch that answers each call with the next of `answers` (an envelope's `data`) and records the calls. */
function server(...answers: unknown[]) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, method: String(init.method), body: init.body ? JSON.parse(String(init.body)) : undefined });
    const data = answers.length ? answers.shift() : null;
    if (data instanceof Error) return new Response(JSON.stringify({ code: 400, success: false, msg: data.message }), { status: 400 });
    return new Response(JSON.stringify({ code: 200, success: true, data, msg: '' }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetch);
  return calls;
}

describe('data provider', () => {
  beforeEach(() => toaster.setSink({ open: (_k, _t, close) => close() }));
  afterEach(() => {
    vi.unstubAllGlobals();
    toaster.setSink(null);
  });

  it('lists a page with GET and the filters, a POST page with them in the query, a tree as rows', async () => {
    const { vehicle, fence, dept } = RESOURCES;
    const calls = server({ records: [{ id: '1', carNo: 'A' }], total: '7' }, { records: [], total: 0 }, [{ id: '9', children: [] }]);
    expect(await dataProvider.list(vehicle, { current: 1, size: 10, carNo_like: 'A' })).toEqual({ rows: [{ id: '1', carNo: 'A' }], total: 7 });
    expect(calls[0]).toMatchObject({ method: 'GET', url: `${vehicle.api.list}?current=1&size=10&carNo_like=A` });
    await dataProvider.list(fence, { current: 2, size: 10 });
    expect(calls[1]).toMatchObject({ method: 'POST', url: `${fence.api.list}?current=2&size=10`, body: undefined });
    // a tree's empty children are pruned (no expand icon on leaves)
    expect(await dataProvider.list(dept)).toEqual({ rows: [{ id: '9' }], total: 1 });
  });

  it('reads one row, creates through the create call, updates through submit, removes by ids', async () => {
    const { vehicle, post } = RESOURCES;
    const calls = server({ id: '5', carNo: 'X' }, true, true, true, true);
    expect(await dataProvider.one(vehicle, '5')).toEqual({ id: '5', carNo: 'X' });
    expect(calls[0].url).toBe(`${vehicle.api.detail}?id=5`);
    await dataProvider.create(vehicle, { carNo: 'Y' });
    await dataProvider.update(vehicle, { id: '5', carNo: 'Z' });
    expect(calls[1]).toMatchObject({ method: 'POST', url: vehicle.api.create, body: { carNo: 'Y' } });
    expect(calls[2]).toMatchObject({ method: 'POST', url: vehicle.api.submit, body: { id: '5', carNo: 'Z' } });
    // a resource with one save call (submit) creates with it
    await dataProvider.create(post, { postName: 'p' });
    expect(calls[3].url).toBe(post.api.submit);
    await dataProvider.remove(vehicle, ['1', '2']);
    expect(calls[4]).toMatchObject({ method: 'POST', url: `${vehicle.api.remove}?ids=1%2C2` });
  });

  it('refuses what the resource has no call for, without calling the server', async () => {
    const calls = server();
    const { command } = RESOURCES;
    expect(saveUrl(command, 'create')).toBeUndefined();
    await expect(dataProvider.create(command, {})).rejects.toBeInstanceOf(ProviderError);
    await expect(dataProvider.update(command, {})).rejects.toBeInstanceOf(ProviderError);
    await expect(dataProvider.remove(command, ['1'])).rejects.toBeInstanceOf(ProviderError);
    await expect(dataProvider.remove(RESOURCES.vehicle, [])).rejects.toBeInstanceOf(ProviderError);
    expect(calls).toEqual([]);
  });

  it('calls an action with its method, query and body, and rejects with the server message', async () => {
    const calls = server(3, { records: [], total: 0 }, new Error('too many'));
    expect(await dataProvider.custom('/api/liftdesk/fence/bindCars', { method: 'POST', data: { fenceId: '1', carIds: ['2'] } })).toBe(3);
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/api/liftdesk/fence/bindCars', body: { fenceId: '1', carIds: ['2'] } });
    await dataProvider.custom('/api/liftdesk/fence/boundCars', { params: { fenceId: '1', current: 1 } });
    expect(calls[1]).toMatchObject({ method: 'GET', url: '/api/liftdesk/fence/boundCars?fenceId=1&current=1' });
    const failed = dataProvider.custom('/api/x', { method: 'POST', params: { a: 1 } });
    await expect(failed).rejects.toBeInstanceOf(ApiError);
    await expect(failed).rejects.toMatchObject({ message: 'too many', code: 400 });
    expect(calls[2].url).toBe('/api/x?a=1');
  });
});
