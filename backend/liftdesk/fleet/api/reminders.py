"""Expiry reminders beyond their generated page (``fleet.resources.DRIVER_REMINDER``, written by the daily job of
``fleet.reminders``): ignoring one; and the country calling codes of the drivers' phone field (``phonePrefix``).

The calling codes come from ``phonenumbers`` (Google's libphonenumber metadata, a maintained source): every region
it knows with its code and its name in the caller's language (zh default, en).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import phonenumbers
from phonenumbers import geocoder

from liftdesk.core import crud
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import current_language, t
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Schema
from liftdesk.fleet import reminders as rules
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import DriverReminder
from liftdesk.fleet.schemas import DriverReminderOut

REMINDER = res.DRIVER_REMINDER
#: The regions listed first (the product's home market).
FIRST = ("CN",)


@REMINDER.action(
    "GET",
    "ignore/{id}",
    permission="driver_reminder_ignore",
    answer=DriverReminderOut,
    summary="Ignore an open reminder: it leaves the open ones and is not written again for its threshold (the next "
    "threshold of the same paper writes a new one)",
)
async def ignore(ctx: crud.Ctx, ident: int) -> dict[str, Any]:
    row = await crud.get_scoped(ctx, ident)
    assert isinstance(row, DriverReminder)
    if row.remind_state != rules.OPEN:
        raise ServiceError(t("reminder_not_open", state=t(f"reminder_state_{row.remind_state}")))
    row.remind_state = rules.IGNORED
    row.ignore_user = ctx.principal.user_id
    row.ignore_time = utcnow().replace(microsecond=0)
    ctx.scope.stamp(row, creating=False)
    await ctx.session.flush()
    return (await ctx.resource.hooks.enrich(ctx, crud.serialise(ctx.resource, [row])))[0]


class PhonePrefix(Schema):
    """A country calling code and the region it serves (several regions share some codes, e.g. +1)."""

    code: str
    prefix: str
    region_code: str
    name: str
    label: str


@cache
def _prefixes(lang: str) -> tuple[PhonePrefix, ...]:
    out: list[PhonePrefix] = []
    for code, regions in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.items():
        for region in regions:
            if region == phonenumbers.UNKNOWN_REGION or region == "001":
                continue  # non-geographic numbering plans (satellite, international services)
            name = geocoder._region_display_name(region, lang, None, None) or region
            out.append(PhonePrefix(code=f"+{code}", prefix=str(code), region_code=region, name=name,
                                   label=f"+{code} {name}"))  # fmt: skip
    out.sort(key=lambda p: (p.region_code not in FIRST, int(p.prefix), p.region_code))
    return tuple(out)


@REMINDER.action(
    "GET",
    "/api/blade-fics/fics/phonePrefix/listPhonePrefix",
    permission=SIGNED_IN,
    kind="read",
    answer=list[PhonePrefix],
    tag="phonePrefix",
    summary="Country calling codes for phone fields (from libphonenumber's metadata), names in the caller's "
    "language, China first",
)
async def list_phone_prefix(ctx: crud.Ctx) -> list[PhonePrefix]:
    return list(_prefixes("en" if current_language() == "en" else "zh"))
