import dayjs from 'dayjs';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { apiPost } from '../../api/client';
import { toast } from '../../api/toast';
import type { AlarmRow } from './api';

/** Working alarms (backend reporting/api/handling.py). */
export const WORK = '/api/liftdesk/alarm';

/** Acknowledge and close a selection of alarms; the lists are read again afterwards. */
export function useAlarmWork() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const done = async (message: string) => {
    toast.success(message);
    await client.invalidateQueries({ queryKey: ['alarms'] });
  };
  const ack = useMutation({
    mutationFn: (ids: string[]) => apiPost(`${WORK}/ack`, { ids: ids.join(',') }),
    onSuccess: (_d, ids) => done(t('alarm.work.acked', { count: ids.length })),
  });
  const close = useMutation({
    mutationFn: ({ ids, note }: { ids: string[]; note?: string }) => apiPost(`${WORK}/close`, { ids: ids.join(','), note: note || null }),
    onSuccess: (_d, { ids }) => done(t('alarm.work.closed', { count: ids.length })),
  });
  return { ack, close };
}

/** Ten minutes either side of the alarm (its end, when it has one), in the times the pages show and read. */
export function trackWindow(row: Pick<AlarmRow, 'beginTime' | 'endTime'>): { begin: string; end: string } {
  const format = 'YYYY-MM-DD HH:mm:ss';
  return {
    begin: dayjs(row.beginTime).subtract(10, 'minute').format(format),
    end: dayjs(row.endTime ?? row.beginTime).add(10, 'minute').format(format),
  };
}
