"""Driver applications beyond their generated list / detail / save / delete (``fleet.resources.DRIVER_APPLY``): the
batch audit. Every selected application must be pending (under review); approving makes (or updates) the driver,
rejecting keeps the note. Rules in ``fleet.drivers.audit``."""

from __future__ import annotations

from collections.abc import Sequence

from liftdesk.core import crud
from liftdesk.core.batch import declare_batch
from liftdesk.core.services import Services
from liftdesk.fleet import driver_schemas as ds
from liftdesk.fleet import drivers as svc
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import DriverApply


async def _audit(ctx: crud.Ctx, rows: Sequence[DriverApply], services: Services, body: ds.AuditIn) -> int:
    return await svc.audit(ctx, rows, body.apply_status, body.audit_note)


declare_batch(
    res.DRIVER_APPLY,
    "POST",
    "auditBatch",
    name="audit_batch",
    summary="Approve (applyStatus 1) or reject (2) the selected applications with a note (auditNote); every one "
    "of them must be pending. An approved application makes its driver (or updates the driver of its phone)",
    permission="driver_apply_audit",
    apply=_audit,
    rule=lambda r: r.apply_status == svc.PENDING,
    refusal="apply_not_pending",
    name_of=lambda r: str(r.name),
    body=ds.AuditIn,
    answer=int,
)
