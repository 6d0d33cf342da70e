import type { BodyOf, PathOf } from '../../api/client';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** One behaviour alarm type and its count (backend reporting/driver_behavior.py `TypeCount`). */
export type TypeCount = Schemas['BehaviorTypeCount'];
/** One day of the trend: every type's count and the day's total. */
export type DayCounts = Schemas['BehaviorDay'];

const BEHAVIOR = '/api/blade-fics/fics/driverBehaviorAnalysis';

/** The analysis' calls (actions of its own resource `driver_behavior`, over the vehicles' scope). */
export const behaviorCalls = () => ({
  counts: `${BEHAVIOR}/getFaceAlarmTypeCount` as const satisfies PathOf<'post'>,
  trend: `${BEHAVIOR}/getFaceAlarmTypeCountTrend` as const satisfies PathOf<'post'>,
});

/** What both calls take: a range of days, an organisation branch, vehicles by number. */
export type BehaviorFilter = NonNullable<BodyOf<ReturnType<typeof behaviorCalls>['counts']>>;

/** The longest range of the analysis (backend reporting/driver_behavior.py MAX_DAYS). */
export const BEHAVIOR_MAX_DAYS = 31;
