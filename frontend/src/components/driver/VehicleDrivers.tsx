import { bindingCalls } from '../../api/manifest';
import { BindDialog, type BindSpec } from '../bind/BindDialog';
import driver from '../../resources/driver/driver';
import type { RowDialogProps } from '../../resources/types';

const calls = bindingCalls('vehicle', 'driver');

const spec: BindSpec = {
  ownerCode: 'vehicle',
  other: driver,
  columns: ['name', 'phone', 'jobNumber', 'mechanismId'],
  calls,
  ownerParam: 'carId',
  othersParam: 'driverIds',
  title: 'driver.driversTitle',
};

/** 车辆档案 → 授权司机: the drivers who may drive a vehicle (each driver at most 200 vehicles, checked by the server). */
export default function VehicleDrivers({ row, onClose, reload }: RowDialogProps) {
  return (
    <BindDialog
      spec={spec}
      owner={row}
      ownerName={String(row.carNo ?? '')}
      onClose={() => {
        onClose();
        reload();
      }}
    />
  );
}
