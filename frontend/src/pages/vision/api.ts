import { action } from '../../api/manifest';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One behaviour alarm type and its count (backend reporting/driver_behavior.py `TypeCount`). */
export type TypeCount = Schemas['BehaviorTypeCount'];
/** One day of the trend: every type's count and the day's total. */
export type DayCounts = Schemas['BehaviorDay'];

/** The analysis' calls, from the server's manifest (actions of its own resource, over the vehicles' scope). */
export const behaviorCalls = () => ({
  counts: action('driver_behavior', 'face_alarm_type_count'),
  trend: action('driver_behavior', 'face_alarm_type_count_trend'),
});

/** The longest range of the analysis (backend reporting/driver_behavior.py MAX_DAYS). */
export const BEHAVIOR_MAX_DAYS = 31;
