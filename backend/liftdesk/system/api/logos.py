"""Organisation logos.

- ``POST /api/blade-system/dept/upload-logo`` (multipart ``file``; buttons ``dept_add`` or ``dept_edit``): a .jpg,
  .jpeg or .png of at most 5 MB whose content is that kind of picture (``files.check_picture``) goes to the tenant's
  enabled store as an attachment; its ``link`` is what the organisation form saves as ``deptLogo`` (the save accepts
  only such a link of the tenant's: ``DeptHooks``).
- ``GET /api/blade-system/dept/logo`` (every signed-in user): the logo the top bar shows, that of the caller's
  organisation or of its nearest ancestor with one (empty: the product's). Its ``link`` is read with the caller's
  token through ``attach/download``, which finds only the tenant's own attachments.
"""

from __future__ import annotations

from fastapi import UploadFile

from liftdesk.core import crud
from liftdesk.core.ids import ids_of
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Id, Schema
from liftdesk.core.services import Services
from liftdesk.system import files
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system.api.files import uploaded
from liftdesk.system.schemas import UploadOut

#: The largest logo (the specification's 5 MB).
LOGO_MAX_BYTES = 5 * 1024 * 1024
_UPLOAD_DOCUMENT = {
    "description": "multipart field 'file': a .jpg, .jpeg or .png picture of at most 5 MB (checked by content)",
    "requestBody": {
        "content": {"multipart/form-data": {"encoding": {"file": {"contentType": "image/png, image/jpeg"}}}}
    },
}


class LogoOut(Schema):
    dept_id: Id | None = None
    dept_logo: str = ""


@res.DEPT.action(
    "POST",
    "upload-logo",
    permission=("edit", "add"),  # the organisation form's upload: whoever may add or edit organisations
    answer=UploadOut,
    openapi=_UPLOAD_DOCUMENT,
    summary="Upload an organisation logo (jpg / jpeg / png, at most 5 MB, content matching the extension) to the "
    "tenant's enabled store; the answer's link is saved as deptLogo",
)
async def upload_logo(ctx: crud.Ctx, upload: UploadFile, services: Services) -> UploadOut:
    settings = services.settings
    data = await upload.read(LOGO_MAX_BYTES + 1)
    kind = files.check_picture(settings, data, upload.filename or "", LOGO_MAX_BYTES)
    row = await files.store_attachment(ctx, settings, data, kind, upload.filename)
    return uploaded(row)


@res.DEPT.action(
    "GET",
    "logo",
    permission=SIGNED_IN,
    kind="read",
    answer=LogoOut,
    summary="The top bar's logo: that of the caller's organisation or of its nearest ancestor with one (empty: none)",
)
async def own_logo(ctx: crud.Ctx) -> LogoOut:
    own = ctx.principal.dept_ids
    if not own:
        return LogoOut()
    # the caller's own organisations and their ancestors, whatever data rule the organisation menu has (data=False)
    mine = ctx.scope.select(m.Dept, data=False).where(m.Dept.id == own[0])
    dept = (await ctx.session.execute(mine)).scalars().first()
    if dept is None:
        return LogoOut()
    chain = [dept.id, *reversed([i for i in ids_of(dept.ancestors) if i != 0])]
    stmt = ctx.scope.select(m.Dept, data=False).where(m.Dept.id.in_(chain))
    rows = {d.id: d for d in (await ctx.session.execute(stmt)).scalars().all()}
    for ident in chain:
        found = rows.get(ident)
        if found is not None and (found.dept_logo or "").strip():
            return LogoOut(dept_id=found.id, dept_logo=found.dept_logo or "")
    return LogoOut()
