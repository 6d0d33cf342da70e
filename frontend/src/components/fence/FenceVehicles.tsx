import { bindingCalls, manifestResource } from '../../api/manifest';
import { BindDialog, type BindSpec } from '../bind/BindDialog';
import { rowLabel } from '../crud/names';
import vehicle from '../../resources/fleet/vehicle';
import type { RowDialogProps } from '../../resources/types';

const calls = bindingCalls('fence', 'vehicle');

const spec: BindSpec = {
  ownerCode: 'fence',
  other: vehicle,
  columns: ['carNo', 'deviceNumber', 'carType', 'mechanismId'],
  calls,
  ownerParam: 'fenceId',
  othersParam: 'carIds',
  // the most vehicles one fence is bound to, as the server says (fleet/api/fences.py MAX_FENCE_VEHICLES)
  limit: calls.limit,
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
