import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServerClock } from '../../data/useServerClock';
import { defaultRange, rangeParams, rangeProblem, zonedToday, type DayRange } from '../../components/report/range';
import { ALARM_MAX_DAYS } from './api';

type Draft = [DayRange[0] | null, DayRange[1] | null] | null;

/**
 * The range of the alarm center (spec 001 §5: start not after end, at most 7 days, whole local days of the tenant
 * zone; default the last 7 days): the draft being picked, why it is refused, and the params it gives.
 */
export function useAlarmRange() {
  const { now, offset } = useServerClock();
  const today = zonedToday(now(), offset);
  const [draft, setDraft] = useState<Draft>(() => defaultRange(today));
  const problem = rangeProblem(draft, ALARM_MAX_DAYS);
  const params = () => (draft?.[0] && draft[1] ? rangeParams([draft[0], draft[1]]) : rangeParams(defaultRange(today)));
  const reset = () => setDraft(defaultRange(today));
  return { today, draft, setDraft, problem, params, reset, initial: rangeParams(defaultRange(today)) };
}

/** The label of an alarm kind: the monitor's, else the alarm center's, else what the server called it. */
export function useKindLabel() {
  const { t, i18n } = useTranslation();
  return (kind: string, fallback?: string) => {
    for (const key of [`monitor.alarm.${kind}`, `alarm.kind.${kind}`]) if (i18n.exists(key)) return t(key);
    return fallback ?? kind;
  };
}

/** The params of a search, empty values left out and texts trimmed. */
export function cleaned(values: Record<string, unknown>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === null) continue;
    if (typeof v === 'string') {
      if (v.trim()) out[k] = v.trim();
    } else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}
