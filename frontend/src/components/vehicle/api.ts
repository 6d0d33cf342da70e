import { apiGet } from '../../api/client';
import type { components } from '../../api/schema';
import type { DayRange } from '../report/range';
import { DAY_FORMAT, rangeParams } from '../report/range';

type Schemas = components['schemas'];

/** A vehicle's file and terminal, its meter now, its run history, its diagnosis (backend telemetry/api/status.py). */
export type VehicleInfo = Schemas['VehicleInfo'];
export type Meter = Schemas['Meter'];
export type StageHistory = Schemas['StageHistory'];
export type StageDay = Schemas['StageDay'];
export type Diagnosis = Schemas['Diagnosis'];
/** The charts of `monitor/*` (backend telemetry/api/monitor_charts.py). */
export type Mileage = Schemas['Mileage'];
export type Thermal = Schemas['Thermal'];
export type Calendar = Schemas['Calendar'];
export type Waterfall = Schemas['Waterfall'];
export type Temperatures = Schemas['Temperatures'];
export type RunCondition = Schemas['RunCondition'];
/** The CAN charts of `monitor/*`: the engine and its after-treatment (backend telemetry/api/monitor_can.py). */
export type Throttle = Schemas['Throttle'];
export type Fuel = Schemas['Fuel'];
export type AfterTreatment = Schemas['AfterTreatment'];
export type Pressure = Schemas['Pressure'];
export type RoadSpectrum = Schemas['RoadSpectrum'];
export type Resistance = Schemas['Resistance'];

/** The longest range of the detail's charts (backend status.py MAX_DAYS, track.py MAX_PERIOD). */
export const DETAIL_MAX_DAYS = 7;

const S = '/api/blade-fics-report/fics/carStatus';
const M = '/api/blade-fics-report/fics/monitor';

/** The range as whole local days (`startTime` / `endTime`), and as times (`beginTime` / `endTime`, the period calls). */
export function periodParams(range: DayRange): { beginTime: string; endTime: string } {
  return { beginTime: `${range[0].format(DAY_FORMAT)} 00:00:00`, endTime: `${range[1].format(DAY_FORMAT)} 23:59:59` };
}

export const vehicleCalls = {
  info: (carId: string) => apiGet(`${S}/getVehicleInfo`, { carId }),
  meter: (carId: string) => apiGet(`${S}/getRealTimeMeter`, { carId }),
  live: (carId: string) => apiGet('/api/blade-fics-report/fics/positionTrailing/carRealTimeInfo', { carId }),
  stages: (carId: string, range: DayRange) => apiGet(`${S}/getStageCnt`, { carId, ...rangeParams(range) }),
  diagnosis: (carId: string, range: DayRange) => apiGet(`${S}/getDiagnoseReport`, { carId, ...rangeParams(range) }),
  mileage: (carId: string, range: DayRange) => apiGet(`${M}/getTotalMileage`, { carId, ...rangeParams(range) }),
  thermal: (carId: string, range: DayRange) => apiGet(`${M}/getWorkTimeThermal`, { carId, ...rangeParams(range) }),
  waterfall: (carId: string, range: DayRange) => apiGet(`${M}/getCarTeamWaterfall`, { carId, ...rangeParams(range) }),
  calendar: (carId: string, month: string) => apiGet(`${M}/getWorkEfficiencyCalendar`, { carId, month }),
  temperature: (carId: string, range: DayRange) => apiGet(`${M}/getTemperature`, { carId, ...periodParams(range) }),
  runCondition: (carId: string, range: DayRange) => apiGet(`${M}/getRunCondition`, { carId, ...periodParams(range) }),
  throttle: (carId: string, range: DayRange) => apiGet(`${M}/getThrottleOpening`, { carId, ...periodParams(range) }),
  fuel: (carId: string, range: DayRange) => apiGet(`${M}/getFuelInjectionQuantity`, { carId, ...periodParams(range) }),
  afterTreatment: (carId: string, range: DayRange) => apiGet(`${M}/getEcuPostProcessing`, { carId, ...periodParams(range) }),
  pressure: (carId: string, range: DayRange) => apiGet(`${M}/getDifferentialPressure`, { carId, ...periodParams(range) }),
  spectrum: (carId: string, range: DayRange) => apiGet(`${M}/getStrengthenRoadSpectrum`, { carId, ...periodParams(range) }),
  resistance: (carId: string, range: DayRange) => apiGet(`${M}/getFilteredFlowResistance`, { carId, ...periodParams(range) }),
};
