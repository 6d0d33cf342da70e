"""Expiry reminders (fleet/reminders.py, fleet/api/reminders.py) on both databases: the daily job run for given
days over real drivers and papers (30 / 7 / 0 days, idempotent, superseded, ignored stays ignored, renewed, archived
papers left out), the in-site messages to the type's receivers, the list and ignore calls; and the phone prefixes."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import select, update

from liftdesk.core.config import get_settings
from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Driver, DriverPaper, DriverReminder
from liftdesk.fleet.papers import local_today
from liftdesk.fleet.reminders import compute_reminders, threshold_of
from liftdesk.system.models import MessageReceive, MessageReceiveUser, SiteMessage
from liftdesk.system.seed import ADMIN_USER
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids
from tests.fleet.paper_fixtures import PAPER, REMINDER, insert_driver, new_paper


def expiring(day: date) -> datetime:
    """The stored (UTC) time of the tenants' local midnight starting ``day``."""
    return datetime.combine(day, time()) - timedelta(minutes=get_settings().tz_offset_minutes)


async def reminders_of(api: Api, source_id: str) -> list[tuple[int, int, int]]:
    """(threshold, type, state) of every reminder of a source, oldest threshold first."""
    async with api.db.sessionmaker() as s:
        rows = await s.execute(
            select(DriverReminder.threshold, DriverReminder.remind_type, DriverReminder.remind_state)
            .where(DriverReminder.source_id == int(source_id))
            .order_by(DriverReminder.threshold.desc(), DriverReminder.create_time)
        )
        return [tuple(r) for r in rows.all()]  # type: ignore[misc]


async def messages_about(api: Api, source_id: str) -> list[tuple[int, str]]:
    async with api.db.sessionmaker() as s:
        ids = select(DriverReminder.id).where(DriverReminder.source_id == int(source_id))
        rows = await s.execute(
            select(SiteMessage.user_id, SiteMessage.content).where(
                SiteMessage.msg_type == 9, SiteMessage.business_id.in_(ids)
            )
        )
        return [(int(u), str(c)) for u, c in rows.all()]


def test_thresholds() -> None:
    assert [threshold_of(d) for d in (31, 30, 8, 7, 1, 0, -400)] == [None, 30, 30, 7, 7, 0, 0]


async def test_the_job_writes_each_threshold_once_and_ignored_ones_stay_ignored(api: Api) -> None:
    today = local_today()
    month = await insert_driver(api, license_valid_until=expiring(today + timedelta(days=30)), name=api.unique("月"))
    week = await insert_driver(api, license_valid_until=expiring(today + timedelta(days=5)), name=api.unique("周"))
    gone = await insert_driver(api, license_valid_until=expiring(today - timedelta(days=3)), name=api.unique("过"))
    later = await insert_driver(api, license_valid_until=expiring(today + timedelta(days=31)))

    written = await compute_reminders(api.db, today)
    assert written >= 3
    assert await reminders_of(api, month["id"]) == [(30, 1, 0)]
    assert await reminders_of(api, week["id"]) == [(7, 1, 0)], "only the most urgent threshold reached"
    assert await reminders_of(api, gone["id"]) == [(0, 2, 0)], "an expired licence"
    assert await reminders_of(api, later["id"]) == []
    assert await compute_reminders(api.db, today) == 0, "a second run of the day writes nothing"
    assert await reminders_of(api, week["id"]) == [(7, 1, 0)]

    # the list: days left, type, state, the driver's name; ignoring one
    page = await api.post(f"{REMINDER}/page", json={"driverName": week["name"], "current": 1, "size": 10})
    assert page["code"] == 200 and page["data"]["total"] == 1, page
    row = page["data"]["records"][0]
    assert (row["daysLeft"], row["remindType"], row["remindState"], row["source"]) == (5, 1, 0, 1)
    assert row["driverName"] == week["name"] and row["licenseNumber"], row
    ignored = await api.get(f"{REMINDER}/ignore/{row['id']}")
    assert ignored["code"] == 200 and ignored["data"]["remindState"] == 1, ignored
    again = await api.get(f"{REMINDER}/ignore/{row['id']}")
    assert again["code"] == 400 and "已忽略" in again["msg"], again
    assert await compute_reminders(api.db, today) == 0
    assert await reminders_of(api, week["id"]) == [(7, 1, 1)], "an ignored reminder does not come back"

    # days later: the month's reminder is superseded by its 7-day one; the week's licence has expired
    await compute_reminders(api.db, today + timedelta(days=24))
    assert await reminders_of(api, month["id"]) == [(30, 1, 2), (7, 1, 0)]
    await compute_reminders(api.db, today + timedelta(days=5))
    assert await reminders_of(api, week["id"]) == [(7, 1, 1), (0, 2, 0)], "the next threshold writes a new one"

    # a renewed licence closes its open reminders
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(Driver)
            .where(Driver.id == int(gone["id"]))
            .values(license_valid_until=expiring(today + timedelta(days=400)))
        )
        await s.commit()
    await compute_reminders(api.db, today)
    assert await reminders_of(api, gone["id"]) == [(0, 2, 2)]
    # and a renewal taken back opens it again (no second message)
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(Driver)
            .where(Driver.id == int(gone["id"]))
            .values(license_valid_until=expiring(today - timedelta(days=3)))
        )
        await s.commit()
    await compute_reminders(api.db, today)
    assert await reminders_of(api, gone["id"]) == [(0, 2, 0)]
    assert len(await messages_about(api, gone["id"])) == len(await messages_about(api, month["id"])) / 2


async def test_papers_remind_until_archived_and_messages_reach_the_receivers(api: Api) -> None:
    today = local_today()
    driver = await insert_driver(api, name=api.unique("持证人"))
    day = (today + timedelta(days=7)).isoformat()
    paper = await new_paper(api, driver=driver, validUntil=f"{day} 00:00:00")
    archived = await new_paper(api, driver=driver, validUntil=f"{day} 00:00:00")
    async with api.db.sessionmaker() as s:
        await s.execute(update(DriverPaper).where(DriverPaper.id == int(archived["id"])).values(archive_status=1))
        await s.commit()
    await compute_reminders(api.db, today)
    assert await reminders_of(api, paper["id"]) == [(7, 1, 0)]
    assert await reminders_of(api, archived["id"]) == [], "an archived paper is not reminded of"
    sent = await messages_about(api, paper["id"])
    assert (ADMIN_USER, f"司机 {driver['name']} 的证件 {paper['paperNumber']}将于 {day} 到期 (剩余 7 天)") in sent
    listed = await api.post(f"{REMINDER}/page", json={"paperNumber": paper["paperNumber"]})
    row = listed["data"]["records"][0]
    assert (row["paperId"], row["paperNumber"], row["source"], row["daysLeft"]) == (
        paper["id"],
        paper["paperNumber"],
        2,
        7,
    )

    # the tenant chose another receiver for 证件到期: only they get the next one
    ids = await seed_ids(api)
    reader = await api.post(
        "/api/blade-user/submit",
        json={
            "account": api.unique("rd"),
            "password": "reader-1",
            "name": "R",
            "realName": "Reader",
            "roleId": ids["driver"],
            "deptId": ids["dept"],
        },
    )
    assert reader["code"] == 200, reader
    async with api.db.sessionmaker() as s:
        s.add(MessageReceive(id=next_id(), tenant_id="000000", msg_type=9, send_type="1"))
        s.add(MessageReceiveUser(id=next_id(), tenant_id="000000", msg_type=9, user_id=int(reader["data"]["id"])))
        await s.commit()
    try:
        other = await new_paper(api, driver=driver, validUntil=f"{today.isoformat()} 00:00:00")
        await compute_reminders(api.db, today)
        assert [u for u, _ in await messages_about(api, other["id"])] == [int(reader["data"]["id"])]
        assert "已于" in (await messages_about(api, other["id"]))[0][1]
        # removing the paper closes its reminder
        assert (await api.post(f"{PAPER}/remove", params={"ids": other["id"]}))["code"] == 200
        await compute_reminders(api.db, today)
        assert await reminders_of(api, other["id"]) == [(0, 2, 2)]
    finally:
        async with api.db.sessionmaker() as s:
            for model in (MessageReceiveUser, MessageReceive):
                rows = (await s.execute(select(model).where(model.msg_type == 9))).scalars().all()
                for r in rows:
                    await s.delete(r)
            await s.commit()


async def test_another_tenant_neither_lists_nor_ignores_reminders(api: Api, tenants: Tenants) -> None:
    today = local_today()
    driver = await insert_driver(api, license_valid_until=expiring(today + timedelta(days=2)))
    await compute_reminders(api.db, today)
    mine = await api.post(f"{REMINDER}/page", json={"driverName": driver["name"]})
    ident = mine["data"]["records"][0]["id"]
    theirs = await api.post(f"{REMINDER}/page", json={"size": 1000}, tenant=tenants.b)
    assert ident not in {r["id"] for r in theirs["data"]["records"]}
    refused = await api.get(f"{REMINDER}/ignore/{ident}", tenant=tenants.b)
    assert refused["code"] == 400 and refused["data"] is None, refused
    hidden = await api.get(f"{REMINDER}/detail", params={"id": ident}, tenant=tenants.b)
    assert hidden["code"] == 400 and hidden["data"] is None, hidden
    shown = await api.get(f"{REMINDER}/detail", params={"id": ident})
    assert shown["code"] == 200 and shown["data"]["driverName"] == driver["name"] and shown["data"]["daysLeft"] == 2
    assert await reminders_of(api, driver["id"]) == [(7, 1, 0)]


async def test_phone_prefixes_come_from_libphonenumber(api: Api) -> None:
    zh = (await api.get("/api/blade-fics/fics/phonePrefix/listPhonePrefix"))["data"]
    assert zh[0] == {"code": "+86", "prefix": "86", "regionCode": "CN", "name": "中国", "label": "+86 中国"}
    by_region: dict[str, Any] = {p["regionCode"]: p for p in zh}
    assert len(by_region) > 200 and by_region["US"]["code"] == "+1" and by_region["GB"]["code"] == "+44"
    en = await api.get("/api/blade-fics/fics/phonePrefix/listPhonePrefix", headers={"Accept-Language": "en"})
    assert {p["regionCode"]: p["name"] for p in en["data"]}["DE"] == "Germany"


async def test_a_reminder_belongs_to_its_drivers_organisation(api: Api) -> None:
    """A user who sees their own organisation's reminders only: another organisation's are neither listed, read nor
    ignored; their own are."""
    today = local_today()
    ids = await seed_ids(api)
    inside = await insert_driver(api, mechanism_id=ids["child_dept"], license_valid_until=expiring(today))
    outside = await insert_driver(api, mechanism_id=ids["dept"], license_valid_until=expiring(today))
    await compute_reminders(api.db, today)
    async with api.db.sessionmaker() as s:
        found = await s.execute(
            select(DriverReminder.source_id, DriverReminder.id).where(
                DriverReminder.source_id.in_([int(inside["id"]), int(outside["id"])])
            )
        )
        by_driver = {str(source): str(ident) for source, ident in found.all()}
    async with own_organisation_user(
        api,
        ids["child_dept"],
        buttons=("driver_reminder_ignore",),
        resource="driver_reminder",
        menus=("driver_reminder",),
    ) as who:
        listed = await api.post(f"{REMINDER}/page", json={"size": 1000}, **who)
        seen = {r["id"] for r in listed["data"]["records"]}
        assert by_driver[inside["id"]] in seen and by_driver[outside["id"]] not in seen
        assert (await api.get(f"{REMINDER}/detail", params={"id": by_driver[outside["id"]]}, **who))["code"] == 400
        assert (await api.get(f"{REMINDER}/ignore/{by_driver[outside['id']]}", **who))["code"] == 400
        assert (await api.get(f"{REMINDER}/ignore/{by_driver[inside['id']]}", **who))["code"] == 200
    assert await reminders_of(api, outside["id"]) == [(0, 2, 0)]
