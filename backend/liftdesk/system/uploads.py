"""What an upload may cost a tenant and who may upload (issue 28.5).

- **Storage quota** (``blade_tenant.storage_quota_mb``, -1: none): the bytes a tenant's files take (attachments, a
  direct upload counted at the upload limit until it is read, the site plan) plus the new file must fit.
- **Upload rate** (``blade_tenant.upload_rate``, -1: none): uploads per user per hour, counted atomically in the
  shared store (``core.kv``) before the file is stored.
- **The page's permission**: ``file/upload`` and ``cosToken`` name the page the file belongs to (``page``: the
  attachments, a driver's papers); the caller needs its add or edit button (a read-only user cannot upload). The
  other uploads (a logo, a face photo, the site plan) need their own page's button already.

Both limits are set by the platform administrator on the tenant (``tenant/submit``) and every upload path goes
through :func:`admit` (``files.store_attachment``, ``files.issue_direct_upload``, the site plan): a refusal is a 400
naming the limit, before anything is stored.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field
from sqlalchemy import case, func

from liftdesk.core import crud
from liftdesk.core.config import Settings
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.kv import KV
from liftdesk.core.registry import REGISTRY
from liftdesk.core.schemas import Schema
from liftdesk.system import models as m


class UploadQuery(Schema):
    page: str = Field(
        default="attach",
        max_length=32,
        json_schema_extra={"enum": ["attach", "driverPaper"]},
        description="the page the file belongs to (attach: the attachments; driverPaper: a driver's papers); its add "
        "or edit button is needed",
    )


MB = 1024 * 1024
RATE_WINDOW = timedelta(hours=1)
#: The pages an uploaded file may belong to (``page`` of ``file/upload`` and ``cosToken``) → their resource.
UPLOAD_PAGES = {"attach": "attach", "driverPaper": "driver_paper"}


async def require_page(ctx: crud.Ctx, page: str, field: str = "page") -> None:
    """The caller holds the add or edit button of the page ``page`` names (403 otherwise; 400 for no such page)."""
    name = UPLOAD_PAGES.get(page)
    if name is None:
        raise ServiceError(t("field_invalid", field=field))
    page_ctx = await crud.Ctx.build(ctx.session, ctx.principal, REGISTRY[name])
    await page_ctx.require(("add", "edit"))


async def used_bytes(ctx: crud.Ctx, settings: Settings) -> int:
    """What the caller's tenant's files take: attachments (a direct upload, not read yet, at the upload limit) and
    the site plan."""
    size = case((m.Attach.attach_size > 0, m.Attach.attach_size), else_=settings.upload_max_bytes)
    attached = ctx.scope.select(m.Attach, data=False).with_only_columns(func.coalesce(func.sum(size), 0))
    plan = ctx.scope.select(m.MapSetting, data=False).with_only_columns(
        func.coalesce(func.sum(m.MapSetting.plan_size), 0)
    )
    files_: int | None = (await ctx.session.execute(attached)).scalar_one()
    plans: int | None = (await ctx.session.execute(plan)).scalar_one()
    return int(files_ or 0) + int(plans or 0)


async def admit(ctx: crud.Ctx, settings: Settings, size: int, field: str = "file") -> None:
    """Refuse (400, naming the limit) an upload of ``size`` bytes past the user's hourly rate or the tenant's quota;
    else count it against the rate."""
    mine = ctx.scope.select(m.Tenant, data=False).where(m.Tenant.tenant_id == ctx.scope.tenant_id)
    tenant = (await ctx.session.execute(mine)).scalar_one_or_none()
    if tenant is None:
        return
    if tenant.upload_rate >= 0:
        key = f"upload-rate:{tenant.tenant_id}:{ctx.principal.user_id}"
        if await KV(ctx.session).incr(key, RATE_WINDOW) > tenant.upload_rate:
            raise ServiceError(t("upload_rate", field=field, limit=tenant.upload_rate))
    if tenant.storage_quota_mb >= 0:
        used = await used_bytes(ctx, settings)
        if used + size > tenant.storage_quota_mb * MB:
            raise ServiceError(t("storage_quota", field=field, limit=tenant.storage_quota_mb, used=round(used / MB, 1)))
