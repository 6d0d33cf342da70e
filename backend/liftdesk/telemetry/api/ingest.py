"""HTTP ingest: integrations post fixes for their tenant's terminals (same JSON as MQTT, ``docs/mqtt.md``).

``POST /api/liftdesk/ingest`` with a bearer token; body ``{device, fixes: [...], backfill?, can?}`` or a list of those;
``can``: CAN uploads (``[{frames: [{id, data, channel?}]}]``, as MQTT's ``can`` event), dated when they arrive.
The caller needs the vehicles' edit permission, and every device must belong to the caller's tenant and its vehicle
to the caller's data scope (403 otherwise, also for unknown devices, so nothing leaks); a device of the tenant whose
terminal is bound to no vehicle gets 400 (its fixes have nowhere to go and are not stored).
The answer comes once the data is committed (``Pipeline.submit``); the caller may re-send on any failure.
An action of the ``ingest`` resource (its button ``ingest_post``); needs the telemetry pipeline among the app's services
(and uses the terminal service if there).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, RootModel, WithJsonSchema
from sqlalchemy import select

from liftdesk.core import crud
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import Forbidden, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.services import Services
from liftdesk.fleet.models import Vehicle
from liftdesk.telemetry.gateway.payloads import FixIn
from liftdesk.telemetry.messages import CanFrame, Report, UnknownDevice
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.resources import INGEST
from liftdesk.telemetry.terminals import TerminalService

SOURCE = "http"


#: Fixes of one request, all reports together (``docs/mqtt.md``): more is a 400; send several requests.
MAX_FIXES = 5000


class Unavailable(ServiceError):
    status = 503


#: Epoch milliseconds ``FixIn`` takes: 2000 to 2099 (to the millisecond: a fraction closer to 2100 rounds into it).
_EPOCH_MS = {"type": "number", "minimum": 946_684_800_000, "maximum": 4_102_444_799_999}
#: An ISO date-time ``FixIn`` takes (documented: 2001 to 2098, so that no offset moves it out of 2000 to 2099).
_ISO_TIME = (
    r"^20(?:0[1-9]|[1-8][0-9]|9[0-8])-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:Z|[+-](?:0[0-9]|1[0-3]):[0-5][0-9])?$"
)


class IngestFix(FixIn):
    """A fix as this call documents it: ``time`` (epoch milliseconds or ISO 8601) within what ``FixIn`` takes."""

    time: Annotated[
        int | float | datetime,
        WithJsonSchema({"anyOf": [_EPOCH_MS, {"type": "string", "pattern": _ISO_TIME}]}),
    ]


class CanFrameIn(BaseModel):
    """One CAN frame (``docs/mqtt.md`` ``can``): a 29-bit id (hex), 1 to 8 data bytes (hex), channel 0 or 1."""

    id: Annotated[
        str, Field(pattern=r"^(?:[0-9A-Fa-f]{1,7}|[01][0-9A-Fa-f]{7})$", description="the CAN id, hex (29 bits)")
    ]
    data: Annotated[str, Field(pattern=r"^(?:[0-9A-Fa-f]{2}){1,8}$", description="the data bytes, hex")]
    channel: Annotated[int, Field(ge=0, le=1)] = 0

    def frame(self) -> CanFrame:
        return CanFrame(int(self.id, 16), bytes.fromhex(self.data), self.channel)


class CanUploadIn(BaseModel):
    frames: Annotated[list[CanFrameIn], Field(min_length=1, max_length=64)]


class IngestReport(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    device: Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[0-9A-Za-z_-]+$")]
    fixes: Annotated[list[IngestFix], Field(min_length=1, max_length=5000)]
    backfill: bool = False
    can: Annotated[list[CanUploadIn], Field(max_length=50)] = Field(
        default_factory=list, description="CAN uploads after the fixes, dated when they arrive"
    )


class IngestResult(BaseModel):
    reports: int
    fixes: int


class IngestIn(RootModel[IngestReport | Annotated[list[IngestReport], Field(min_length=1, max_length=500)]]):
    """One report or a list of them (a JSON object or an array)."""

    def reports(self) -> list[IngestReport]:
        return self.root if isinstance(self.root, list) else [self.root]


@INGEST.action(
    "POST",
    "/api/liftdesk/ingest",
    summary="Ingest fixes of the caller's terminals",
    permission="ingest_post",
    body=IngestIn,
    answer=IngestResult,
    tag="telemetry",
)
async def ingest(ctx: crud.Ctx, body: IngestIn, services: Services) -> IngestResult:
    # Posting a vehicle's telemetry writes its data: the ingest button (checked before the input), and only vehicles
    # the caller's data scope shows (a terminal of the tenant bound to no vehicle passes here and gets its 400 below).
    reports = body.reports()
    if sum(len(r.fixes) for r in reports) > MAX_FIXES:  # 500 reports x 5,000 fixes once held the loop for seconds
        raise ServiceError(t("too_many", field="fixes", limit=MAX_FIXES))
    pipeline = services.find(Pipeline)
    if pipeline is None:
        raise Unavailable("telemetry pipeline not available")
    terminals = services.find(TerminalService) or TerminalService(services.db)
    bound: set[int] = set()
    for device in {r.device for r in reports}:
        known = await terminals.lookup(device)
        if known is None or known.tenant_id != ctx.scope.tenant_id:
            raise Forbidden(t("forbidden"))
        if known.vehicle_id is not None:
            bound.add(known.vehicle_id)
    if bound:
        visible = await ctx.session.execute(select(Vehicle.id).where(Vehicle.id.in_(bound), *ctx.scope.where(Vehicle)))
        if len(visible.all()) != len(bound):
            raise Forbidden(t("forbidden"))
    now = utcnow()
    submitted = [
        Report(r.device, tuple(f.to_fix() for f in r.fixes), now, backfill=r.backfill, source=SOURCE) for r in reports
    ] + [
        # each upload a moment apart: the CAN history keeps one sample per vehicle and time
        Report(r.device, (), now + timedelta(microseconds=i + 1), source=SOURCE, can=tuple(f.frame() for f in u.frames))
        for r in reports
        for i, u in enumerate(r.can)
    ]
    results = await asyncio.gather(*(pipeline.submit(report) for report in submitted), return_exceptions=True)
    unbound = sorted({d for r in results if isinstance(r, UnknownDevice) for d in r.devices})
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, UnknownDevice):
            raise result
    if unbound:  # the other devices' fixes are stored; re-sending them all is harmless (duplicates are ignored)
        raise ServiceError(t("terminal_unbound", field="device", value=", ".join(unbound)))
    return IngestResult(reports=len(reports), fixes=sum(len(r.fixes) for r in submitted))
