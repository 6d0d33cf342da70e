"""Fence geometry (pure) and the fence stage of the pipeline on real databases, one test per alarm mode."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Fence, FenceCar, Vehicle
from liftdesk.telemetry.fences import (
    FenceGeo,
    haversine_m,
    in_circle,
    in_polygon,
    polygon_is_simple,
    segments_intersect,
)
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.models import DailyStat, Event, VehicleState
from liftdesk.telemetry.pipeline import Pipeline

T0 = datetime(2026, 6, 1, 2, 0, 0)  # 10:00 in UTC+8
ON, NO_FIX = 1 | 2, 1  # ACC on with a valid fix; ACC on without one
C_LON, C_LAT = 121.5, 31.2
INSIDE = (C_LON, C_LAT)
OUTSIDE = (C_LON + 0.01, C_LAT)  # ~950 m east of the centre
SQUARE = [[121.49, 31.19], [121.51, 31.19], [121.51, 31.21], [121.49, 31.21]]
# An L: the notch (121.505, 31.205) lies inside the bounding box but outside the polygon.
L_SHAPE = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]


# --------------------------------------------------------------------------- geometry


def test_haversine_against_known_distances() -> None:
    assert haversine_m(0.0, 0.0, 0.0, 1.0) == pytest.approx(111_195, rel=1e-4)  # one degree on the equator
    assert haversine_m(31.2, 121.5, 31.2, 121.5) == 0.0
    # Shanghai People's Square → Pudong airport, about 30 km as the crow flies
    assert haversine_m(31.2304, 121.4737, 31.1443, 121.8083) == pytest.approx(33_300, rel=0.02)


def test_point_in_circle() -> None:
    assert in_circle(C_LON, C_LAT, C_LON, C_LAT, 10)
    north_90m = C_LAT + 90 / 111_195
    assert in_circle(C_LON, north_90m, C_LON, C_LAT, 100)
    assert not in_circle(C_LON, north_90m, C_LON, C_LAT, 80)
    assert not in_circle(*OUTSIDE, C_LON, C_LAT, 500)
    assert in_circle(*OUTSIDE, C_LON, C_LAT, 1_000)


def test_point_in_convex_and_concave_polygons() -> None:
    square = [(p[0], p[1]) for p in SQUARE]
    assert in_polygon(121.5, 31.2, square)
    assert not in_polygon(121.52, 31.2, square) and not in_polygon(121.5, 31.22, square)
    assert in_polygon(0.5, 0.5, L_SHAPE) and in_polygon(1.5, 0.5, L_SHAPE) and in_polygon(0.5, 1.5, L_SHAPE)
    assert not in_polygon(1.5, 1.5, L_SHAPE), "the notch of the L is outside"
    assert not in_polygon(-0.5, 0.5, L_SHAPE) and not in_polygon(2.5, 0.5, L_SHAPE)
    # a ray through a vertex does not count it twice
    diamond = [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)]
    assert in_polygon(0.0, 0.0, diamond) and not in_polygon(-2.0, 0.0, diamond) and not in_polygon(2.0, 0.0, diamond)


def test_fence_bounding_box_keeps_the_answer() -> None:
    circle = FenceGeo.circle(1, "c", 1, None, C_LON, C_LAT, 100)
    x0, y0, x1, y1 = circle.bbox
    assert x0 < C_LON < x1 and y0 < C_LAT < y1
    assert circle.contains(C_LON, C_LAT + 99 / 111_195) and not circle.contains(C_LON, C_LAT + 101 / 111_195)
    assert not circle.contains(*OUTSIDE)
    concave = FenceGeo.polygon(2, "L", 1, None, L_SHAPE)
    assert concave.bbox == (0.0, 0.0, 2.0, 2.0)
    assert concave.contains(0.5, 1.5) and not concave.contains(1.5, 1.5) and not concave.contains(3.0, 3.0)


def test_simple_polygons_and_crossing_edges() -> None:
    assert polygon_is_simple(L_SHAPE)
    assert polygon_is_simple([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)])
    assert not polygon_is_simple([(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]), "a bow tie"
    assert not polygon_is_simple([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]), "no area"
    assert not polygon_is_simple([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (1.0, 0.0)]), "a repeated vertex"
    assert segments_intersect((0, 0), (2, 2), (0, 2), (2, 0))
    assert segments_intersect((0, 0), (2, 0), (1, 0), (3, 0)), "collinear overlap"
    assert not segments_intersect((0, 0), (1, 0), (2, 0), (3, 0))
    assert not segments_intersect((0, 0), (1, 1), (1, 0), (2, -1))


# --------------------------------------------------------------------------- the pipeline stage


async def vehicle(db: Database) -> tuple[int, str]:
    device = f"{next_id() % 10**12:012d}"
    car = Vehicle(tenant_id="000000", car_no=f"FN-{device[-4:]}", device_number=device, car_type=4)
    async with db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    return car.id, device


async def fence(db: Database, vid: int, mode: int, *, polygon: bool = False, **kw: Any) -> int:
    row = Fence(
        tenant_id="000000",
        name=kw.pop("name", f"F{mode}-{next_id() % 10000}"),
        fence_type=2 if polygon else 1,
        alarm_mode=mode,
        enable_status=kw.pop("enable_status", 1),
        area_id=next_id() % 10**9,
        **kw,
    )
    if polygon:
        row.points = json.dumps(SQUARE)
    else:
        row.center_lon, row.center_lat, row.radius_m = C_LON, C_LAT, 100.0
    async with db.sessionmaker() as s:
        s.add(row)
        await s.flush()
        s.add(FenceCar(tenant_id="000000", fence_id=row.id, vehicle_id=vid))
        await s.commit()
    return row.id


def at(sec: float, where: tuple[float, float], **kw: Any) -> Fix:
    base: dict[str, Any] = {"lon": where[0], "lat": where[1], "status": ON}
    base.update(kw)
    return Fix(time=T0 + timedelta(seconds=sec), **base)


def report(device: str, *fixes: Fix) -> Report:
    return Report(device=device, fixes=fixes, received_at=T0)


async def events(db: Database, vid: int) -> list[Event]:
    async with db.sessionmaker() as s:
        stmt = select(Event).where(Event.vehicle_id == vid).order_by(Event.begin_time, Event.kind)
        return list((await s.execute(stmt)).scalars().all())


async def fence_n(db: Database, vid: int) -> int:
    async with db.sessionmaker() as s:
        rows = (await s.execute(select(DailyStat.fence_n).where(DailyStat.vehicle_id == vid))).scalars().all()
    return sum(rows)


def span(e: Event) -> tuple[float, float | None]:
    end = (e.end_time - T0).total_seconds() if e.end_time else None
    return (e.begin_time - T0).total_seconds(), end


async def test_mode_1_in_fence_alarm_while_inside(db: Database) -> None:
    vid, dev = await vehicle(db)
    fid = await fence(db, vid, 1, name="Dock")
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, at(0, OUTSIDE), at(10, INSIDE), at(20, INSIDE), at(30, OUTSIDE), at(40, OUTSIDE))])
    [ev] = await events(db, vid)
    assert ev.kind == "fence_in" and span(ev) == (10, 30)
    assert json.loads(ev.detail or "{}") == {"fenceId": str(fid), "fenceName": "Dock"}
    assert await fence_n(db, vid) == 1


async def test_mode_2_out_of_fence_alarm_while_outside(db: Database) -> None:
    vid, dev = await vehicle(db)
    await fence(db, vid, 2, polygon=True)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, at(0, INSIDE), at(10, OUTSIDE), at(20, OUTSIDE), at(30, INSIDE))])
    await p.process([report(dev, at(40, OUTSIDE))])  # out again: a second alarm, still open
    first, second = await events(db, vid)
    assert (first.kind, span(first)) == ("fence_out", (10, 30))
    assert (second.kind, span(second)) == ("fence_out", (40, None))
    assert await fence_n(db, vid) == 2


async def test_mode_3_boundary_alarm_on_each_crossing(db: Database) -> None:
    vid, dev = await vehicle(db)
    fid = await fence(db, vid, 3, name="Gate")
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, at(0, OUTSIDE), at(10, INSIDE), at(20, INSIDE), at(30, OUTSIDE))])
    cross_in, cross_out = await events(db, vid)
    assert [e.kind for e in (cross_in, cross_out)] == ["fence_cross", "fence_cross"]
    assert span(cross_in) == (10, 10) and span(cross_out) == (30, 30), "instant events"
    assert json.loads(cross_in.detail or "{}") == {"fenceId": str(fid), "fenceName": "Gate", "action": "in"}
    assert json.loads(cross_out.detail or "{}")["action"] == "out"
    assert await fence_n(db, vid) == 2


async def test_mode_4_speed_limit_inside(db: Database) -> None:
    vid, dev = await vehicle(db)
    await fence(db, vid, 4, speed_limit=5.0)
    p = Pipeline(db, LocalBus())
    await p.process(
        [
            report(
                dev,
                at(0, INSIDE, speed_kmh=3),
                at(10, INSIDE, speed_kmh=8),
                at(20, INSIDE, speed_kmh=9),
                at(30, OUTSIDE, speed_kmh=9),  # leaving the fence ends it, however fast
                at(40, OUTSIDE, speed_kmh=11),
                at(50, INSIDE, speed_kmh=4),
            )
        ]
    )
    [ev] = [e for e in await events(db, vid) if e.kind.startswith("fence")]
    assert ev.kind == "fence_speeding" and span(ev) == (10, 30)
    assert (ev.value, ev.max_value, ev.limit_value) == (8, 9, 5)
    assert await fence_n(db, vid) == 1


async def test_a_speed_limit_of_zero_lifts_the_limit(db: Database) -> None:
    vid, dev = await vehicle(db)
    await fence(db, vid, 4, speed_limit=0.0)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, at(0, INSIDE, speed_kmh=3), at(10, INSIDE, speed_kmh=9), at(20, OUTSIDE))])
    assert [e for e in await events(db, vid) if e.kind.startswith("fence")] == []


async def test_mode_5_boundary_and_speed(db: Database) -> None:
    vid, dev = await vehicle(db)
    await fence(db, vid, 5, polygon=True, speed_limit=6.0)
    p = Pipeline(db, LocalBus())
    await p.process(
        [
            report(
                dev,
                at(0, OUTSIDE, speed_kmh=10),
                at(10, INSIDE, speed_kmh=10),  # in: a crossing and speeding at once
                at(20, INSIDE, speed_kmh=5),  # slowed down
                at(30, OUTSIDE, speed_kmh=5),
            )
        ]
    )
    got = [(e.kind, span(e)) for e in await events(db, vid) if e.kind.startswith("fence")]
    assert got == [("fence_cross", (10, 10)), ("fence_speeding", (10, 20)), ("fence_cross", (30, 30))]
    assert await fence_n(db, vid) == 3


async def test_fixes_without_a_position_and_disabled_fences_are_ignored(db: Database) -> None:
    vid, dev = await vehicle(db)
    await fence(db, vid, 3)
    await fence(db, vid, 1, enable_status=0)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, at(0, OUTSIDE), at(10, INSIDE, status=NO_FIX), at(20, OUTSIDE))])
    assert await events(db, vid) == [], "the invalid fix is no crossing, and the disabled fence raises nothing"
    _, other_dev = await vehicle(db)
    plain = Pipeline(db, LocalBus())
    await plain.process([report(other_dev, at(0, OUTSIDE))])
    ctx = await plain._context(other_dev)
    assert ctx is not None and ctx.fences is None, "a vehicle without fences skips the stage at once"


async def test_one_open_alarm_per_fence_survives_a_restart(db: Database) -> None:
    vid, dev = await vehicle(db)
    a = await fence(db, vid, 1)
    b = await fence(db, vid, 1, polygon=True)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, at(0, OUTSIDE), at(10, INSIDE))])  # inside both at once
    async with db.sessionmaker() as s:
        state = await s.get(VehicleState, vid)
    assert state is not None
    assert set(json.loads(state.open_events or "{}")) == {f"fence_in:{a}", f"fence_in:{b}"}
    restarted = Pipeline(db, LocalBus())
    # leave the circle (100 m) but stay in the square (~1 km): one closes, the other stays open
    await restarted.process([report(dev, at(20, (C_LON + 0.005, C_LAT)))])
    await restarted.process([report(dev, at(30, OUTSIDE))])
    by_fence = {json.loads(e.detail or "{}")["fenceId"]: e for e in await events(db, vid)}
    assert len(by_fence) == 2 and all(e.kind == "fence_in" for e in by_fence.values())
    assert span(by_fence[str(a)]) == (10, 20) and span(by_fence[str(b)]) == (10, 30)
    assert await fence_n(db, vid) == 2


async def test_inside_memory_starts_from_the_last_known_fix(db: Database) -> None:
    vid, dev = await vehicle(db)
    await fence(db, vid, 3)
    await Pipeline(db, LocalBus()).process([report(dev, at(0, INSIDE))])
    restarted = Pipeline(db, LocalBus())
    await restarted.process([report(dev, at(10, OUTSIDE))])
    [ev] = await events(db, vid)
    assert ev.kind == "fence_cross" and span(ev) == (10, 10), "the first fix after a restart is compared with the last"
    assert json.loads(ev.detail or "{}")["action"] == "out"
    again = Pipeline(db, LocalBus())
    await again.process([report(dev, at(20, OUTSIDE))])
    assert len(await events(db, vid)) == 1, "still outside after another restart: no crossing"


async def test_a_changed_fence_is_reloaded_and_its_open_alarm_closed(db: Database) -> None:
    vid, dev = await vehicle(db)
    fid = await fence(db, vid, 1)
    p = Pipeline(db, LocalBus())
    await p.process([report(dev, at(0, INSIDE))])
    async with db.sessionmaker() as s:
        row = await s.get(Fence, fid)
        assert row is not None
        row.enable_status = 0
        await s.commit()
    await p.process([report(dev, at(10, INSIDE))])
    [ev] = await events(db, vid)
    assert ev.end_time is None, "the cached context still has the fence until it is told"
    p.forget(dev)
    await p.process([report(dev, at(20, INSIDE))])
    [ev] = await events(db, vid)
    assert span(ev) == (0, 20), "the disabled fence's open alarm closes with the next fix"
    async with db.sessionmaker() as s:
        state = await s.get(VehicleState, vid)
    assert state is not None and json.loads(state.open_events or "{}") == {}
