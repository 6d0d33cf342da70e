"""Queries and rows of the vehicle efficiency report (spec 001 §3 "Report rows"; definitions: fleet-domain §4).

Times are hours with two decimals, summed from the daily aggregates (seconds) of the days of the range:
cumulative boot time = ACC on; move = travelling; load = carrying a load; move-load = travelling loaded; idle (free)
= boot − work, work being move ∪ load ∪ lift (per day, never below 0). Move efficiency = move / boot, in percent.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import Field

from liftdesk.core.report import Day, ReportQuery
from liftdesk.core.schemas import Id, Schema, dictionary

FESTIVAL = (
    "include holidays. There is no holiday calendar: true (the default) counts every day of the range; false leaves "
    "Saturdays and Sundays out (their hours are not summed, and they are not days of the daily series)"
)


class EfficiencyQuery(ReportQuery):
    """The vehicle efficiency report's filters: organisation (and those under it), range, vehicle, type, holidays."""

    car_no: str | None = Field(default=None, max_length=64, description="vehicle number contains this")
    car_type: Annotated[int, Field(ge=0, le=8), dictionary("car_type")] | None = None
    festival: bool = Field(default=True, description=FESTIVAL)

    def includes(self, day: date) -> bool:
        return self.festival or day.weekday() < 5


class EfficiencyRow(Schema):
    """One vehicle over the range."""

    car_id: Id
    mechanism_id: Id | None = None
    mechanism_name: str = ""
    car_no: str
    equipment_no: str | None = Field(default=None, description="the terminal's device number")
    car_type: int
    car_type_name: str = ""
    cumulative_boot_time: float = Field(description="hours with ACC on")
    load_time: float = Field(description="hours carrying a load")
    mobile_time: float = Field(description="hours travelling")
    free_time: float = Field(description="idle hours: boot − work")
    moving_load_time: float = Field(description="hours travelling loaded")
    mobile_efficiency: float = Field(description="move / boot, percent")


class EfficiencyTotals(Schema):
    """Every selected vehicle together (sums of the seconds, then hours; efficiency of the sums)."""

    vehicles: int
    cumulative_boot_time: float
    load_time: float
    mobile_time: float
    free_time: float
    moving_load_time: float
    mobile_efficiency: float


class FleetDay(Schema):
    """The selected vehicles on one day of the range."""

    search_time: Day = Field(description="the day (yyyy-MM-dd)")
    boot_time: float = Field(description="hours with ACC on, every vehicle summed")
    work_time: float = Field(description="hours working (move ∪ load ∪ lift)")
    mobile_time: float = Field(description="hours travelling")
    free_time: float = Field(description="idle hours: boot − work")
    working_vehicles: int = Field(description="vehicles that worked that day")
