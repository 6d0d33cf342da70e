import { createElement } from 'react';
import { Tag } from 'antd';
import { defineResource } from '../types';

const F = '/api/blade-fics-report/fics/carInfo';
export const VEHICLE_LIST_PATH = '/fleet/vehicle';

const DEPT_TREE = '/api/blade-system/dept/tree';
const withUnit = (unit: string) => (value: unknown) => (value === null || value === undefined || value === '' ? '-' : `${String(value)} ${unit}`);

/**
 * Vehicles and their terminals (spec 001 §3 "Vehicle (labels)"): a vehicle is registered with the device number its
 * terminal puts in the JT/T 808 header; from then on the terminal may connect and its data lands on this vehicle.
 */
export default defineResource({
  code: 'vehicle',
  title: 'resource.vehicle',
  api: {
    list: `${F}/page`,
    detail: `${F}/getCarInfo`,
    create: `${F}/insertCarInfo`,
    submit: `${F}/updateCarInfoById`,
    remove: `${F}/deleteCarInfoById`,
  },
  paged: true,
  // a replaced terminal registers under the same device number only after this (security: no takeover by number)
  rowActions: [
    {
      key: 'releaseTerminal',
      label: 'vehicle.releaseTerminal',
      permission: 'edit',
      confirm: 'vehicle.releaseConfirm',
      done: 'vehicle.released',
      path: '/api/liftdesk/terminal/release',
      params: (row) => ({ carId: String(row.id) }),
      when: (row) => !!row.deviceNumber,
    },
  ],
  columns: [
    { prop: 'carNo', label: 'vehicle.carNo', search: true, searchParam: 'carNo_like', required: true, maxLength: 64, width: 130 },
    {
      prop: 'deviceNumber',
      label: 'vehicle.deviceNumber',
      search: true,
      searchParam: 'deviceNumber_like',
      maxLength: 20,
      rules: [{ pattern: /^[0-9]{1,20}$/, message: 'vehicle.deviceNumberRule' }],
      extra: 'vehicle.deviceNumberHelp',
      width: 150,
    },
    { prop: 'simNumber', label: 'vehicle.simNumber', maxLength: 20, width: 130 },
    { prop: 'carType', label: 'vehicle.carType', type: 'dict', dictCode: 'car_type', valueType: 'number', search: true, displayProp: 'carTypeName', required: true, defaultValue: '3', width: 130 },
    { prop: 'carStatus', label: 'vehicle.carStatus', type: 'dict', dictCode: 'car_status', valueType: 'number', search: true, displayProp: 'carStatusName', defaultValue: '0', width: 90 },
    { prop: 'mechanismId', label: 'vehicle.mechanism', type: 'tree', treeUrl: DEPT_TREE, displayProp: 'mechanismName', width: 150 },
    {
      prop: 'online',
      label: 'vehicle.online',
      hideInForm: true,
      hideInSearch: true,
      width: 80,
      format: (value, _row, t) => createElement(Tag, { color: value ? 'success' : 'default' }, t(value ? 'vehicle.isOnline' : 'vehicle.isOffline')),
    },
    {
      prop: 'state',
      label: 'vehicle.state',
      hideInForm: true,
      hideInSearch: true,
      width: 80,
      format: (value, _row, t) => (value ? t(`monitor.state.${String(value)}`) : '-'),
    },
    { prop: 'gpsTime', label: 'vehicle.gpsTime', type: 'datetime', hideInForm: true, hideInSearch: true, width: 170 },
    { prop: 'frameNumber', label: 'vehicle.frameNumber', maxLength: 64, hideInTable: true },
    { prop: 'zjh', label: 'vehicle.zjh', maxLength: 64, hideInTable: true },
    { prop: 'brand', label: 'vehicle.brand', maxLength: 64, width: 100 },
    { prop: 'modelNumber', label: 'vehicle.modelNumber', maxLength: 64, width: 110 },
    { prop: 'licensePlate', label: 'vehicle.licensePlate', maxLength: 32, hideInTable: true },
    { prop: 'ratedLoadKg', label: 'vehicle.ratedLoad', type: 'number', min: 0, max: 100000, hideInTable: true, format: withUnit('kg') },
    { prop: 'speedLimitKmh', label: 'vehicle.speedLimit', type: 'number', min: 0, max: 30, hideInTable: true, format: withUnit('km/h') },
    { prop: 'collisionThresholdG', label: 'vehicle.collisionThreshold', type: 'number', min: 0, max: 20, hideInTable: true, format: withUnit('g') },
    { prop: 'overloadThresholdKg', label: 'vehicle.overloadThreshold', type: 'number', min: 0, max: 100000, hideInTable: true, format: withUnit('kg') },
    { prop: 'videoDevice', label: 'vehicle.videoDevice', maxLength: 64, hideInTable: true },
    { prop: 'factoryDate', label: 'vehicle.factoryDate', type: 'date', hideInTable: true },
    { prop: 'registerDate', label: 'vehicle.registerDate', type: 'date', hideInTable: true },
    { prop: 'registrant', label: 'vehicle.registrant', maxLength: 64, hideInTable: true },
    { prop: 'engineNumber', label: 'vehicle.engineNumber', maxLength: 64, hideInTable: true },
    { prop: 'engineBrand', label: 'vehicle.engineBrand', maxLength: 32, hideInTable: true },
    { prop: 'batteryNumber', label: 'vehicle.batteryNumber', maxLength: 32, hideInTable: true },
    { prop: 'batteryBrand', label: 'vehicle.batteryBrand', maxLength: 32, hideInTable: true },
    { prop: 'batteryType', label: 'vehicle.batteryType', maxLength: 32, hideInTable: true },
    { prop: 'emissionType', label: 'vehicle.emissionType', maxLength: 32, hideInTable: true },
    { prop: 'environmentalCode', label: 'vehicle.environmentalCode', maxLength: 64, hideInTable: true },
    { prop: 'warrantyExpiry', label: 'vehicle.warrantyExpiry', type: 'date', hideInTable: true },
    { prop: 'mileage', label: 'vehicle.mileage', hideInForm: true, hideInSearch: true, hideInTable: true, format: withUnit('km') },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, width: 170 },
  ],
});
