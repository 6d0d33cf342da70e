"""SMS configurations and messages beyond their generated operations.

- ``POST /api/blade-resource/sms/enable?id=`` (button ``sms_enable``): the configuration becomes the tenant's only
  enabled one, in one transaction (and the partial unique index ``ux_blade_sms_enabled`` holds it against two at
  once).
- ``POST /api/blade-resource/sms/endpoint/send-message?code=&phones=&params=`` (button ``sms_send``): a message to
  mobile numbers (comma separated, each checked as the user calls check them) with the template's parameters (a
  JSON object) through the tenant's configuration ``code``, else its enabled one, else (outside production) the
  server log. A provider's refusal is a 400 with its reason.
"""

from __future__ import annotations

from typing import Any

from liftdesk.core import crud
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.services import Services
from liftdesk.system import resources as res
from liftdesk.system import sms
from liftdesk.system.api.users import check_mobile

SEND_MESSAGE = "/api/blade-resource/sms/endpoint/send-message"


@res.SMS.action(
    "POST",
    "enable",
    permission="sms_enable",
    query=sms.SmsIdQuery,
    answer=sms.SmsOut,
    summary="Enable one SMS configuration: the tenant's messages go through it from now on (the others are disabled)",
)
async def enable_sms(ctx: crud.Ctx, query: sms.SmsIdQuery) -> dict[str, Any]:
    row = await crud.enable_only(
        ctx, query.id, column="status", on=sms.ENABLED, off=sms.DISABLED, race="sms_enable_race"
    )
    return (await ctx.resource.hooks.enrich(ctx, crud.serialise(ctx.resource, [row])))[0]


def check_phones(text: str) -> list[str]:
    """The distinct mobile numbers of a comma-separated list (``，`` too), each checked (400 naming ``phones``)."""
    phones: list[str] = []
    for part in text.replace("，", ",").split(","):
        phone = check_mobile(part, field="phones")
        if phone not in phones:
            phones.append(phone)
    if len(phones) > sms.MAX_PHONES:
        raise ServiceError(t("sms_too_many", field="phones", limit=sms.MAX_PHONES))
    return phones


@res.SMS.action(
    "POST",
    SEND_MESSAGE,
    permission="sms_send",
    query=sms.SendMessageQuery,
    answer=sms.SmsSent,
    summary="Send a message to mobile numbers through the configuration `code` (else the enabled one; a provider's "
    "refusal is a 400 with its reason)",
)
async def send_message(ctx: crud.Ctx, query: sms.SendMessageQuery, services: Services) -> sms.SmsSent:
    phones = check_phones(query.phones)
    params = sms.parse_params(query.params)
    config = await sms.config_for(ctx, (query.code or "").strip() or None)
    settings = services.settings
    if config is None and settings.env == "production":
        raise ServiceError(t("sms_none_enabled"))
    request_id = await sms.send(config, phones, params, allow_private=settings.allow_private_endpoints)
    return sms.SmsSent(
        sms_code=config.sms_code if config else "",
        category=config.category if config else 0,
        phones=phones,
        request_id=request_id,
    )
