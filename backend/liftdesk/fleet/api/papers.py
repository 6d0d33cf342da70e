"""Drivers' papers beyond their generated save / update / view / page / remove (``fleet.resources.DRIVER_PAPER``):
submit for review, audit (first and second review), loan / return / archive, the loan records of a paper and the
paper with its pictures and history. The rules (one table of transitions) are in ``fleet.papers``.

Every call on a selection reads it with ``core.batch.selected`` (rows the caller sees, else 400, nothing written),
checks that the selection shares the states the spec asks for, plans every row's transition (one refusal names the
paper and its state, and nothing is written) and only then writes, with one log row per paper.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, create_model

from liftdesk.core import crud
from liftdesk.core.batch import SelectedIds, selected
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.paging import Page, PageQuery, page_body, paginate
from liftdesk.core.schemas import Id, Schema, Time, documented
from liftdesk.fleet import papers as rules
from liftdesk.fleet import resources as res
from liftdesk.fleet.models import Driver, DriverPaper, DriverPaperLog
from liftdesk.fleet.schemas import DriverPaperOut, PaperLogOut

PAPER = res.DRIVER_PAPER
LEND, RETURN, ARCHIVE = 1, 2, 3
_LOAN_EVENTS = {LEND: "lend", RETURN: "return", ARCHIVE: "archive"}
Note = Annotated[str | None, Field(default=None, max_length=255)]


class PaperIds(Schema):
    ids: SelectedIds = Field(description="the selected papers: [1, 2] or 1,2")


class AuditBody(PaperIds):
    audit_result: Annotated[int, Field(ge=1, le=2, description="1 passed, 2 failed")]
    audit_note: Note = None


_LEND_FIELDS = ("loanOrg", "loanPurpose", "returnDate", "certificateNumber")


class LoanBody(PaperIds):
    """Lend (1: the organisation, purpose, return date and certificate number are required), return (2) or archive
    (3) the selected papers; they must share their loan and archive states."""

    model_config = ConfigDict(
        json_schema_extra=documented(
            rules=[
                {
                    "anyOf": [
                        {
                            "required": ["loanType", *_LEND_FIELDS],
                            "properties": {
                                "loanType": {"const": LEND},
                                **{f: {"type": "string", "pattern": "[^\\s]"} for f in _LEND_FIELDS},
                            },
                        },
                        {"properties": {"loanType": {"enum": [RETURN, ARCHIVE]}}},
                    ]
                }
            ]
        )
    )

    loan_type: Annotated[int, Field(ge=1, le=3, description="1 lend, 2 return, 3 archive")]
    loan_org: Annotated[str | None, Field(default=None, max_length=64, description="the borrowing organisation")]
    loan_purpose: Note = None
    return_date: Annotated[Time | None, Field(default=None, description="when the papers are due back")]
    certificate_number: Annotated[
        str | None, Field(default=None, max_length=32, description="the borrower's certificate number")
    ]
    note: Note = None
    archive_place: Annotated[str | None, Field(default=None, max_length=64, description="where it is archived")]


class LoanRecordQuery(Schema):
    paper_id: Annotated[Id, Field(description="the paper")]
    current: int = Field(default=1, ge=1, le=10_000_000, description="page number, from 1")
    size: int = Field(default=10, ge=1, le=1_000_000, description="rows per page (at most 1000 are given)")


class PaperIdQuery(Schema):
    id: Annotated[Id, Field(description="the paper")]


PaperViewOut: Any = create_model(
    "PaperViewOut",
    __base__=DriverPaperOut,
    history=(list[PaperLogOut], Field(default_factory=list, description="every change, the latest first")),
)


async def _papers(ctx: crud.Ctx, ids: str) -> list[DriverPaper]:
    rows: list[DriverPaper] = await selected(ctx, ids)
    return rows


@PAPER.action(
    "POST",
    "submitTrial",
    kind="batch",
    permission="driver_paper_submit",
    body=PaperIds,
    answer=int,
    summary="Submit the selected papers for review (each not submitted, or failed: all or none); answers how many",
)
async def submit_trial(ctx: crud.Ctx, body: PaperIds) -> int:
    papers = await _papers(ctx, body.ids)
    await rules.move(ctx, papers, "submit")
    return len(papers)


@PAPER.action(
    "POST",
    "audit",
    kind="batch",
    permission="driver_paper_audit",
    body=AuditBody,
    answer=int,
    summary="Audit the selected papers with a note: a submitted paper gets its first review, one that passed it its "
    "second (the selection shares one review state; all or none); answers how many",
)
async def audit(ctx: crud.Ctx, body: AuditBody) -> int:
    papers = await _papers(ctx, body.ids)
    rules.shared(ctx, papers, rules.AUDIT)
    event = "pass" if body.audit_result == 1 else "fail"
    now = utcnow().replace(microsecond=0)
    stage = "first" if papers[0].audit_status == rules.SUBMITTED else "second"
    change = rules.Change(
        note=body.audit_note,
        paper={
            "audit_note": body.audit_note,
            f"{stage}_audit_user": ctx.principal.user_id,
            f"{stage}_audit_time": now,
        },
    )
    await rules.move(ctx, papers, event, change)
    return len(papers)


def _required(value: Any, name: str) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ServiceError(t("field_required", field=name))
    return value


@PAPER.action(
    "POST",
    "loan",
    kind="batch",
    permission="driver_paper_loan",
    body=LoanBody,
    answer=int,
    summary="Lend (loanType 1: loanOrg, loanPurpose, returnDate and certificateNumber required), return (2) or "
    "archive (3, also needs the button driver_paper_archive) the selected papers, which share their loan and "
    "archive states (all or none); answers how many",
)
async def loan(ctx: crud.Ctx, body: LoanBody) -> int:
    if body.loan_type == ARCHIVE:
        await ctx.require("driver_paper_archive")
    papers = await _papers(ctx, body.ids)
    rules.shared(ctx, papers, rules.LOAN, rules.ARCHIVE)
    now = utcnow().replace(microsecond=0)
    change = rules.Change(note=body.note)
    if body.loan_type == LEND:
        org = _required(body.loan_org, "loanOrg")
        purpose = _required(body.loan_purpose, "loanPurpose")
        due = _required(body.return_date, "returnDate")
        number = _required(body.certificate_number, "certificateNumber")
        if rules.local_day(due) < rules.local_today():
            raise ServiceError(t("paper_return_past", field="returnDate"))
        lent = {"loan_org": org, "loan_purpose": purpose, "loan_return_date": due, "loan_cert_number": number}
        change.paper = {**lent, "loan_time": now, "loan_note": body.note}
        change.log = lent
    elif body.loan_type == RETURN:
        change.paper = {"loan_note": body.note}
        change.log_of = lambda paper: {"loan_org": paper.loan_org, "loan_cert_number": paper.loan_cert_number}
    else:
        change.paper = {
            "archive_place": body.archive_place,
            "archive_note": body.note,
            "archive_time": now,
            "archive_user": ctx.principal.user_id,
        }
    await rules.move(ctx, papers, _LOAN_EVENTS[body.loan_type], change)
    return len(papers)


async def _paper(ctx: crud.Ctx, ident: int) -> DriverPaper:
    paper = await crud.get_scoped(ctx, ident)
    assert isinstance(paper, DriverPaper)
    return paper


@PAPER.action(
    "GET",
    "loanRecord",
    kind="sub",
    query=LoanRecordQuery,
    answer=Page[PaperLogOut],
    summary="The loans and returns of one paper (who, when, organisation, purpose, return date, note), the latest "
    "first, paged",
)
async def loan_record(ctx: crud.Ctx, query: LoanRecordQuery) -> dict[str, Any]:
    paper = await _paper(ctx, query.paper_id)
    stmt = (
        ctx.scope.select(DriverPaperLog)
        .where(DriverPaperLog.paper_id == paper.id, DriverPaperLog.event.in_(rules.LOAN_EVENTS))
        .order_by(DriverPaperLog.create_time.desc(), DriverPaperLog.id.desc())
    )
    q = PageQuery(query.current, query.size)
    rows, total, pages = await paginate(ctx.session, stmt, q)
    return page_body([PaperLogOut.model_validate(r) for r in rows], total, pages, q)


@PAPER.action(
    "GET",
    "paperView",
    kind="detail",
    query=PaperIdQuery,
    answer=PaperViewOut,
    summary="One paper with its holder, pictures and history (every save, review, loan, return and archive)",
)
async def paper_view(ctx: crud.Ctx, query: PaperIdQuery) -> dict[str, Any]:
    row = await crud.detail(ctx, (await _paper(ctx, query.id)).id)
    logs = await ctx.session.execute(
        ctx.scope.select(DriverPaperLog)
        .where(DriverPaperLog.paper_id == query.id)
        .order_by(DriverPaperLog.create_time.desc(), DriverPaperLog.id.desc())
        .limit(500)
    )
    row["history"] = [PaperLogOut.model_validate(r) for r in logs.scalars()]
    return row


class HolderQuery(Schema):
    name: Annotated[str | None, Field(default=None, max_length=32, description="part of the driver's name")] = None


class HolderOut(Schema):
    id: Id
    name: str
    job_number: str | None = None
    mechanism_id: Id | None = None


#: The most holders the picker lists at once (narrowed by name beyond that).
MAX_HOLDERS = 500


@PAPER.action(
    "GET",
    "/api/liftdesk/driverPaper/holders",
    kind="read",
    query=HolderQuery,
    answer=list[HolderOut],
    summary="The drivers a paper may be given to (the caller's scope of drivers), by name, for the holder picker "
    "(at most 500; narrowed by name)",
)
async def holders(ctx: crud.Ctx, query: HolderQuery) -> list[HolderOut]:
    stmt = ctx.scope.select(Driver)
    if query.name:
        stmt = stmt.where(Driver.name.contains(query.name, autoescape=True))
    rows = await ctx.session.execute(stmt.order_by(Driver.name, Driver.id).limit(MAX_HOLDERS))
    return [HolderOut.model_validate(d) for d in rows.scalars()]


__all__ = ["audit", "holders", "loan", "loan_record", "paper_view", "submit_trial"]
