import { bindingCalls } from '../../api/manifest';
import { BindDialog, type BindSpec } from '../bind/BindDialog';
import vehicle from '../../resources/fleet/vehicle';
import type { RowDialogProps } from '../../resources/types';

const calls = bindingCalls('driver', 'vehicle');

const spec: BindSpec = {
  ownerCode: 'driver',
  other: vehicle,
  columns: ['carNo', 'deviceNumber', 'carType', 'mechanismId'],
  calls,
  ownerParam: 'driverId',
  othersParam: 'carIds',
  // at most 200 vehicles per driver (spec 001 §9), as the server says; vehicles bound together share a type
  limit: calls.limit,
  title: 'driver.vehiclesTitle',
};

/** 司机列表 → 授权车辆: the vehicles a driver is authorized for and the others, side by side (the 200 limit shown). */
export default function DriverVehicles({ row, onClose, reload }: RowDialogProps) {
  return (
    <BindDialog
      spec={spec}
      owner={row}
      ownerName={String(row.name ?? '')}
      onClose={() => {
        onClose();
        reload();
      }}
    />
  );
}
