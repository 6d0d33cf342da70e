"""Drivers and papers for the papers' and reminders' tests: drivers are written straight into the database (their
own calls are another part of issue 14), papers through the API."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from liftdesk.core.ids import next_id
from liftdesk.fleet.models import Driver
from liftdesk.system.models import Dept
from tests.conftest import Api
from tests.resources.data import mobile

PAPER = "/api/blade-fics/fics/driverInfoPaper"
REMINDER = "/api/blade-fics/fics/driverExpirationReminder"


async def root_dept(api: Api, tenant: str) -> int:
    async with api.db.sessionmaker() as s:
        found = await s.execute(
            select(Dept.id).where(Dept.tenant_id == tenant, Dept.parent_id == 0, Dept.is_deleted == 0).order_by(Dept.id)
        )
        return int(found.scalars().first() or 0)


async def insert_driver(
    api: Api,
    tenant: str = "000000",
    *,
    mechanism_id: int | str | None = None,
    license_valid_until: datetime | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """A driver of ``tenant`` in the organisation ``mechanism_id`` (default: the tenant's root organisation)."""
    org = int(mechanism_id) if mechanism_id is not None else await root_dept(api, tenant)
    ident = next_id()
    driver = Driver(
        id=ident,
        tenant_id=tenant,
        name=name or api.unique("司机"),
        phone=mobile(),
        mechanism_id=org,
        create_dept=org,
        license_number=api.unique("L")[:32],
        license_valid_until=license_valid_until,
    )
    async with api.db.sessionmaker() as s:
        s.add(driver)
        await s.commit()
    return {"id": str(ident), "name": driver.name, "mechanismId": str(org)}


async def new_paper(
    api: Api, tenant: str = "000000", driver: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """A paper saved through the API (not submitted, not lent, in use)."""
    holder = driver or await insert_driver(api, tenant)
    body = {
        "driverId": holder["id"],
        "paperNumber": api.unique("N1-"),
        "paperType": 1,
        "firstReceiveDate": "2024-03-01 00:00:00",
        "validUntil": "2028-03-01 00:00:00",
        "issuingAuthority": "市场监督管理局",
        **extra,
    }
    r = await api.post(f"{PAPER}/save", json=body, tenant=tenant)
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data
