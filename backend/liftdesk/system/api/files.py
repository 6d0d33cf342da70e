"""Object storage configurations, attachments and uploads beyond their generated operations.

- ``POST /api/blade-resource/oss/enable?id=`` (button ``oss_enable``): the configuration becomes the tenant's only
  enabled one, in one transaction (and the partial unique index ``ux_blade_oss_enabled`` holds it against two at
  once); ``POST .../oss/test?id=`` (button ``oss_edit``): can its bucket be reached with its keys? (An endpoint
  that leads to an internal address is refused, ``core.egress``.)
- ``POST /api/blade-fics/file/upload?page=`` (multipart ``file``; whoever holds the add or edit button of the page the
  file belongs to: ``system.uploads``; within the tenant's storage quota and the user's upload rate): the file
  goes to the tenant's enabled store (else the local disk), checked by content and size (``files.check_upload``), and
  an attachment row is written; the answer is ``{link, domain, name, originalName, attachId}``.
- ``GET /api/blade-fics-report/fics/common/cosToken?fileName=&page=`` (who may ``file/upload``, within the same
  limits: the file counted at the upload limit until it is read): a
  direct-upload credential for the tenant's enabled object storage (``files.issue_direct_upload``): a presigned POST
  the object store enforces (one key made here, in the tenant's own bucket; 1 byte to the upload limit; the
  ``Content-Type`` of the name's extension, which must be an accepted kind; 10 minutes) and the attachment row it
  will be read through. Checked before anything is stored: who asks, the kind by the name, the size, the key, the
  type header. Not checked before: the content (a picture's bytes matching its extension); it is checked whenever
  the file is read through its link (``files.check_unchecked``), and nothing else of Liftdesk serves it. What the
  bucket itself serves to others (its own access policy) is the bucket's business. On the local disk (no
  configuration enabled): 400, upload with ``file/upload``.
- ``GET /api/blade-resource/attach/download?id=`` (every signed-in user of the tenant: the attachment's ``link``): the
  file's bytes, as an attachment. Another tenant's id is not found. A direct upload's content is checked first.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import Response, UploadFile

from liftdesk.core import crud
from liftdesk.core.envelope import NotFound, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.services import Services
from liftdesk.system import files, uploads
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.api.common import FICS
from liftdesk.system.schemas import (
    AttachIdQuery,
    CosTokenOut,
    CosTokenQuery,
    OssIdQuery,
    OssOut,
    UploadOut,
)

UPLOAD = "/api/blade-fics/file/upload"
DOWNLOAD = files.ATTACH_DOWNLOAD
_UPLOAD_DOCUMENT = {
    "requestBody": {"content": {"multipart/form-data": {"encoding": {"file": {"contentType": "*/*"}}}}},
}
_DOWNLOAD_DOCUMENT = {
    "responses": {
        "200": {
            "description": "the file, as an attachment",
            "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
        }
    }
}


@res.OSS.action(
    "POST",
    "enable",
    permission="oss_enable",
    query=OssIdQuery,
    answer=OssOut,
    summary="Enable one configuration: the tenant's files go there from now on (the others are disabled)",
)
async def enable_oss(ctx: crud.Ctx, query: OssIdQuery) -> dict[str, Any]:
    row = await crud.enable_only(
        ctx, query.id, column="status", on=files.ENABLED, off=files.DISABLED, race="oss_enable_race"
    )
    return (await ctx.resource.hooks.enrich(ctx, crud.serialise(ctx.resource, [row])))[0]


@res.OSS.action(
    "POST",
    "test",
    permission="edit",
    query=OssIdQuery,
    answer=bool,
    summary="Test a configuration: can its bucket be reached with its keys? (400 says why not)",
)
async def test_oss(ctx: crud.Ctx, query: OssIdQuery, services: Services) -> bool:
    row = await crud.get_scoped(ctx, query.id)
    assert isinstance(row, m.Oss)
    try:
        await files.store_of(services.settings, ctx.scope.tenant_id, row).check()
    except files.StoreError as exc:
        raise ServiceError(t("oss_unreachable", field="endpoint", reason=str(exc))) from None
    return True


@res.ATTACH.action(
    "POST",
    UPLOAD,
    permission=SIGNED_IN,
    query=uploads.UploadQuery,
    answer=UploadOut,
    openapi=_UPLOAD_DOCUMENT,
    summary="Upload a file (multipart field 'file') to the tenant's enabled store; it becomes an attachment. Needs "
    "the add or edit button of the page it belongs to (page), and fits the tenant's quota and the user's rate",
)
async def upload_file(ctx: crud.Ctx, query: uploads.UploadQuery, upload: UploadFile, services: Services) -> UploadOut:
    await uploads.require_page(ctx, query.page)
    settings = services.settings
    data = await upload.read(settings.upload_max_bytes + 1)
    kind = files.check_upload(settings, data, upload.filename or "")
    row = await files.store_attachment(ctx, settings, data, kind, upload.filename)
    return uploaded(row)


@res.ATTACH.action(
    "GET",
    f"{FICS}/common/cosToken",
    permission=SIGNED_IN,
    query=CosTokenQuery,
    answer=CosTokenOut,
    summary="A direct-upload credential (presigned POST, 10 minutes) for one file into the tenant's object storage",
)
async def cos_token(ctx: crud.Ctx, query: CosTokenQuery, services: Services) -> CosTokenOut:
    await uploads.require_page(ctx, query.page)
    settings = services.settings
    row, post, kind = await files.issue_direct_upload(ctx, settings, query.file_name)
    return CosTokenOut(
        url=post.url,
        fields=post.fields,
        key=row.name,
        link=row.link,
        content_type=kind.content_type,
        max_size=settings.upload_max_bytes,
        expire_at=post.expire_at,
    )


def _disposition(name: str) -> str:
    """``attachment`` with the name in UTF-8 (RFC 6266 / 5987) and a plain ASCII fallback."""
    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\;' else "_" for c in name) or "file"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


@res.ATTACH.action(
    "GET",
    "download",
    permission=SIGNED_IN,
    kind="detail",
    query=AttachIdQuery,
    raw=True,
    openapi=_DOWNLOAD_DOCUMENT,
    summary="An attachment's file (its link): every signed-in user of the tenant, with a token",
)
async def download_attach(ctx: crud.Ctx, query: AttachIdQuery, services: Services) -> Response:
    # The tenant's file, whoever uploaded it (``data=False``): its link is shared within the tenant.
    stmt = ctx.scope.select(m.Attach, data=False).where(m.Attach.id == query.id)
    row = (await ctx.session.execute(stmt)).scalars().first()
    if row is None:
        raise NotFound(t("not_found"))
    try:
        config = await files.config_of(ctx, row.oss_id)
        data = await files.store_of(services.settings, row.tenant_id, config).get(row.name)
    except (files.MissingObject, ValueError):  # gone, or a stored key that is not one of ours (never followed)
        raise ServiceError(t("file_missing")) from None
    except files.StoreError as exc:
        raise ServiceError(t("file_store_failed", reason=str(exc))) from None
    files.check_unchecked(services.settings, row, data)
    headers = {
        "Content-Disposition": _disposition(row.original_name),
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
    }
    return Response(content=data, media_type=row.content_type, headers=headers)


def uploaded(row: m.Attach) -> UploadOut:
    """The answer to an upload: the attachment just stored (``file/upload``, the organisation logo's upload)."""
    return UploadOut(
        link=row.link,
        domain=row.domain,
        name=row.name,
        original_name=row.original_name,
        attach_id=row.id,
        extension=row.extension,
        attach_size=row.attach_size,
    )
