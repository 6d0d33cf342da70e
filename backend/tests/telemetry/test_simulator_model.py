"""The simulated vehicles without any network: specs, shifts, physics, events and how parameters act."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from liftdesk.telemetry.codecs.jt808 import (
    AlarmFlag,
    CardStatus,
    ChargeState,
    DriverIdentity,
    FaceComparison,
    FaceResult,
    FaceTrigger,
    ForkliftStatus,
    Jt808Version,
    Location,
    ParamId,
    ParamItem,
    PassThrough,
    StatusFlag,
    decode_location,
    encode_location,
)
from liftdesk.telemetry.simulator import (
    PROFILES,
    Chemistry,
    DeviceSpec,
    ForkliftModel,
    ReportSchedule,
    ShiftPattern,
    TerminalParams,
    VehicleType,
    default_params,
    demo_specs,
)
from liftdesk.telemetry.simulator.schedule import LOCAL_TZ, Schedule

MONDAY = datetime(2025, 6, 2, 0, 0, tzinfo=LOCAL_TZ).timestamp()


def make(spec: DeviceSpec, start: float = MONDAY) -> tuple[ForkliftModel, TerminalParams]:
    params = TerminalParams(default_params(host="127.0.0.1", port=7808, version=spec.version))
    return ForkliftModel(spec, params, start), params


def drive(model: ForkliftModel, params: TerminalParams, until: float, *, wire: bool = True) -> list[Location]:
    """Report as the terminal does (see ReportSchedule); with ``wire``, every report is read back from its bytes."""
    out: list[Location] = []
    schedule = ReportSchedule(model)
    while model.t < until:
        location = schedule.run_to(schedule.due())
        if location is not None:
            out.append(decode_location(encode_location(location)) if wire else location)
    return out


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    dy = (lat2 - lat1) * 111_320
    dx = (lon2 - lon1) * 111_320 * math.cos(math.radians(lat1))
    return math.hypot(dx, dy)


# ---------------------------------------------------------------------- specs


def test_demo_specs_are_varied_unique_and_reproducible() -> None:
    specs = demo_specs(30, seed=5)
    assert specs == demo_specs(30, seed=5)
    assert len({s.device for s in specs}) == 30
    assert {s.version for s in specs} == {Jt808Version.V2013, Jt808Version.V2019}
    assert {s.vehicle_type for s in specs[:9]} == set(VehicleType)
    for s in specs:
        assert len(s.device) == (20 if s.version is Jt808Version.V2019 else 12)
        assert s.rated_load_kg in PROFILES[s.vehicle_type].rated_loads_kg
        assert (s.battery_chemistry is None) == (s.vehicle_type in (0, 1, 2))
    assert specs[0].device == "013800000001" and specs[2].device == "14400000000000000003"
    # The seed changes what vehicles do, never which terminals exist.
    other = demo_specs(30, seed=6)
    assert [s.device for s in other] == [s.device for s in specs]
    assert [s.seed for s in other] != [s.seed for s in specs]


@pytest.mark.parametrize("device", ["12345", "0138000000011", "01380000000a", "1" * 21])
def test_device_spec_refuses_bad_terminal_numbers(device: str) -> None:
    with pytest.raises(ValueError, match="digits"):
        DeviceSpec(device, VehicleType.LITHIUM, 2000)


def test_schedule_windows_follow_the_pattern() -> None:
    day = Schedule(ShiftPattern.DAY, seed=3, days_off=0.0)
    at_ten_thirty = datetime(2025, 6, 2, 10, 30, tzinfo=LOCAL_TZ).timestamp()
    at_three = datetime(2025, 6, 2, 3, 0, tzinfo=LOCAL_TZ).timestamp()
    assert day.window_at(at_ten_thirty) is not None
    assert day.window_at(at_three) is None
    nxt = day.next_window(at_three)
    assert 8 * 3600 <= nxt.start - MONDAY <= 8 * 3600 + 6 * 60
    three = Schedule(ShiftPattern.THREE, seed=3, days_off=0.0)
    assert three.window_at(at_three) is not None  # the night shift
    assert Schedule(ShiftPattern.DAY, seed=3).day(datetime(2025, 6, 2).date()) == day.day(datetime(2025, 6, 2).date())


# ---------------------------------------------------------------------- model


def test_same_seed_same_day() -> None:
    spec = demo_specs(1, seed=11)[0]
    a, pa = make(spec)
    b, pb = make(spec)
    until = MONDAY + 8 * 3600
    assert drive(a, pa, until) == drive(b, pb, until)


def test_a_simulated_day_stays_physical() -> None:
    """A day and a half of nine vehicles (every type): positions, speeds, loads, batteries, fuel and shifts."""
    for spec in demo_specs(9, seed=2):
        model, params = make(spec)
        reports = drive(model, params, MONDAY + 36 * 3600)
        profile = spec.profile
        assert any(r.acc_on for r in reports) and any(not r.acc_on for r in reports)
        times = [r.time for r in reports if r.time is not None]
        assert len(times) == len(reports)
        assert times == sorted(times) and len(set(times)) == len(times)  # one report per second at most
        for r in reports:
            assert distance_m(spec.base_lat, spec.base_lon, r.latitude, r.longitude) <= 300 * math.sqrt(2)
            assert 0 <= r.speed_kmh <= profile.top_kmh + 0.1
            assert 0 <= r.direction <= 359
            assert r.mileage_km is not None and r.mileage_km > 0
            assert r.positioned
            if not r.acc_on:
                assert r.speed_kmh == 0
            f = r.forklift
            assert f is not None and f.lock_level == 0
            if profile.forks:
                assert f.load_kg is not None and 0 <= f.load_kg <= 1.3 * spec.rated_load_kg
                assert f.forks is not None and 0 <= f.forks.height_mm <= profile.max_lift_mm[1]
                assert (f.load_kg > 0) == (r.load_state != 0)
            else:
                assert f.load_kg is None and f.forks is None
            if spec.electric:
                b = f.battery
                assert b is not None and r.fuel_l is None
                assert 0 <= b.soc_pct <= 100
                assert 42.0 <= b.voltage_v <= 58.0
                assert len(b.cell_voltages_mv) == (24 if spec.battery_chemistry is Chemistry.LEAD_ACID else 16)
                assert all(1700 <= c <= 3700 for c in b.cell_voltages_mv)
                assert abs(sum(b.cell_voltages_mv) / 1000 - b.voltage_v) < 0.06
                assert all(-5 <= t <= 60 for t in b.temperatures_c)
                assert (b.current_a > 0) == (b.charge_state == ChargeState.CHARGING)
                if r.acc_on:
                    assert b.current_a < 0 and b.charge_state == ChargeState.DISCHARGING
            else:
                assert f.battery is None
                assert r.fuel_l is not None and 0 <= r.fuel_l <= profile.tank_l[1]
        moving = [r for r in reports if r.speed_kmh > 0]
        assert moving and all(r.acc_on for r in moving)
        if spec.electric:
            assert any(r.forklift and r.forklift.battery and r.forklift.battery.current_a > 0 for r in reports), (
                "electric vehicles charge at breaks"
            )


def test_shift_start_logs_the_driver_in_and_shift_end_out() -> None:
    spec = next(s for s in demo_specs(12, seed=4) if s.shift_pattern is ShiftPattern.DAY)
    model, _ = make(spec)
    events = []
    while model.t < MONDAY + 86400:
        model.advance(model.t + 60)
        events += model.take_events()
    cards = [e for e in events if isinstance(e, DriverIdentity)]
    # the card goes in at the shift's start, is read again at each power-on after a break (power-off ended the
    # duty on the platform), and comes out at the end
    assert cards[0].status == CardStatus.INSERTED and cards[-1].status == CardStatus.REMOVED
    assert {c.status for c in cards[1:-1]} <= {CardStatus.INSERTED}
    assert len({c.certificate_no for c in cards[:-1]}) == 1
    card_in = cards[0]
    assert card_in.driver_name and card_in.certificate_expiry
    assert card_in.certificate_no and len(card_in.certificate_no) == 10 and card_in.certificate_no.isdigit()
    faces = [e.liftdesk for e in events if isinstance(e, PassThrough) and isinstance(e.liftdesk, FaceComparison)]
    assert [(f.result, f.serial, f.trigger) for f in faces] == [
        (FaceResult.MATCHED, card_in.certificate_no, FaceTrigger.CARD_INSERTED)
    ], "the driver camera compares the face when the card goes in"
    assert card_in.time is not None
    local = card_in.time.astimezone(LOCAL_TZ)
    assert local.date() == datetime(2025, 6, 2).date() and local.hour == 8 and local.minute <= 6


def test_risky_events_happen_in_a_busy_week() -> None:
    totals: dict[str, int] = {}
    alarms = 0
    for spec in demo_specs(9, seed=9):
        model, params = make(spec)
        for r in drive(model, params, MONDAY + 2 * 86400, wire=False):
            alarms |= r.alarm
            f = r.forklift
            if f is not None and f.impact is not None:
                assert r.alarm & AlarmFlag.COLLISION
                assert 1.5 <= f.impact.accel_g <= 4.0 and 0 <= f.impact.direction_deg <= 359
        for key, value in model.counts.items():
            totals[key] = totals.get(key, 0) + value
    assert totals["impacts"] > 0 and totals["overloads"] > 0 and totals["speeding_legs"] > 0
    assert totals["unbelted_jobs"] > 0 and totals["charges"] > 0
    assert alarms & AlarmFlag.OVERSPEED and alarms & AlarmFlag.COLLISION


def test_lock_holds_the_vehicle_and_speed_limit_caps_it() -> None:
    spec = DeviceSpec("013800000099", VehicleType.DIESEL, 3000, seed=77, shift_pattern=ShiftPattern.THREE)
    start = datetime(2025, 6, 2, 10, 0, tzinfo=LOCAL_TZ).timestamp()
    model, params = make(spec, start)
    assert params.apply([ParamItem(ParamId.SPEED_LIMIT, 6)]) == []
    capped = drive(model, params, start + 1800)
    assert max(r.speed_kmh for r in capped) <= 6.0
    assert any(r.speed_kmh > 3 for r in capped)
    assert all(r.forklift and r.forklift.speed_limit_kmh == 6 for r in capped)

    assert params.apply([ParamItem(ParamId.LOCK_LEVEL, 2)]) == []
    locked = drive(model, params, start + 3600)
    assert all(r.speed_kmh == 0 for r in locked)
    assert all(r.forklift and r.forklift.lock_level == 2 for r in locked)
    assert all(r.status & StatusFlag.FUEL_CIRCUIT_CUT for r in locked)
    assert len({(r.latitude, r.longitude) for r in locked}) == 1

    assert params.apply([ParamItem(ParamId.LOCK_LEVEL, 0)]) == []
    free = drive(model, params, start + 4 * 3600)
    assert any(r.speed_kmh > 0 for r in free)


def test_parameters_are_all_or_nothing() -> None:
    params = TerminalParams(default_params(host="h", port=1, version=Jt808Version.V2013))
    before = dict(params.values)
    problems = params.apply([ParamItem(ParamId.SPEED_LIMIT, 8), ParamItem(ParamId.LOCK_LEVEL, 7)])
    assert problems and "lock_level" in problems[0]
    assert params.values == before
    assert params.apply([ParamItem(ParamId.REPORT_INTERVAL_DEFAULT, 0)])  # a zero interval is refused
    assert params.apply([ParamItem(ParamId.SPEED_LIMIT, b"\x01\x02")])  # wrong width
    assert params.apply([ParamItem(0xF0FF, b"\x01")]) == []  # unknown ids are kept raw
    assert params.query([0xF0FF, 0x0001, 0x9999]) == (ParamItem(0xF0FF, b"\x01"), ParamItem(0x0001, 30))


def test_start_time_outside_shift_is_parked_at_home() -> None:
    spec = DeviceSpec("013800000098", VehicleType.LITHIUM, 2000, seed=1, shift_pattern=ShiftPattern.DAY)
    night = datetime(2025, 6, 2, 2, 0, tzinfo=UTC).timestamp() - 8 * 3600 + 86400  # 02:00 local
    model, params = make(spec, night)
    first = drive(model, params, night + 600)
    assert first and not any(r.acc_on for r in first)
    assert all(r.speed_kmh == 0 for r in first)


def _status(report: Location) -> ForkliftStatus:
    assert report.forklift is not None
    return report.forklift


def _liquid_low(report: Location) -> bool:
    battery = _status(report).battery
    return battery is not None and battery.liquid_low


def test_the_demo_fleet_shows_battery_and_fault_alarms_and_they_clear() -> None:
    """A fresh demo (``make run``) has a lead-acid battery low on electrolyte and controller fault codes at once; a
    fault clears after a while, and the electrolyte once the truck is watered on its charger."""
    fleet = [make(spec) for spec in demo_specs(20)]
    first = {model.spec.device: model.location() for model, _ in fleet}
    low = [(m, p) for m, p in fleet if _liquid_low(first[m.spec.device])]
    faulty = [(m, p) for m, p in fleet if _status(first[m.spec.device]).fault_codes]
    assert low and all(m.spec.battery_chemistry is Chemistry.LEAD_ACID for m, _ in low)
    assert faulty
    for model, _ in faulty:
        codes = _status(first[model.spec.device]).fault_codes
        assert codes is not None and len(codes) == 1 and 1 <= len(codes[0]) <= 32
    model, params = faulty[0]
    later = drive(model, params, MONDAY + 2 * 3600)
    assert _status(later[0]).fault_codes == _status(first[model.spec.device]).fault_codes
    tail = [_status(r).fault_codes for r in later]
    assert tail[-1] in ((), None), "the fault cleared within two hours"
    on_again = [_status(r).fault_codes for r in drive(model, params, MONDAY + 86400)]
    assert () in on_again, "said by the controller when on again: its empty list ends the platform's fault episode"
    model, params = low[0]
    flags = [_liquid_low(r) for r in drive(model, params, MONDAY + 7 * 86400, wire=False)]
    assert flags[0] and not all(flags) and model.counts["waterings"] >= 1


def test_a_diesel_sends_plausible_j1939_frames_while_on() -> None:
    """A diesel's terminal uploads its engine and after-treatment (0x0705) while ACC is on, read back from the wire
    and decoded by the platform's table: speeds, loads and rates in range, the DPF regenerating now and then; an
    electric truck has no such bus."""
    from liftdesk.telemetry.api.monitor_can import regenerations
    from liftdesk.telemetry.can import decode_all
    from liftdesk.telemetry.codecs.jt808.terminal import parse_can_data
    from liftdesk.telemetry.messages import CanFrame

    spec = DeviceSpec("013800000097", VehicleType.DIESEL, 3000, seed=5, shift_pattern=ShiftPattern.THREE)
    model, _ = make(spec)
    schedule = ReportSchedule(model)
    samples = []
    while model.t < MONDAY + 30 * 3600:
        schedule.run_to(schedule.due())
        body = model.can_data()
        assert (body is not None) == model.acc_on
        if body is not None:
            read = parse_can_data(body.encode())
            samples.append(decode_all(CanFrame(i.can_id, i.data, i.channel, i.extended) for i in read.items))
    assert len(samples) > 500
    assert all(len(s) == 8 for s in samples), samples[0]  # every parameter of the table, every time
    assert all(700 <= s["engine_rpm"] <= 2450 and 0 <= s["pedal_pct"] <= 100 for s in samples)
    assert all(0 <= s["fuel_lph"] < 10 and 50 < s["air_kgh"] < 300 and 0 < s["dpf_dp_kpa"] < 10 for s in samples)
    assert max(s["load_pct"] for s in samples) > 50 and min(s["load_pct"] for s in samples) < 30
    soot = [s["soot_pct"] for s in samples]
    assert all(0 <= x <= 100 for x in soot) and max(soot) - min(soot) > 5
    assert regenerations(soot) >= 1, (min(soot), max(soot))
    lithium, _ = make(DeviceSpec("013800000096", VehicleType.LITHIUM, 2000, seed=5, shift_pattern=ShiftPattern.THREE))
    lithium.acc_on = True
    assert lithium.can_data() is None
