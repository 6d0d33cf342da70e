"""What the fleet home page (首页, ``/wel/index``) asks and is answered (the ``carHome`` calls, spec 001 §7).

The specification names the calls only; their shapes are ours. Definitions (fleet-domain §4, spec 001 §9):

* **online**: the vehicle's terminal is connected now (``VehicleState.online``: it follows the connection, heartbeats
  included). In a trend, a vehicle counts as online in an hour or a day when its terminal sent at least one position
  in it (heartbeats are not stored, so a connected terminal that sent no position in that hour is not counted);
* **powered on**: online with ACC on (the live state is not ``off``); over a day: ACC on for some time that day
  (``DailyStat.boot_s`` > 0);
* **in alarm**: an alarm of the vehicle is in progress (collision, speeding, overload, fence, battery, long offline...);
* **terminal offline**: the vehicle names a terminal (a device number) that is not connected now;
* **device anomaly**: silent 7 days or more (``OFFLINE_ANOMALY_DAYS``, spec 001 §9);
* **utilisation**: work / boot time in percent, work being move ∪ load ∪ lift (fleet-domain §4).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from liftdesk.core.paging import MAX_PAGE
from liftdesk.core.report import Day, Period, ReportQuery, today
from liftdesk.core.schemas import Id, Schema, Time

#: Silent this many days or more: a device anomaly (spec 001 §9 "offline 7 consecutive days or more").
OFFLINE_ANOMALY_DAYS = 7
#: A state of charge under this (percent) is low (fleet-domain §3: "discharge below 20% SOC").
LOW_SOC_PCT = 20.0
#: The longest range of a home call (the reports' month).
HOME_MAX_DAYS = 31
#: The battery alarm kinds the pipeline raises (``telemetry.pipeline.stages.battery``).
BATTERY_KINDS = (
    "battery_low_voltage",
    "battery_high_voltage",
    "battery_over_current",
    "battery_over_temperature",
    "battery_liquid_level",
)


class HomeQuery(Schema):
    """The home page's filter: an organisation and every organisation under it (none: every vehicle the caller may
    see)."""

    dept_id: Id | None = Field(default=None, description="an organisation and every organisation under it")


class HomeRangeQuery(HomeQuery):
    """An organisation and a range of local days (``yyyy-MM-dd``, both included; default: today only)."""

    start_time: Day | None = Field(default=None, description="first day (yyyy-MM-dd); default: endTime")
    end_time: Day | None = Field(default=None, description="last day, included (yyyy-MM-dd); default: today")

    def period(self) -> Period:
        """The range, checked as the reports check theirs: start not after end (400 naming ``startTime``), at most
        31 days (400 naming ``startTime/endTime``)."""
        end = self.end_time or today()
        start = self.start_time or end
        return ReportQuery(start_time=start, end_time=end).period(HOME_MAX_DAYS)


class RecentAlarmsQuery(HomeRangeQuery):
    """The latest alarms of the range (default today), newest first."""

    size: int = Field(default=10, ge=1, le=50, description="how many (at most 50)")


class OfflineTerminalQuery(HomeQuery):
    """A page of the vehicles whose terminal is offline."""

    car_no: str | None = Field(default=None, max_length=64, description="vehicle number contains this")
    current: int = Field(default=1, ge=1, le=MAX_PAGE, description="page number, from 1")
    size: int = Field(default=10, ge=1, le=200, description="rows per page (at most 200)")


class FleetOverview(Schema):
    """The fleet now: the home page's cards."""

    total: int = Field(description="vehicles")
    online: int = Field(description="vehicles whose terminal is connected")
    offline: int = Field(description="total − online")
    powered_on: int = Field(description="online with ACC on (idle, moving or loaded)")
    idle: int = Field(description="powered on, standing without load")
    moving: int = Field(description="powered on, travelling without load")
    loaded: int = Field(description="powered on, carrying a load")
    in_alarm: int = Field(description="vehicles with an alarm in progress")
    with_terminal: int = Field(description="vehicles that name a terminal (device number)")
    terminal_offline: int = Field(description="vehicles naming a terminal that is not connected")
    online_rate: float = Field(description="online / total, percent")
    powered_on_rate: float = Field(description="powered on / total, percent")


class UsageSum(Schema):
    """Boot and work over the range (default today), from the daily aggregates."""

    start_time: Day
    end_time: Day
    powered_on_vehicles: int = Field(description="vehicles with ACC on for some time in the range")
    working_vehicles: int = Field(description="vehicles that worked (moved, carried or lifted) in the range")
    boot_hours: float = Field(description="hours with ACC on, every vehicle summed")
    work_hours: float = Field(description="hours working: move ∪ load ∪ lift")
    move_hours: float = Field(description="hours travelling")
    load_hours: float = Field(description="hours carrying a load")
    idle_hours: float = Field(description="boot − work")
    distance_km: float = Field(description="kilometres travelled")
    utilisation: float = Field(description="work / boot, percent")


class TrendPoint(Schema):
    """One hour or one day of the trend."""

    time: str = Field(description="the hour (yyyy-MM-dd HH:00) or the day (yyyy-MM-dd), local")
    online: int = Field(description="vehicles whose terminal sent a position in it")
    powered_on: int | None = Field(
        default=None, description="vehicles with ACC on for some time that day (days only; null for hours)"
    )


class OnlineTrend(Schema):
    """Vehicles online per hour (a one-day range: default today, up to the current hour) or per day."""

    unit: Literal["hour", "day"]
    total: int = Field(description="the vehicles of the filter (now)")
    points: list[TrendPoint]


class OfflineAnalysis(Schema):
    """The vehicles whose terminal is not connected, by how long it has been silent."""

    with_terminal: int = Field(description="vehicles that name a terminal")
    no_terminal: int = Field(description="vehicles that name none")
    online: int
    offline: int = Field(description="terminals not connected: the sum of the four groups below")
    never_seen: int = Field(description="never heard from")
    under_one_day: int = Field(description="silent less than a day")
    one_to_seven_days: int = Field(description="silent 1 to 7 days")
    seven_days_or_more: int = Field(description="silent 7 days or more: a device anomaly")
    anomaly_days: int = Field(default=OFFLINE_ANOMALY_DAYS, description="the anomaly threshold in days")


class OfflineTerminal(Schema):
    """A vehicle whose terminal is offline."""

    car_id: Id
    car_no: str
    device_number: str
    dept_id: Id | None = None
    dept_name: str = ""
    car_type: int
    car_type_name: str = ""
    last_seen: Time | None = Field(default=None, description="last heard from (null: never)")
    silent_days: float | None = Field(default=None, description="days since then, one decimal (null: never)")


class ProtocolCount(Schema):
    protocol: str = Field(description="jt808, mqtt, http; 'none' for a terminal never heard from")
    total: int
    online: int


class TerminalSummary(Schema):
    """The terminals of the caller's vehicles."""

    total: int = Field(description="vehicles that name a terminal")
    online: int
    offline: int
    never_connected: int = Field(description="named by a vehicle, never heard from")
    by_protocol: list[ProtocolCount]


class TypeCount(Schema):
    """Vehicles of one type (the ``car_type`` dictionary)."""

    car_type: int
    car_type_name: str
    total: int
    online: int
    powered_on: int


class OrganisationOnline(Schema):
    """Vehicles of one organisation (its own, not those under it)."""

    dept_id: Id | None = None
    dept_name: str = Field(description="empty for vehicles of no organisation")
    total: int
    online: int
    powered_on: int
    online_rate: float = Field(description="online / total, percent")


class CarDictItem(Schema):
    """A value of the vehicle type dictionary, in its order."""

    dict_key: str
    dict_value: str


class AlarmSummary(Schema):
    """Vehicle alarms over the range (default today), by type, from the daily aggregates."""

    start_time: Day
    end_time: Day
    total: int
    collision: int
    speeding: int
    overload: int
    fence: int = Field(description="in-fence, out-of-fence, crossing and speeding inside a fence")
    fault: int
    battery: int
    other: int = Field(description="the terminal's own alarm bits (jt808_*) and other stored kinds")
    vehicles_with_alarms: int = Field(description="vehicles with at least one alarm in the range")
    in_alarm_now: int = Field(description="vehicles with an alarm in progress now")


class KindCount(Schema):
    kind: str = Field(description="battery_low_voltage, battery_high_voltage, battery_over_current, ...")
    count: int


class BatterySummary(Schema):
    """Battery warnings over the range (default today) and the state of charge now."""

    start_time: Day
    end_time: Day
    total: int = Field(description="battery alarms in the range (the daily aggregates)")
    by_kind: list[KindCount] = Field(description="every battery alarm kind, 0 included (the events)")
    open_now: int = Field(description="vehicles with a battery alarm in progress")
    with_soc: int = Field(description="vehicles whose state reports a state of charge")
    low_soc: int = Field(description="vehicles whose latest state of charge is under lowSocThreshold")
    low_soc_threshold: float = LOW_SOC_PCT


class HomeAlarm(Schema):
    """One alarm (an event), newest first."""

    id: Id
    car_id: Id
    car_no: str
    dept_name: str = ""
    kind: str
    level: int
    begin_time: Time
    end_time: Time | None = Field(default=None, description="null while in progress")
    value: float | None = None
    limit_value: float | None = None
    driver_name: str | None = None
