import { createElement, lazy } from 'react';
import { Tag } from 'antd';
import type { PathOf } from '../../api/client';
import { operation } from '../../api/manifest';
import { defineResource } from '../types';

export const VEHICLE_LIST_PATH = '/fleet/vehicle';

// a vehicle's meter, CAN data, diagnosis, run history and charts, loaded when first opened
const VehicleDetail = lazy(() => import('../../components/vehicle/VehicleDetail'));
// the drivers who may drive a vehicle (issue 14), loaded when first opened
const VehicleDrivers = lazy(() => import('../../components/driver/VehicleDrivers'));

const withUnit = (unit: string) => (value: unknown) => (value === null || value === undefined || value === '' ? '-' : `${String(value)} ${unit}`);

/**
 * Vehicles and their terminals (spec 001 §3 "Vehicle (labels)"): a vehicle is registered with the device number its
 * terminal puts in the JT/T 808 header; from then on the terminal may connect and its data lands on this vehicle.
 * Calls, field types, limits and dictionaries come from the server's `vehicle` resource; so do the spreadsheet
 * import and export.
 */
export default defineResource({
  code: 'vehicle',
  resource: 'vehicle',
  title: 'resource.vehicle',
  // a replaced terminal registers under the same device number only after this (security: no takeover by number)
  rowActions: [
    {
      key: 'releaseTerminal',
      label: 'vehicle.releaseTerminal',
      permission: 'edit',
      button: 'terminal_release',
      confirm: 'vehicle.releaseConfirm',
      done: 'vehicle.released',
      path: '/api/liftdesk/terminal/release' satisfies PathOf<'post'>,
      params: (row) => ({ carId: String(row.id) }),
      when: (row) => !!row.deviceNumber,
    },
    { key: 'vehicleDetail', label: 'vehicleDetail.open', permission: 'view', open: VehicleDetail },
    { key: 'vehicleDrivers', label: 'driver.authorizeDrivers', permission: 'view', open: VehicleDrivers },
  ],
  columns: [
    { prop: 'carNo', label: 'vehicle.carNo', search: true, searchParam: 'carNo_like', width: 130 },
    {
      prop: 'deviceNumber',
      label: 'vehicle.deviceNumber',
      search: true,
      searchParam: 'deviceNumber_like',
      // the server's pattern allows 1 to 20 digits: the input stops at 20
      maxLength: 20,
      patternMessage: 'vehicle.deviceNumberRule',
      extra: 'vehicle.deviceNumberHelp',
      width: 150,
    },
    { prop: 'simNumber', label: 'vehicle.simNumber', width: 130 },
    { prop: 'carType', label: 'vehicle.carType', search: true, displayProp: 'carTypeName', width: 130 },
    { prop: 'carStatus', label: 'vehicle.carStatus', search: true, displayProp: 'carStatusName', width: 90 },
    { prop: 'mechanismId', label: 'vehicle.mechanism', type: 'tree', treeUrl: operation('dept', 'tree'), displayProp: 'mechanismName', width: 150 },
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
    { prop: 'frameNumber', label: 'vehicle.frameNumber', hideInTable: true },
    { prop: 'zjh', label: 'vehicle.zjh', hideInTable: true },
    { prop: 'brand', label: 'vehicle.brand', width: 100 },
    { prop: 'modelNumber', label: 'vehicle.modelNumber', width: 110 },
    { prop: 'licensePlate', label: 'vehicle.licensePlate', hideInTable: true },
    { prop: 'ratedLoadKg', label: 'vehicle.ratedLoad', hideInTable: true, format: withUnit('kg') },
    { prop: 'speedLimitKmh', label: 'vehicle.speedLimit', hideInTable: true, format: withUnit('km/h') },
    { prop: 'collisionThresholdG', label: 'vehicle.collisionThreshold', hideInTable: true, format: withUnit('g') },
    { prop: 'overloadThresholdKg', label: 'vehicle.overloadThreshold', hideInTable: true, format: withUnit('kg') },
    { prop: 'videoDevice', label: 'vehicle.videoDevice', hideInTable: true },
    // the server keeps date-times; these are days
    { prop: 'factoryDate', label: 'vehicle.factoryDate', type: 'date', hideInTable: true },
    { prop: 'registerDate', label: 'vehicle.registerDate', type: 'date', hideInTable: true },
    { prop: 'registrant', label: 'vehicle.registrant', hideInTable: true },
    { prop: 'engineNumber', label: 'vehicle.engineNumber', hideInTable: true },
    { prop: 'engineBrand', label: 'vehicle.engineBrand', hideInTable: true },
    { prop: 'batteryNumber', label: 'vehicle.batteryNumber', hideInTable: true },
    { prop: 'batteryBrand', label: 'vehicle.batteryBrand', hideInTable: true },
    { prop: 'batteryType', label: 'vehicle.batteryType', hideInTable: true },
    { prop: 'emissionType', label: 'vehicle.emissionType', hideInTable: true },
    { prop: 'environmentalCode', label: 'vehicle.environmentalCode', hideInTable: true },
    { prop: 'warrantyExpiry', label: 'vehicle.warrantyExpiry', type: 'date', hideInTable: true },
    { prop: 'mileage', label: 'vehicle.mileage', hideInForm: true, hideInSearch: true, hideInTable: true, format: withUnit('km') },
    { prop: 'createTime', label: 'common.createTime', type: 'datetime', readOnly: true, hideInSearch: true, width: 170 },
  ],
});
