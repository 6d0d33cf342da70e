"""Drivers' papers (fleet/papers.py, fleet/api/papers.py) through the API on both databases: every transition of
the three states allowed or refused as the table below says, the loan's required fields, selections that mix
states, pictures (kind, size, count, another tenant's), loan records and history, and the attacks: another tenant's
driver as holder, another tenant's paper in a selection, a user who sees their own organisation only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

from liftdesk.core.db import utcnow
from liftdesk.core.schemas import format_time
from liftdesk.fleet.models import DriverPaper, DriverPaperLog
from tests.conftest import Api, Tenants, own_organisation_user, seed_ids
from tests.fleet.paper_fixtures import PAPER, insert_driver, new_paper
from tests.system.test_map_setting import png

UPLOAD = "/api/blade-fics/file/upload"
EVENTS = ("edit", "submit", "pass", "fail", "lend", "return", "archive", "remove")
#: (review, loan, archive) → what each event leaves: the new value of the state it moves ("d": removed), or "x":
#: refused. Review 0 not submitted, 1 submitted, 2 first passed, 3 first failed, 4 second passed, 5 second failed;
#: loan 0 not lent, 1 lent; archive 0 in use, 1 archived (a paper cannot be lent and archived at once).
TABLE: dict[tuple[int, int, int], str] = {
    #          edit submit pass fail lend return archive remove
    (0, 0, 0): "0    1      x    x    1    x      1       d",
    (1, 0, 0): "x    x      2    3    1    x      x       d",
    (2, 0, 0): "x    x      4    5    1    x      x       d",
    (3, 0, 0): "0    1      x    x    1    x      1       d",
    (4, 0, 0): "0    x      x    x    1    x      1       d",
    (5, 0, 0): "0    1      x    x    1    x      1       d",
    (0, 1, 0): "0    1      x    x    x    0      x       x",
    (1, 1, 0): "x    x      2    3    x    0      x       x",
    (2, 1, 0): "x    x      4    5    x    0      x       x",
    (3, 1, 0): "0    1      x    x    x    0      x       x",
    (4, 1, 0): "0    x      x    x    x    0      x       x",
    (5, 1, 0): "0    1      x    x    x    0      x       x",
    **{(review, 0, 1): "x    x      x    x    x    x      x       x" for review in range(6)},
}
AXIS = {
    "edit": "audit_status",
    "submit": "audit_status",
    "pass": "audit_status",
    "fail": "audit_status",
    "lend": "loan_status",
    "return": "loan_status",
    "archive": "archive_status",
}
NAMES = {
    "audit_status": ["未提交", "已提交", "初审通过", "初审未通过", "复审通过", "复审未通过"],
    "loan_status": ["未借出", "已借出"],
    "archive_status": ["未归档", "已归档"],
}


def _future(days: int = 10) -> str:
    return format_time(utcnow() + timedelta(days=days)) or ""


def lend_body(ident: str, **over: Any) -> dict[str, Any]:
    return {
        "ids": [ident],
        "loanType": 1,
        "loanOrg": "安监站",
        "loanPurpose": "年检",
        "returnDate": _future(),
        "certificateNumber": "320102199001011234",
        "note": "借给安监站年检",
        **over,
    }


async def _call(api: Api, event: str, ident: str, tenant: str = "000000") -> dict[str, Any]:
    who = {"tenant": tenant}
    if event == "edit":
        return await api.post(f"{PAPER}/update", json={"id": ident, "remark": "changed"}, **who)
    if event == "submit":
        return await api.post(f"{PAPER}/submitTrial", json={"ids": [ident]}, **who)
    if event in ("pass", "fail"):
        body = {"ids": [ident], "auditResult": 1 if event == "pass" else 2, "auditNote": f"{event} note"}
        return await api.post(f"{PAPER}/audit", json=body, **who)
    if event == "lend":
        return await api.post(f"{PAPER}/loan", json=lend_body(ident), **who)
    if event in ("return", "archive"):
        body = {"ids": [ident], "loanType": 2 if event == "return" else 3, "note": event, "archivePlace": "档案室 A"}
        return await api.post(f"{PAPER}/loan", json=body, **who)
    return await api.post(f"{PAPER}/remove", params={"ids": ident}, **who)


async def _state(api: Api, ident: str) -> tuple[tuple[int, int, int, int], int]:
    async with api.db.sessionmaker() as s:
        paper = (await s.execute(select(DriverPaper).where(DriverPaper.id == int(ident)))).scalar_one()
        logs = (await s.execute(select(func.count()).where(DriverPaperLog.paper_id == int(ident)))).scalar_one()
        return (paper.audit_status, paper.loan_status, paper.archive_status, paper.is_deleted), int(logs)


async def _set(api: Api, ident: str, state: tuple[int, int, int]) -> None:
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(DriverPaper)
            .where(DriverPaper.id == int(ident))
            .values(audit_status=state[0], loan_status=state[1], archive_status=state[2])
        )
        await s.commit()


@pytest.mark.parametrize("state", sorted(TABLE), ids=lambda s: "review{}-loan{}-archive{}".format(*s))
async def test_every_transition_is_allowed_or_refused_as_the_table_says(api: Api, state: tuple[int, int, int]) -> None:
    driver = await insert_driver(api)
    for event, expected in zip(EVENTS, TABLE[state].split(), strict=True):
        paper = await new_paper(api, driver=driver)
        await _set(api, paper["id"], state)
        before, logs = await _state(api, paper["id"])
        answer = await _call(api, event, paper["id"])
        after, logs_after = await _state(api, paper["id"])
        if expected == "x":
            assert answer["code"] == 400 and answer["success"] is False, (state, event, answer)
            named = [NAMES[axis][value] for axis, value in zip(NAMES, state, strict=True)]
            assert paper["paperNumber"] in answer["msg"] and any(n in answer["msg"] for n in named), answer
            assert (after, logs_after) == (before, logs), f"{event} on {state}: a refusal writes nothing"
        elif expected == "d":
            assert answer["code"] == 200, (state, event, answer)
            assert after[3] == 1, "removed"
        else:
            assert answer["code"] == 200, (state, event, answer)
            moved = dict(zip(NAMES, after[:3], strict=True))
            assert moved[AXIS[event]] == int(expected), (state, event, after)
            others = {k: v for k, v in dict(zip(NAMES, state, strict=True)).items() if k != AXIS[event]}
            assert {k: moved[k] for k in others} == others, "an event moves its own state only"
            assert logs_after == logs + 1, "each change is logged"


async def test_the_review_runs_first_then_second_and_records_who_and_when(api: Api) -> None:
    paper = await new_paper(api)
    ident = paper["id"]
    assert (paper["auditStatus"], paper["loanStatus"], paper["archiveStatus"]) == (0, 0, 0)
    assert (await _call(api, "submit", ident))["data"] == 1
    first = await api.post(f"{PAPER}/audit", json={"ids": ident, "auditResult": 1, "auditNote": "初审合格"})
    assert first["code"] == 200, first
    second = await api.post(f"{PAPER}/audit", json={"ids": ident, "auditResult": 1, "auditNote": "复审合格"})
    assert second["code"] == 200, second
    view = (await api.get(f"{PAPER}/paperView", params={"id": ident}))["data"]
    assert view["auditStatus"] == 4 and view["auditNote"] == "复审合格"
    assert view["firstAuditTime"] and view["secondAuditTime"] and view["driverName"]
    assert [h["event"] for h in view["history"]] == ["pass", "pass", "submit", "save"]
    assert [(h["fromState"], h["toState"]) for h in view["history"][:2]] == [(2, 4), (1, 2)]
    assert view["history"][0]["note"] == "复审合格" and view["history"][0]["userName"]
    # editing an approved paper sends it back to "not submitted": what changed is reviewed again
    edited = await api.post(f"{PAPER}/update", json={"id": ident, "issuingAuthority": "质监局"})
    assert edited["code"] == 200 and edited["data"]["auditStatus"] == 0, edited


async def test_a_loan_needs_its_fields_and_is_recorded_with_its_return(api: Api) -> None:
    paper = await new_paper(api)
    ident = paper["id"]
    for field in ("loanOrg", "loanPurpose", "returnDate", "certificateNumber"):
        answer = await api.post(f"{PAPER}/loan", json=lend_body(ident, **{field: None}))
        assert answer["code"] == 400 and field in answer["msg"], answer
        blank = await api.post(f"{PAPER}/loan", json=lend_body(ident, **{field: "  "}))
        assert blank["code"] == 400 and field in blank["msg"], blank
    past = await api.post(f"{PAPER}/loan", json=lend_body(ident, returnDate="2020-01-01 00:00:00"))
    assert past["code"] == 400 and "returnDate" in past["msg"], past
    en = await api.post(f"{PAPER}/loan", json=lend_body(ident, loanOrg=None), headers={"Accept-Language": "en"})
    assert en["code"] == 400 and en["msg"] == "loanOrg is required", en
    assert (await _state(api, ident))[0][:3] == (0, 0, 0), "nothing was lent"

    lent = await api.post(f"{PAPER}/loan", json=lend_body(ident))
    assert lent["code"] == 200, lent
    row = (await api.get(f"{PAPER}/view", params={"id": ident}))["data"]
    assert row["loanStatus"] == 1 and row["loanOrg"] == "安监站" and row["loanCertNumber"] == "320102199001011234"
    back = await api.post(f"{PAPER}/loan", json={"ids": [ident], "loanType": 2, "note": "按时归还"})
    assert back["code"] == 200, back
    records = (await api.get(f"{PAPER}/loanRecord", params={"paperId": ident}))["data"]
    assert records["total"] == 2
    returned, loaned = records["records"]
    assert (returned["event"], loaned["event"]) == ("return", "lend")
    assert loaned["loanOrg"] == "安监站" and loaned["loanPurpose"] == "年检" and loaned["loanReturnDate"]
    assert returned["loanOrg"] == "安监站" and returned["note"] == "按时归还" and returned["userName"]


async def test_selections_must_share_their_states_and_name_at_least_one_row(api: Api) -> None:
    driver = await insert_driver(api)
    a, b = await new_paper(api, driver=driver), await new_paper(api, driver=driver)
    assert (await api.post(f"{PAPER}/loan", json=lend_body(a["id"])))["code"] == 200
    mixed = await api.post(f"{PAPER}/loan", json={"ids": [a["id"], b["id"]], "loanType": 2})
    assert mixed["code"] == 400 and "借用状态" in mixed["msg"] and b["paperNumber"] in mixed["msg"], mixed
    archive = await api.post(f"{PAPER}/loan", json={"ids": [a["id"], b["id"]], "loanType": 3})
    assert archive["code"] == 400, archive
    assert (await _state(api, a["id"]))[0][:3] == (0, 1, 0) and (await _state(api, b["id"]))[0][:3] == (0, 0, 0)
    # audits take one review stage at a time
    assert (await _call(api, "submit", b["id"]))["code"] == 200
    c = await new_paper(api, driver=driver)
    stages = await api.post(f"{PAPER}/audit", json={"ids": [b["id"], c["id"]], "auditResult": 1})
    assert stages["code"] == 400 and "审核状态" in stages["msg"], stages
    for path, body in (("submitTrial", {"ids": []}), ("audit", {"ids": "", "auditResult": 1})):
        empty = await api.post(f"{PAPER}/{path}", json=body)
        assert empty["code"] == 400 and "请选择至少一条数据" in empty["msg"], empty
    # a batch is all or none
    both = await api.post(f"{PAPER}/submitTrial", json={"ids": [b["id"], c["id"]]})
    assert both["code"] == 400 and b["paperNumber"] in both["msg"], both
    assert (await _state(api, c["id"]))[0][0] == 0, "the other paper was not submitted either"
    ok = await api.post(f"{PAPER}/loan", json={**lend_body(b["id"]), "ids": f"{b['id']},{c['id']}"})
    assert ok["code"] == 200 and ok["data"] == 2, ok


async def _upload(api: Api, data: bytes, name: str, tenant: str = "000000") -> str:
    r = await api.post(UPLOAD, files={"file": (name, data, "application/octet-stream")}, tenant=tenant)
    assert r["code"] == 200, r
    ident: str = r["data"]["attachId"]
    return ident


async def test_pictures_are_png_or_jpg_of_the_tenant_at_most_six(api: Api, tenants: Tenants) -> None:
    front, back = await _upload(api, png(), "front.png"), await _upload(api, png(6, 4), "back.png")
    paper = await new_paper(api, pictures=[{"attachId": front, "side": 1}, {"attachId": back, "side": 2}])
    assert [(p["attachId"], p["side"]) for p in paper["pictures"]] == [(front, 1), (back, 2)]
    assert paper["pictures"][0]["link"].endswith(front) and paper["pictures"][0]["originalName"] == "front.png"
    text = await _upload(api, b"not a picture at all", "fake.png")
    refused = await api.post(f"{PAPER}/update", json={"id": paper["id"], "pictures": [{"attachId": text}]})
    assert refused["code"] == 400 and "pictures" in refused["msg"] and "fake.png" in refused["msg"], refused
    many = [{"attachId": await _upload(api, png(i + 2, 2), f"p{i}.png")} for i in range(7)]
    seven = await api.post(f"{PAPER}/update", json={"id": paper["id"], "pictures": many})
    assert seven["code"] == 400 and "pictures" in seven["msg"], seven
    theirs = await _upload(api, png(), "theirs.png", tenant=tenants.b)
    stolen = await api.post(f"{PAPER}/update", json={"id": paper["id"], "pictures": [{"attachId": theirs}]})
    assert stolen["code"] == 400 and "pictures" in stolen["msg"], stolen
    kept = (await api.get(f"{PAPER}/view", params={"id": paper["id"]}))["data"]
    assert [p["attachId"] for p in kept["pictures"]] == [front, back], "refusals left the pictures as they were"
    six = await api.post(f"{PAPER}/update", json={"id": paper["id"], "pictures": many[:6]})
    assert six["code"] == 200 and len(six["data"]["pictures"]) == 6, six
    cleared = await api.post(f"{PAPER}/update", json={"id": paper["id"], "pictures": []})
    assert cleared["code"] == 200 and cleared["data"]["pictures"] == []


async def test_another_tenants_driver_or_paper_is_refused(api: Api, tenants: Tenants) -> None:
    theirs = await insert_driver(api, tenants.b)
    body = {"driverId": theirs["id"], "paperNumber": api.unique("X-")}
    answer = await api.post(f"{PAPER}/save", json=body)
    assert answer["code"] == 400 and answer["msg"] == "driverId: 司机不存在", answer
    mine = await new_paper(api)
    moved = await api.post(f"{PAPER}/update", json={"id": mine["id"], "driverId": theirs["id"]})
    assert moved["code"] == 400 and "driverId" in moved["msg"], moved
    their_paper = await new_paper(api, tenants.b)
    for path, body in (
        ("submitTrial", {"ids": [mine["id"], their_paper["id"]]}),
        ("loan", {**lend_body(mine["id"]), "ids": [mine["id"], their_paper["id"]]}),
        ("audit", {"ids": [their_paper["id"]], "auditResult": 1}),
    ):
        refused = await api.post(f"{PAPER}/{path}", json=body)
        assert refused["code"] == 400, (path, refused)
    assert (await _state(api, mine["id"]))[0] == (0, 0, 0, 0) and (await _state(api, their_paper["id"]))[0] == (
        0,
        0,
        0,
        0,
    ), "nothing changed on either side"
    record = await api.get(f"{PAPER}/loanRecord", params={"paperId": their_paper["id"]})
    view = await api.get(f"{PAPER}/paperView", params={"id": their_paper["id"]})
    assert record["code"] == 400 and view["code"] == 400 and view["data"] is None


async def test_a_paper_belongs_to_its_holders_organisation(api: Api) -> None:
    """A user who sees their own organisation's papers only: papers whose holders are elsewhere are not listed,
    read or changed, a holder elsewhere is refused; their own organisation's are served."""
    ids = await seed_ids(api)
    inside = await insert_driver(api, mechanism_id=ids["child_dept"])
    outside = await insert_driver(api, mechanism_id=ids["dept"])
    theirs = await new_paper(api, driver=outside)
    buttons = ("driver_paper_add", "driver_paper_edit", "driver_paper_submit", "driver_paper_loan")
    async with own_organisation_user(
        api, ids["child_dept"], buttons=buttons, resource="driver_paper", menus=("driver_paper",)
    ) as who:
        made = await api.post(f"{PAPER}/save", json={"driverId": inside["id"], "paperNumber": api.unique("S-")}, **who)
        assert made["code"] == 200 and made["data"]["mechanismId"] == ids["child_dept"], made
        elsewhere = {"driverId": outside["id"], "paperNumber": api.unique("S-")}
        assert (await api.post(f"{PAPER}/save", json=elsewhere, **who))["code"] == 400
        listed = (await api.get(f"{PAPER}/page", params={"size": 1000}, **who))["data"]["records"]
        assert made["data"]["id"] in {r["id"] for r in listed} and theirs["id"] not in {r["id"] for r in listed}
        assert (await api.get(f"{PAPER}/view", params={"id": theirs["id"]}, **who))["code"] == 400
        submit = await api.post(f"{PAPER}/submitTrial", json={"ids": [theirs["id"]]}, **who)
        assert submit["code"] == 400, submit
        # archive needs its own button, even with the loan button
        archive = await api.post(f"{PAPER}/loan", json={"ids": [made["data"]["id"]], "loanType": 3}, **who)
        assert archive["_status"] == 403, archive
        assert (await api.post(f"{PAPER}/submitTrial", json={"ids": [made["data"]["id"]]}, **who))["code"] == 200
    assert (await _state(api, theirs["id"]))[0] == (0, 0, 0, 0)


async def test_the_list_filters_by_state_and_holder(api: Api) -> None:
    driver = await insert_driver(api, name=api.unique("王师傅"))
    a, b = await new_paper(api, driver=driver), await new_paper(api, driver=driver)
    assert (await _call(api, "lend", a["id"]))["code"] == 200
    lent = (await api.get(f"{PAPER}/page", params={"loanStatus_equal": 1, "driverName": driver["name"]}))["data"]
    assert [r["id"] for r in lent["records"]] == [a["id"]] and lent["records"][0]["driverName"] == driver["name"]
    both = (await api.get(f"{PAPER}/page", params={"driverName": driver["name"]}))["data"]
    assert {r["id"] for r in both["records"]} == {a["id"], b["id"]}
    assert both["records"][0]["daysLeft"] > 300
