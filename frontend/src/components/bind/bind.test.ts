import { describe, expect, it } from 'vitest';
import { bindingCalls } from '../../api/manifest';
import { bindCheck } from './bind';

describe('binding', () => {
  it('takes the four calls of a binding, its button and its limit from the manifest', () => {
    expect(bindingCalls('fence', 'vehicle')).toEqual({
      bound: '/api/liftdesk/fence/boundCars',
      unbound: '/api/liftdesk/fence/unboundCars',
      bind: '/api/liftdesk/fence/bindCars',
      unbind: '/api/liftdesk/fence/unbindCars',
      button: 'fence_edit',
      limit: 2000,
    });
    expect(() => bindingCalls('fence', 'user')).toThrow();
    // the drivers authorized on a vehicle: a subject of its own (vehicle_driver), over the vehicles
    expect(bindingCalls('vehicle', 'driver')).toMatchObject({
      bound: '/api/blade-fics-report/fics/carInfo/getAuthDriver',
      bind: '/api/blade-fics-report/fics/carSet/carAuthorizationDriver',
      button: 'driver_auth',
    });
  });

  it('refuses an empty selection and one beyond the limit, naming what is left', () => {
    expect(bindCheck(0, 0, 10)).toEqual({ key: 'crud.selectOne' });
    expect(bindCheck(3, 7, 10)).toBeNull();
    expect(bindCheck(4, 7, 10)).toEqual({ key: 'bind.overLimit', values: { limit: 10, left: 3 } });
    expect(bindCheck(500, 7, undefined)).toBeNull();
  });
});
