"""In-site messages, notices and receive settings (system/messages.py, system/api/messages.py): a published notice
reaches every user of its tenant and nobody else; a user reads, marks and deletes their own messages only; alarms
raised by the telemetry pipeline reach the receivers of their type (the tenant's administrators by default)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from liftdesk.core.bus import LocalBus
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Vehicle
from liftdesk.system.messages import receivers
from liftdesk.system.models import SiteMessage
from liftdesk.telemetry.messages import Fix, Report
from liftdesk.telemetry.pipeline import Pipeline
from tests.conftest import Api, Tenants, seed_ids

FICS = "/api/blade-fics/fics"
MSG = f"{FICS}/message"
SITE = f"{FICS}/siteMsg"
RECEIVE = f"{FICS}/siteMsgReceive"
RECEIVE_USER = f"{FICS}/siteMsgReceiveUser"
NOTICE = "/api/blade-desk/notice"
PASSWORD = "reader-1"


async def new_user(api: Api, tenant: str = "000000", role: str = "driver") -> tuple[str, str]:
    """A user of ``tenant`` (the seed's driver role, granted nothing): its account and id."""
    ids = await seed_ids(api, tenant)
    account = api.unique("msg")
    r = await api.post(
        "/api/blade-user/submit",
        json={
            "account": account,
            "password": PASSWORD,
            "name": "Reader",
            "realName": "Reader",
            "roleId": ids[role] or ids["role"],
            "deptId": ids["dept"],
        },
        tenant=tenant,
    )
    assert r["code"] == 200, r
    return account, r["data"]["id"]


async def count(api: Api, who: str = "admin", password: str | None = None, tenant: str = "000000") -> int:
    r = await api.get(f"{MSG}/getNotReadCount", who=who, password=password, tenant=tenant)
    assert r["code"] == 200, r
    assert type(r["data"]) is int, r
    return int(r["data"])


async def publish(api: Api, title: str, tenant: str = "000000") -> dict[str, Any]:
    r = await api.post(
        f"{NOTICE}/submit", json={"title": title, "category": 1, "content": f"body of {title}"}, tenant=tenant
    )
    assert r["code"] == 200, r
    return dict(r["data"])


async def my_messages(api: Api, who: str, password: str | None = None, **params: Any) -> list[dict[str, Any]]:
    r = await api.get(f"{MSG}/messageList", who=who, password=password, params={"size": 100, **params})
    assert r["code"] == 200, r
    return list(r["data"]["records"])


async def test_a_published_notice_reaches_every_user_of_its_tenant_only(api: Api, tenants: Tenants) -> None:
    reader, _ = await new_user(api)
    before_b = await count(api, tenant=tenants.b)
    assert await count(api, reader, PASSWORD) == 0
    title = api.unique("停机通知 ")
    notice = await publish(api, title)
    assert notice["releaseTime"], "published now when no time is given"
    assert await count(api, reader, PASSWORD) == 1
    (mine,) = await my_messages(api, reader, PASSWORD)
    assert mine["title"] == title and mine["msgType"] == 1 and mine["isRead"] == 0, mine
    assert mine["msgTypeName"] == "通知公告" and mine["messageTypeName"] == "通知公告", mine
    assert mine["businessId"] == notice["id"] and mine["messageText"] == f"body of {title}", mine
    assert await count(api, tenant=tenants.b) == before_b, "another tenant's users hear nothing of it"
    # editing the notice does not send it again; removing it takes its messages with it
    edited = await api.post(f"{NOTICE}/submit", json={"id": notice["id"], "title": title + "!"})
    assert edited["code"] == 200, edited
    assert await count(api, reader, PASSWORD) == 1
    removed = await api.post(f"{NOTICE}/remove", params={"ids": notice["id"]})
    assert removed["code"] == 200, removed
    assert await count(api, reader, PASSWORD) == 0
    assert await my_messages(api, reader, PASSWORD) == []


async def test_notices_are_written_by_their_menu_and_checked(api: Api, tenants: Tenants) -> None:
    reader, _ = await new_user(api)
    refused = await api.post(f"{NOTICE}/submit", who=reader, password=PASSWORD, json={"title": "x"})
    assert refused["code"] == 403, refused
    bad = await api.post(f"{NOTICE}/submit", json={"title": "", "category": 1})
    assert bad["code"] == 400 and "title" in bad["msg"], bad
    notice = await publish(api, api.unique("B "), tenant=tenants.b)
    other = await api.get(f"{NOTICE}/detail", params={"id": notice["id"]})
    assert other["code"] != 200, "tenant 000000 does not read tenant B's notice"


async def test_a_user_reads_marks_and_deletes_their_own_messages_only(api: Api) -> None:
    reader, _ = await new_user(api)
    for i in range(3):
        await publish(api, api.unique(f"n{i} "))
    mine = await my_messages(api, reader, PASSWORD)
    assert len(mine) == 3 and await count(api, reader, PASSWORD) == 3
    first, second, third = (m["id"] for m in mine)
    admin_count = await count(api)

    # another user (here the administrator) may not read, mark or delete them: not found, nothing changes
    assert (await api.get(f"{MSG}/messageInfo/{first}"))["code"] == 400
    assert (await api.post(f"{SITE}/markRead", params={"ids": first}))["code"] == 400
    assert (await api.post(f"{SITE}/del", params={"ids": f"{first},{second}"}))["code"] == 400
    assert (await api.post(f"{SITE}/allRead"))["code"] == 200
    assert await count(api) == 0 and admin_count > 0
    assert await count(api, reader, PASSWORD) == 3, "the administrator's mark-all-read is the administrator's"
    page = await api.get(f"{SITE}/page", params={"size": 1000})
    assert first not in {m["id"] for m in page["data"]["records"]}

    # opening one reads it; marking a selection that holds a read one is refused whole
    info = await api.get(f"{MSG}/messageInfo/{first}", who=reader, password=PASSWORD)
    assert info["code"] == 200 and info["data"]["isRead"] == 1 and info["data"]["readTime"], info
    assert await count(api, reader, PASSWORD) == 2
    mixed = await api.post(f"{SITE}/markRead", who=reader, password=PASSWORD, params={"ids": f"{first},{second}"})
    assert mixed["code"] == 400 and "已读" in mixed["msg"], mixed
    assert await count(api, reader, PASSWORD) == 2, "nothing marked"
    none = await api.post(f"{SITE}/markRead", who=reader, password=PASSWORD)
    assert none["code"] == 400, none
    ok = await api.post(f"{SITE}/markRead", who=reader, password=PASSWORD, params={"ids": second})
    assert ok["code"] == 200 and ok["data"] == 1, ok
    assert [m["id"] for m in await my_messages(api, reader, PASSWORD, isRead=0)] == [third]
    assert len(await my_messages(api, reader, PASSWORD, isRead=1, msgType=1)) == 2
    assert await my_messages(api, reader, PASSWORD, msgType=2) == []
    bad = await api.get(f"{MSG}/messageList", who=reader, password=PASSWORD, params={"isRead": 7})
    assert bad["code"] == 400 and "isRead" in bad["msg"], bad

    assert (await api.post(f"{SITE}/allRead", who=reader, password=PASSWORD))["data"] == 1
    assert await count(api, reader, PASSWORD) == 0
    gone = await api.post(f"{SITE}/del", who=reader, password=PASSWORD, params={"ids": f"{first},{third}"})
    assert gone["code"] == 200 and gone["data"] == 2, gone
    assert [m["id"] for m in await my_messages(api, reader, PASSWORD)] == [second]


async def test_message_calls_need_a_token(api: Api) -> None:
    r = await api.client.get(f"{MSG}/getNotReadCount")
    assert r.json()["code"] == 401


async def test_receive_settings_choose_who_gets_an_alarm_type(api: Api, tenants: Tenants) -> None:
    reader, reader_id = await new_user(api)
    admin_id = (await api.get("/api/blade-user/info"))["data"]["id"]
    page = await api.get(f"{RECEIVE}/page")
    assert page["code"] == 200, page
    rows = {r["msgType"]: r for r in page["data"]["records"]}
    assert 1 not in rows and rows[2]["msgTypeName"] == "碰撞报警", "alarm types only: notices go to everyone"
    assert rows[2]["isDefault"] and rows[2]["sendType"] == "1" and rows[2]["receiverCount"] >= 1, rows[2]
    async with api.db.sessionmaker() as s:
        assert int(admin_id) in (await receivers(s, [("000000", 2)]))[("000000", 2)]

    # the picker lists the tenant's users not chosen yet; choosing one replaces the administrators
    pick = await api.get(f"{RECEIVE_USER}/selectUserList", params={"msgType": 2, "account": reader})
    assert [u["id"] for u in pick["data"]["records"]] == [reader_id], pick
    chose = await api.post(f"{RECEIVE_USER}/selectUserSub", json={"msgType": 2, "userIds": [reader_id]})
    assert chose["code"] == 200 and chose["data"] == 1, chose
    again = await api.get(f"{RECEIVE_USER}/selectUserList", params={"msgType": 2, "account": reader})
    assert again["data"]["records"] == []
    chosen = await api.get(f"{RECEIVE_USER}/page", params={"msgType": 2})
    assert [(u["userId"], u["account"]) for u in chosen["data"]["records"]] == [(reader_id, reader)], chosen
    row = (await api.get(f"{RECEIVE}/page", params={"msgType": 2}))["data"]["records"][0]
    assert not row["isDefault"] and row["receivers"] == "Reader", row
    async with api.db.sessionmaker() as s:
        assert (await receivers(s, [("000000", 2)]))[("000000", 2)] == [int(reader_id)]

    # in-site off: nobody; restore: on, to the administrators
    off = await api.post(f"{RECEIVE}/checkSendType", json={"msgType": 2, "sendType": ""})
    assert off["code"] == 200, off
    async with api.db.sessionmaker() as s:
        assert (await receivers(s, [("000000", 2)]))[("000000", 2)] == []
    assert (await api.post(f"{RECEIVE}/restoreDefault", json={"msgType": 2}))["code"] == 200
    row = (await api.get(f"{RECEIVE}/page", params={"msgType": 2}))["data"]["records"][0]
    assert row["isDefault"] and row["sendType"] == "1", row

    # drop a choice by user and by row
    await api.post(f"{RECEIVE_USER}/selectUserSub", json={"msgType": 3, "userIds": reader_id})
    assert (await api.post(f"{RECEIVE}/removeReceiveUser", json={"msgType": 3, "userIds": [reader_id]}))["data"] == 1
    await api.post(f"{RECEIVE_USER}/selectUserSub", json={"msgType": 3, "userIds": reader_id})
    (choice,) = (await api.get(f"{RECEIVE_USER}/page", params={"msgType": 3}))["data"]["records"]
    assert (await api.post(f"{RECEIVE_USER}/del", params={"ids": choice["id"]}))["code"] == 200
    assert (await api.get(f"{RECEIVE_USER}/page", params={"msgType": 3}))["data"]["total"] == 0


async def test_receive_settings_refuse_bad_input_other_tenants_and_users_without_the_menu(
    api: Api, tenants: Tenants
) -> None:
    reader, reader_id = await new_user(api)
    notice = await api.post(f"{RECEIVE}/checkSendType", json={"msgType": 1, "sendType": "1"})
    assert notice["code"] == 400 and "msgType" in notice["msg"], notice
    unknown = await api.post(f"{RECEIVE}/restoreDefault", json={"msgType": 42})
    assert unknown["code"] == 400 and "msgType" in unknown["msg"], unknown
    bad = await api.post(f"{RECEIVE}/checkSendType", json={"msgType": 2, "sendType": "9"})
    assert bad["code"] == 400 and "sendType" in bad["msg"], bad
    empty = await api.post(f"{RECEIVE_USER}/selectUserSub", json={"msgType": 2, "userIds": ""})
    assert empty["code"] == 400 and "userIds" in empty["msg"], empty
    # another tenant's administrator cannot choose this tenant's user, nor see or drop its choices
    foreign = await api.post(
        f"{RECEIVE_USER}/selectUserSub", json={"msgType": 2, "userIds": [reader_id]}, tenant=tenants.b
    )
    assert foreign["code"] == 400 and reader_id in foreign["msg"], foreign
    await api.post(f"{RECEIVE_USER}/selectUserSub", json={"msgType": 4, "userIds": [reader_id]})
    (choice,) = (await api.get(f"{RECEIVE_USER}/page", params={"msgType": 4}))["data"]["records"]
    theirs = await api.get(f"{RECEIVE_USER}/page", params={"msgType": 4}, tenant=tenants.b)
    assert theirs["data"]["total"] == 0, theirs
    assert (await api.post(f"{RECEIVE_USER}/del", params={"ids": choice["id"]}, tenant=tenants.b))["code"] == 400
    assert (await api.get(f"{RECEIVE_USER}/page", params={"msgType": 4}))["data"]["total"] == 1
    # a user without the menu: no settings, but their own messages
    assert (await api.get(f"{RECEIVE}/page", who=reader, password=PASSWORD))["code"] == 403
    refused = await api.post(f"{RECEIVE}/restoreDefault", who=reader, password=PASSWORD, json={"msgType": 4})
    assert refused["code"] == 403, refused
    assert (await api.get(f"{RECEIVE_USER}/page", params={"msgType": 4}))["data"]["total"] == 1
    await api.post(f"{RECEIVE}/restoreDefault", json={"msgType": 4})


async def test_an_alarm_of_the_pipeline_becomes_a_message_for_its_receivers(api: Api, tenants: Tenants) -> None:
    reader, reader_id = await new_user(api)
    device = f"{next_id() % 10**12:012d}"
    car = Vehicle(tenant_id="000000", car_no=f"MSG-{device[-5:]}", device_number=device)
    async with api.db.sessionmaker() as s:
        s.add(car)
        await s.commit()
    t0 = datetime(2026, 4, 8, 2, 0, 0)
    pipeline = Pipeline(api.db, LocalBus())
    admin_before = await count(api)
    b_before = await count(api, tenant=tenants.b)

    # collision (type 2) goes to the administrators by default
    await pipeline.process([Report(device, (Fix(time=t0, lat=31.2, lon=121.5, impact_g=4.0),), t0)])
    assert await count(api) == admin_before + 1
    assert await count(api, reader, PASSWORD) == 0
    assert await count(api, tenant=tenants.b) == b_before
    (alarm,) = await my_messages(api, "admin", None, msgType=2, isRead=0)
    assert alarm["userNum"] == car.car_no and car.car_no in alarm["content"] and "碰撞" in alarm["content"], alarm
    assert alarm["businessId"] == str(car.id) and alarm["msgTypeName"] == "碰撞报警", alarm

    # chosen receivers instead of them
    await api.post(f"{RECEIVE_USER}/selectUserSub", json={"msgType": 2, "userIds": [reader_id]})
    try:
        fix = Fix(time=t0 + timedelta(seconds=10), lat=31.2, lon=121.5, impact_g=5.0)
        await pipeline.process([Report(device, (fix,), t0)])
        assert await count(api, reader, PASSWORD) == 1
        assert await count(api) == admin_before + 1
    finally:
        await api.post(f"{RECEIVE}/restoreDefault", json={"msgType": 2})
    # one message per alarm and receiver, never twice: the first to each of the tenant's administrators (as many as
    # the tests before made), the second to the reader alone
    async with api.db.sessionmaker() as s:
        per_user = (
            await s.execute(
                select(SiteMessage.user_id, func.count())
                .where(SiteMessage.business_id == car.id)
                .group_by(SiteMessage.user_id)
            )
        ).all()
    assert per_user and all(n == 1 for _, n in per_user), per_user
    assert int(reader_id) in {int(u) for u, _ in per_user}
