import type { Params } from '../../api/request';

/**
 * The name of an export: ``name``, and the period its filters name (``startTime``/``beginTime`` to ``endTime``), so
 * that two exports of different weeks do not read alike: ``alarms-all_2026-05-01_2026-05-07.xlsx``.
 */
export function exportFileName(name: string, params: Params): string {
  const day = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null);
  const start = day(params.startTime ?? params.beginTime);
  const end = day(params.endTime);
  const period = start && end ? (start === end ? `_${start}` : `_${start}_${end}`) : '';
  return `${name}${period}.xlsx`;
}
