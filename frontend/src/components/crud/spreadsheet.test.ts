import { describe, expect, it } from 'vitest';
import { IMPORT_ACCEPT, isSpreadsheet } from './spreadsheet';

describe('import files', () => {
  it('takes .xls and .xlsx only, whatever the case', () => {
    expect(IMPORT_ACCEPT).toBe('.xls,.xlsx');
    for (const name of ['cars.xlsx', 'cars.XLS', '车辆.xlsx']) expect(isSpreadsheet(name), name).toBe(true);
    for (const name of ['cars.csv', 'cars.xlsx.exe', 'xlsx', 'cars.xlsm']) expect(isSpreadsheet(name), name).toBe(false);
  });
});
