"""The CAN charts of a vehicle (throttle, fuel injection, after-treatment, DPF pressure, road spectrum, flow
resistance) from CAN uploads through the real pipeline, and the J1939 decoding against hand-computed values."""

from __future__ import annotations

from datetime import datetime, timedelta

from liftdesk.core.bus import LocalBus
from liftdesk.telemetry.can import decode, decode_all, encode
from liftdesk.telemetry.messages import CanFrame, Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants

F = "/api/blade-fics-report/fics"
T0 = datetime(2026, 5, 7, 1, 0, 0)  # 09:00 in UTC+8
PERIOD = {"beginTime": "2026-05-07 08:00:00", "endTime": "2026-05-07 12:00:00"}
CHARTS = (
    "getThrottleOpening",
    "getFuelInjectionQuantity",
    "getEcuPostProcessing",
    "getDifferentialPressure",
    "getStrengthenRoadSpectrum",
    "getFilteredFlowResistance",
)


def upload(i: int) -> tuple[CanFrame, ...]:
    """The frames of the upload at T0 + 10 i s: the first 15 minutes at 40 % pedal, 1,500 rpm, 50 % load, 6 L/h,
    300 kg/h of air, 4 kPa across the DPF; the next 15 minutes at 80 %, 2,100 rpm, 85 %, 12 L/h, 600 kg/h, 10 kPa.
    The soot load is 60 % until 09:20, then 20 % (a regeneration); the DEF tank at 70 %. Also a standard (11-bit)
    frame and a J1939 group outside the table, which are ignored."""
    hard = i >= 90
    return (
        encode("EEC1", {"EngSpeed": 2100.0 if hard else 1500.0, "ActualEngPercentTorque": 30.0}, source=0),
        encode("EEC2", {"AccelPedalPos1": 80.0 if hard else 40.0, "EngPercentLoadAtCurSpeed": 85.0 if hard else 50.0}),
        encode("LFE1", {"EngFuelRate": 12.0 if hard else 6.0}),
        encode("EGF1", {"EngInletAirMassFlowRate": 600.0 if hard else 300.0}),
        encode("AT1IMG", {"Aftertreatment1DPFDiffPressure": 10.0 if hard else 4.0}, source=0x55),
        encode("AT1S", {"Aftertreatment1DPFSootLoadPercent": 20.0 if i >= 120 else 60.0}, source=0x55),
        encode("AT1T1I", {"Aftertreatment1DEFTankVolume": 70.0}, source=0x3D),
        CanFrame(0x18FEF200 & 0x7FF, bytes(8), extended=False),
        CanFrame(0x18FEEE00, bytes.fromhex("6E FF FF FF FF FF FF FF".replace(" ", ""))),  # ET1: not in the table
    )


async def _feed(api: Api, car_type: int = 0, can: bool = True) -> str:
    device = f"3{api.counter:03d}{abs(hash(api.unique())) % 10**8:08d}"
    car = await api.post(
        f"{F}/carInfo/insertCarInfo",
        json={"carNo": api.unique("CAN-"), "deviceNumber": device, "carType": car_type},
    )
    assert car["code"] == 200, car
    pipeline = Pipeline(api.db, LocalBus())
    fixes = tuple(Fix(time=T0 + timedelta(seconds=60 * i), lat=31.2, lon=121.5, speed_kmh=5.0) for i in range(31))
    reports = [Report(device=device, fixes=fixes, received_at=T0)]
    if can:
        reports += [
            Report(device=device, fixes=(), received_at=T0 + timedelta(seconds=10 * i), can=upload(i))
            for i in range(180)
        ]
        # 09:30: the engine stopped (speed 0, nothing else sent): it ends what the last upload held
        reports.append(
            Report(
                device=device,
                fixes=(),
                received_at=T0 + timedelta(seconds=1800),
                can=(encode("EEC1", {"EngSpeed": 0.0}),),
            )
        )
    for n in range(0, len(reports), 50):
        await pipeline.process(reports[n : n + 50])
    return str(car["data"]["id"])


async def _chart(api: Api, name: str, params: dict[str, str], **kw: object) -> dict[str, object]:
    return await api.get(f"{F}/monitor/{name}", params=params, **kw)  # type: ignore[no-any-return]


async def test_can_charts_of_a_diesel_shift(api: Api, tenants: Tenants) -> None:
    car_id = await _feed(api)
    q = {"carId": car_id, **PERIOD}

    throttle = (await _chart(api, "getThrottleOpening", q))["data"]
    assert throttle["stepS"] == 60 and len(throttle["points"]) == 30
    assert throttle["points"][0] == {"time": "2026-05-07 09:00:00", "avg": 40.0, "max": 40.0}
    assert throttle["points"][-1] == {"time": "2026-05-07 09:29:00", "avg": 80.0, "max": 80.0}
    assert throttle["bands"][4] == "40-50%" and throttle["bandHours"][4] == 0.25 and throttle["bandHours"][8] == 0.25
    assert sum(throttle["bandHours"]) == 0.5 and throttle["averagePct"] == 60.0

    fuel = (await _chart(api, "getFuelInjectionQuantity", q))["data"]
    # 6 L/h for a quarter of an hour and 12 L/h for another: 4.5 L over half an hour, 9 L/h on average
    assert fuel["litres"] == 4.5 and fuel["hours"] == 0.5 and fuel["averageLph"] == 9.0
    assert fuel["points"][0]["avg"] == 6.0 and fuel["points"][-1]["max"] == 12.0

    after = (await _chart(api, "getEcuPostProcessing", q))["data"]
    assert after["sootPct"] == 20.0 and after["defPct"] == 70.0 and after["regenerations"] == 1
    assert after["points"][19] == {"time": "2026-05-07 09:19:00", "sootPct": 60.0, "defPct": 70.0}
    assert after["points"][20]["sootPct"] == 20.0

    pressure = (await _chart(api, "getDifferentialPressure", q))["data"]
    assert pressure["maxKpa"] == 10.0 and pressure["points"][0]["avg"] == 4.0 and len(pressure["points"]) == 30

    spectrum = (await _chart(api, "getStrengthenRoadSpectrum", q))["data"]
    # 1,500 rpm (1200-1600) at 50 % (40-60 %), then 2,100 rpm (2000-2400) at 85 % (>=80 %): a quarter hour each
    assert spectrum["cells"] == [[2, 2, 0.25], [4, 4, 0.25]] and spectrum["totalHours"] == 0.5
    assert spectrum["rpmBands"][2] == "1200-1600" and spectrum["loadBands"][4] == ">=80%"

    flow = (await _chart(api, "getFilteredFlowResistance", q))["data"]
    # exhaust flow: 300 + 6 × 0.835 = 305.01 kg/h at 4 kPa (13.114 kPa per t/h), 600 + 12 × 0.835 = 610.02 kg/h at
    # 10 kPa (16.393); the period: (90 × 4 + 90 × 10) / (90 × (305.01 + 610.02)) t/h = 15.300; the stop (no flow) out
    assert flow["points"][0] == {"time": "2026-05-07 09:00:00", "resistance": 13.114, "flowKgh": 305.0, "dpKpa": 4.0}
    assert flow["points"][-1]["resistance"] == 16.393 and len(flow["points"]) == 30
    assert flow["resistance"] == 15.3 and flow["minFlowKgh"] == 100.0

    # another tenant: "not found" for every chart, whatever the id
    for name in CHARTS:
        other = await _chart(api, name, q, tenant=tenants.b)
        assert other["code"] == 400 and car_id not in str(other.get("data")), (name, other)


async def test_a_vehicle_without_can_data_gets_empty_charts(api: Api) -> None:
    car_id = await _feed(api, car_type=4, can=False)  # an electric vehicle: positions, no CAN uploads
    q = {"carId": car_id, **PERIOD}
    for name in CHARTS:
        answer = await _chart(api, name, q)
        assert answer["code"] == 200, (name, answer)
        data = answer["data"]
        assert data.get("points", []) == [] and data.get("cells", []) == [], (name, data)
    fuel = (await _chart(api, "getFuelInjectionQuantity", q))["data"]
    assert fuel["litres"] == 0.0 and fuel["averageLph"] == 0.0
    after = (await _chart(api, "getEcuPostProcessing", q))["data"]
    assert after["sootPct"] is None and after["regenerations"] == 0


async def test_can_chart_ranges_are_refused(api: Api) -> None:
    car_id = await _feed(api, can=False)
    one = {"carId": car_id}
    for name in CHARTS:
        week = await _chart(api, name, {**one, **PERIOD, "beginTime": "2026-04-30 08:00:00"})
        assert week["code"] == 400 and "beginTime/endTime" in week["msg"], (name, week)
        after = await _chart(api, name, {**one, **PERIOD, "beginTime": "2026-05-07 13:00:00"})
        assert after["code"] == 400 and "beginTime" in after["msg"], (name, after)
        bad = await _chart(api, name, {**one, "beginTime": "2026-05-07 8h"})
        assert bad["code"] == 400 and "beginTime" in bad["msg"], (name, bad)
    ok = await _chart(
        api, "getThrottleOpening", {**one, "beginTime": "2026-05-01 12:00:00", "endTime": "2026-05-08 12:00:00"}
    )
    assert ok["code"] == 200 and ok["data"]["stepS"] == 900  # 7 days in at most 1,000 buckets: 15 minutes


def test_j1939_decoding_against_hand_computed_values() -> None:
    """Each group's bytes as J1939-71 lays them out (little-endian, 1-based byte positions), decoded by hand."""
    # EEC1: byte 3 torque 0x7D = 125 − 125 = 0 %; bytes 4-5 speed 0x1F40 = 8000 × 0.125 = 1,000 rpm
    assert decode(CanFrame(0x0CF00400, bytes.fromhex("FFFF7D401FFFFFFF"))) == {"engine_rpm": 1000.0}
    # the same group from another source address and with priority 6: matched by PGN alone
    assert decode(CanFrame(0x18F00417, bytes.fromhex("FFFF7D401FFFFFFF"))) == {"engine_rpm": 1000.0}
    # EEC2: byte 2 pedal 0x64 = 100 × 0.4 = 40 %; byte 3 load 0x32 = 50 %
    assert decode(CanFrame(0x0CF00300, bytes.fromhex("FF6432FFFFFFFFFF"))) == {"pedal_pct": 40.0, "load_pct": 50.0}
    # LFE1: bytes 1-2 fuel rate 0x012C = 300 × 0.05 = 15 L/h
    assert decode(CanFrame(0x18FEF200, bytes.fromhex("2C01FFFFFFFFFFFF"))) == {"fuel_lph": 15.0}
    # EGF1: bytes 3-4 inlet air 0x2EE0 = 12000 × 0.05 = 600 kg/h
    assert decode(CanFrame(0x0CF00A00, bytes.fromhex("FFFFE02EFFFFFFFF"))) == {"air_kgh": 600.0}
    # AT1IMG: bytes 5-6 DPF ΔP 0x002D = 45 × 0.1 = 4.5 kPa
    assert decode(CanFrame(0x18FDB400, bytes.fromhex("FFFFFFFF2D00FFFF"))) == {"dpf_dp_kpa": 4.5}
    # AT1S: byte 1 soot load 0x4B = 75 %; AT1T1I: byte 1 DEF volume 0xBE = 190 × 0.4 = 76 %
    assert decode(CanFrame(0x18FD7B00, bytes.fromhex("4BFFFFFFFFFFFFFF"))) == {"soot_pct": 75.0}
    assert decode(CanFrame(0x18FE5600, bytes.fromhex("BEFFFFFFFFFFFFFF"))) == {"def_pct": 76.0}
    # not available (0xFF…), error (0xFE) and reserved (0xFB00-) values are left out
    assert decode(CanFrame(0x0CF00300, bytes.fromhex("FFFEFBFFFFFFFFFF"))) == {}
    assert decode(CanFrame(0x0CF00400, bytes.fromhex("FFFFFF00FBFFFFFF"))) == {}
    # not J1939: an 11-bit frame, a group outside the table, a short frame
    assert decode(CanFrame(0x0F0, bytes.fromhex("FF6432FFFFFFFFFF"), extended=False)) == {}
    assert decode(CanFrame(0x18FEEE00, bytes.fromhex("6EFFFFFFFFFFFFFF"))) == {}
    assert decode(CanFrame(0x0CF00300, bytes.fromhex("FF6432"))) == {}
    # one upload: a later frame of a group wins
    frames = (
        CanFrame(0x18FEF200, bytes.fromhex("2C01FFFFFFFFFFFF")),
        CanFrame(0x18FEF201, bytes.fromhex("5802FFFFFFFFFFFF")),
    )
    assert decode_all(frames) == {"fuel_lph": 30.0}
    # what the simulator sends is what is read back
    assert decode(encode("AT1IMG", {"Aftertreatment1DPFDiffPressure": 7.3})) == {"dpf_dp_kpa": 7.3}
