import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { PILOT_EDIT_PATH, PILOT_VIEW_PATH } from '../../resources/driver/paths';
import type { RowDialogProps } from '../../resources/types';

function useOpen(path: string, { row, onClose }: RowDialogProps) {
  const navigate = useNavigate();
  useEffect(() => {
    onClose();
    void navigate(`${path}?id=${encodeURIComponent(String(row.id))}`);
    // once, when the row's button was pressed
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}

/** A row's "open page": the driver's view page (/locks/lockPilot). */
export default function OpenPilotView(props: RowDialogProps) {
  useOpen(PILOT_VIEW_PATH, props);
  return null;
}

/** A row's "full edit": the driver's page with cards, face photo and app account (/add/pilot). */
export function OpenPilotEdit(props: RowDialogProps) {
  useOpen(PILOT_EDIT_PATH, props);
  return null;
}
