"""Working alarms (报警记录: acknowledge, handle, close) over alarms the pipeline raised: the whole path with who and
when kept, the refusals (still active, closed, unknown cause or assignee, a selection with a foreign alarm changes
nothing), the list's work state and its filter, another tenant and the own-organisation data scope."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from liftdesk.core.bus import LocalBus
from liftdesk.system.models import User
from liftdesk.telemetry.messages import STATUS_ACC, STATUS_FIX, Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids
from tests.reporting.test_alarms import _car, _dept

CAR = "/api/blade-fics-report/fics/carInfo"
WORK = "/api/liftdesk/alarm"
T0 = datetime(2026, 5, 8, 1, 0, 0)  # 09:00 in UTC+8
DAY = {"startTime": "2026-05-08", "endTime": "2026-05-08"}


def at(seconds: int, **kw: Any) -> Fix:
    return Fix(time=T0 + timedelta(seconds=seconds), lat=31.2, lon=121.5, status=STATUS_ACC | STATUS_FIX, **kw)


async def alarms(api: Api, car: dict[str, Any], **kw: Any) -> list[dict[str, Any]]:
    r = await api.post(f"{CAR}/getCarAlarmInfoList", json={**DAY, "carId": car["id"], "size": 50}, **kw)
    assert r["code"] == 200, r
    records: list[dict[str, Any]] = r["data"]["records"]
    return records


async def test_a_supervisor_acknowledges_handles_and_closes_an_alarm(api: Api, tenants: Tenants) -> None:
    root = (await seed_ids(api))["dept"]
    ours, theirs = await _dept(api, "WA ", root), await _dept(api, "WB ", root)
    prefix = api.unique("WRK")
    car = await _car(api, f"{prefix}-A", ours)
    other_org = await _car(api, f"{prefix}-B", theirs)
    foreign = await _car(api, f"{prefix}-X", None, tenant=tenants.b)
    pipeline = Pipeline(api.db, LocalBus())
    for device, fixes in (
        # a collision (ended: instant) and an overload still going on
        (car["deviceNumber"], (at(0, impact_g=3.0), at(10, load_kg=2600.0))),
        (other_org["deviceNumber"], (at(0, impact_g=3.0),)),
        (foreign["deviceNumber"], (at(0, impact_g=3.0),)),
    ):
        await pipeline.process([Report(device=device, fixes=fixes, received_at=fixes[0].time)])
    rows = {r["kind"]: r for r in await alarms(api, car)}
    collision, overload = rows["collision"]["id"], rows["overload"]["id"]
    assert {r["workStatus"] for r in rows.values()} == {0}, "nobody has acknowledged them yet"
    [x] = await alarms(api, foreign, tenant=tenants.b)
    [b] = await alarms(api, other_org)

    # another tenant's alarm in a selection: refused, and nothing of the selection changes
    r = await api.post(f"{WORK}/ack", json={"ids": f"{collision},{x['id']}"})
    assert r["code"] == 400 and x["id"] in r["msg"], r
    assert {a["workStatus"] for a in await alarms(api, car)} == {0}
    r = await api.post(f"{WORK}/ack", json={"ids": x["id"]}, tenant=tenants.b)
    assert r["code"] == 200 and r["data"][0]["workStatus"] == 1, r

    # acknowledged by the administrator, twice without harm; the list shows who, and filters by the state
    r = await api.post(f"{WORK}/ack", json={"ids": [collision, overload]})
    assert r["code"] == 200 and [w["workStatus"] for w in r["data"]] == [1, 1], r
    first = r["data"][0]["ackTime"]
    r = await api.post(f"{WORK}/ack", json={"ids": collision})
    assert r["data"][0]["ackTime"] == first, "acknowledging again changes nothing"
    listed = {a["id"]: a for a in await alarms(api, car)}
    assert listed[collision]["workStatus"] == 1 and listed[collision]["ackUserName"]
    r = await api.post(f"{CAR}/getCarAlarmInfoList", json={**DAY, "carNo": prefix, "workStatus": 0})
    assert [a["id"] for a in r["data"]["records"]] == [b["id"]], "only the other organisation's is unacknowledged"

    # handling: a note is required, the cause must be the dictionary's and the assignee a user of the tenant
    r = await api.post(f"{WORK}/handle", json={"id": collision, "note": ""})
    assert r["code"] == 400 and "note" in r["msg"], r
    r = await api.post(f"{WORK}/handle", json={"id": collision, "note": "forks bent", "cause": "no-such"})
    assert r["code"] == 400 and "cause" in r["msg"], r
    r = await api.post(f"{WORK}/handle", json={"id": collision, "note": "forks bent", "assigneeId": "1"})
    assert r["code"] == 400 and "assigneeId" in r["msg"], r
    async with api.db.sessionmaker() as session:
        admin = str(await session.scalar(select(User.id).where(User.account == "admin", User.tenant_id == "000000")))
    people = (await api.get(f"{WORK}/assignees"))["data"]
    assert admin in {p["id"] for p in people}
    theirs_people = (await api.get(f"{WORK}/assignees", tenant=tenants.b))["data"]
    assert admin not in {p["id"] for p in theirs_people}, "another tenant's users are not offered"
    body = {"id": collision, "note": "forks bent", "cause": "1", "assigneeId": admin}
    r = await api.post(f"{WORK}/handle", json=body)
    assert r["code"] == 200, r
    assert (r["data"]["workStatus"], r["data"]["cause"], r["data"]["note"]) == (2, "1", "forks bent")
    assert r["data"]["assigneeName"]

    # closing: an alarm still active refuses the whole selection; an ended one closes, then takes no more steps
    r = await api.post(f"{WORK}/close", json={"ids": [collision, overload]})
    assert r["code"] == 400 and f"#{overload}" in r["msg"], r
    assert {a["id"]: a["workStatus"] for a in await alarms(api, car)} == {collision: 2, overload: 1}
    r = await api.post(f"{WORK}/close", json={"ids": collision, "note": "replaced"})
    assert r["code"] == 200 and r["data"][0]["workStatus"] == 3 and r["data"][0]["closeUserName"], r
    for path, payload in (("ack", {"ids": collision}), ("handle", {"id": collision, "note": "again"})):
        r = await api.post(f"{WORK}/{path}", json=payload)
        assert r["code"] == 400 and f"#{collision}" in r["msg"], (path, r)

    steps = await api.get(f"{WORK}/history", params={"id": collision})
    assert [(s["action"], s["note"]) for s in steps["data"]] == [
        ("ack", None),
        ("handle", "forks bent"),
        ("close", "replaced"),
    ]
    assert (await api.get(f"{WORK}/history", params={"id": collision}, tenant=tenants.b))["code"] == 400

    # a user of the other organisation: sees and works its own alarms only, and only with the buttons
    menus = ("alarm_record",)
    async with own_organisation_user(api, theirs, menus=menus) as who:
        r = await api.post(f"{WORK}/ack", json={"ids": b["id"]}, **who)
        assert r["code"] == 403, r
    async with own_organisation_user(api, theirs, buttons=("alarm_record_ack",), menus=menus) as who:
        r = await api.post(f"{WORK}/ack", json={"ids": overload}, **who)
        assert r["code"] == 400, r
        r = await api.post(f"{WORK}/ack", json={"ids": b["id"]}, **who)
        assert r["code"] == 200 and r["data"][0]["workStatus"] == 1, r
