import { bindingCalls, manifestResource } from '../../api/manifest';
import { BindDialog, type BindSpec } from '../../components/bind/BindDialog';
import { rowLabel } from '../../components/crud/names';
import vehicle from '../../resources/fleet/vehicle';
import type { RowDialogProps } from '../../resources/types';

/** The most vehicles one fence is bound to: the server's `MAX_FENCE_VEHICLES` (fleet/fences_api.py). */
export const FENCE_VEHICLE_LIMIT = 2_000;

const spec: BindSpec = {
  ownerCode: 'fence',
  other: vehicle,
  columns: ['carNo', 'deviceNumber', 'carType', 'mechanismId'],
  calls: bindingCalls('fence', 'vehicle'),
  ownerParam: 'fenceId',
  othersParam: 'carIds',
  limit: FENCE_VEHICLE_LIMIT,
  title: 'fence.vehiclesTitle',
};

/** 电子围栏 → 绑定车辆: the vehicles of one fence, bound and unbound (their terminals get or drop the area). */
export default function FenceVehicles({ row, onClose, reload }: RowDialogProps) {
  const name = rowLabel({ labelField: manifestResource('fence').label }, row);
  return (
    <BindDialog
      spec={spec}
      owner={row}
      ownerName={name}
      onClose={() => {
        onClose();
        reload();
      }}
    />
  );
}
