"""Generic action cases of drivers' papers and expiry reminders (see actions.py for the format). Their data scope
(a paper belongs to its holder's organisation) is tested in tests/fleet/test_papers.py."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from liftdesk.fleet.models import DriverReminder
from liftdesk.fleet.papers import local_today
from liftdesk.fleet.reminders import compute_reminders
from tests.conftest import Api
from tests.fleet.paper_fixtures import PAPER, REMINDER, insert_driver, new_paper
from tests.fleet.test_papers import lend_body
from tests.fleet.test_reminders import expiring
from tests.resources.actions import ActionCase, Call, key


def _view(ident: str) -> tuple[str, str, dict[str, str]]:
    return ("GET", f"{PAPER}/view", {"id": ident})


async def _submit(api: Api, tenant: str) -> Call:
    paper = await new_paper(api, tenant)
    return Call(json={"ids": [paper["id"]]}, marker=paper["id"], probe=_view(paper["id"]))


async def _audit(api: Api, tenant: str) -> Call:
    paper = await new_paper(api, tenant)
    r = await api.post(f"{PAPER}/submitTrial", json={"ids": [paper["id"]]}, tenant=tenant)
    assert r["code"] == 200, r
    return Call(json={"ids": [paper["id"]], "auditResult": 1, "auditNote": "ok"}, probe=_view(paper["id"]))


async def _loan(api: Api, tenant: str) -> Call:
    paper = await new_paper(api, tenant)
    return Call(json=lend_body(paper["id"]), probe=_view(paper["id"]))


async def _lent(api: Api, tenant: str) -> Call:
    """A paper lent once (it has a loan record): its records, or its view."""
    paper = await new_paper(api, tenant)
    r = await api.post(f"{PAPER}/loan", json=lend_body(paper["id"]), tenant=tenant)
    assert r["code"] == 200, r
    return Call(params={"paperId": paper["id"], "id": paper["id"]}, marker=paper["id"], probe=_view(paper["id"]))


async def _ignore(api: Api, tenant: str) -> Call:
    driver = await insert_driver(api, tenant, license_valid_until=expiring(local_today() + timedelta(days=3)))
    await compute_reminders(api.db)
    async with api.db.sessionmaker() as s:
        found = await s.execute(select(DriverReminder.id).where(DriverReminder.source_id == int(driver["id"])))
        ident = str(found.scalar_one())
    probe = ("POST", f"{REMINDER}/page", {"driverName": driver["name"]})
    return Call(ident=ident, marker=ident, probe=probe)


async def _prefixes(api: Api, tenant: str) -> Call:
    return Call()


async def _holders(api: Api, tenant: str) -> Call:
    driver = await insert_driver(api, tenant)
    return Call(params={"name": driver["name"]}, marker=driver["id"])


CASES: dict[str, ActionCase] = {
    key("POST", f"{PAPER}/submitTrial"): ActionCase(_submit),
    key("POST", f"{PAPER}/audit"): ActionCase(_audit),
    key("POST", f"{PAPER}/loan"): ActionCase(_loan),
    key("GET", f"{PAPER}/loanRecord"): ActionCase(_lent),
    key("GET", f"{PAPER}/paperView"): ActionCase(_lent),
    key("GET", f"{REMINDER}/ignore/{{id}}"): ActionCase(_ignore),
    key("GET", "/api/blade-fics/fics/phonePrefix/listPhonePrefix"): ActionCase(_prefixes),
    key("GET", "/api/liftdesk/driverPaper/holders"): ActionCase(_holders),
}

EXEMPTIONS: dict[str, str] = {}
