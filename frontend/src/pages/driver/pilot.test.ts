import { describe, expect, it } from 'vitest';
import { cardPayload, cardProblem, checkFace, FACE_MAX_BYTES } from './pilot';

describe('the driver page rules', () => {
  it('takes JPG and PNG face photos up to 5 MB', () => {
    expect(checkFace({ type: 'image/png', size: 1000, name: 'a.png' })).toBeNull();
    expect(checkFace({ type: 'image/jpeg', size: FACE_MAX_BYTES, name: 'a.jpg' })).toBeNull();
    expect(checkFace({ type: 'image/gif', size: 1000, name: 'a.gif' })).toBe('driver.faceType');
    expect(checkFace({ type: 'image/png', size: FACE_MAX_BYTES + 1, name: 'a.png' })).toBe('driver.faceTooLarge');
  });

  it('asks a main card for number, serial and password, a sub card for its level', () => {
    expect(cardProblem(undefined, 1)).toBeNull();
    expect(cardProblem({}, 1)).toBeNull();
    expect(cardProblem({ cardNumber: 'IC1', serialNumber: '0123456789' }, 1)).toBe('driver.mainCardRule');
    expect(cardProblem({ cardNumber: 'IC1', serialNumber: '012345678', password: '1234' }, 1)).toBe('driver.serialRule');
    expect(cardProblem({ cardNumber: 'IC1', serialNumber: '0123456789', password: '12a4' }, 1)).toBe('driver.passwordRule');
    expect(cardProblem({ cardNumber: 'IC1', serialNumber: '0123456789', password: '1234' }, 1)).toBeNull();
    expect(cardProblem({ id: '5', cardNumber: 'IC1', serialNumber: '0123456789', hasPassword: true }, 1)).toBeNull();
    expect(cardProblem({ cardNumber: 'S1', serialNumber: '0123456789' }, 2)).toBe('driver.subCardRule');
    expect(cardProblem({ cardNumber: 'S1', serialNumber: '0123456789', cardLevel: '2' }, 2)).toBeNull();
  });

  it('sends a stored password back masked and numbers as numbers', () => {
    expect(cardPayload({ id: '5', cardNumber: 'IC1', serialNumber: '0123456789', cardLevel: '1', hasPassword: true }, 1)).toEqual({
      id: '5',
      cardKind: 1,
      cardNumber: 'IC1',
      serialNumber: '0123456789',
      cardLevel: 1,
      verifyMode: null,
      password: '******',
    });
    expect(cardPayload({}, 2)).toBeNull();
  });
});
