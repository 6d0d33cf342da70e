"""Rules of drivers' papers (certificates): who may hold one, its pictures, and its three states.

A paper has a review state (``audit_status``), a loan state (``loan_status``) and an archive state
(``archive_status``). They change only through the events of :data:`TRANSITIONS`, one table: each event moves one
state along its allowed moves and needs the other states in given values. Anything else is refused with a 400 that
names the paper and the state that stops it (:func:`plan`), before anything is written. Every change is logged
(``DriverPaperLog``): the loan records and the paper's history are read from there.

Review: not submitted → submitted (``submit``) → first review passed / failed (``pass`` / ``fail``); first passed →
second review passed / failed. A failed paper is submitted again, or edited; editing a paper that is not under review
makes it "not submitted" again (what changed is reviewed again); a paper under review cannot be edited.
Loan: not lent ↔ lent (``lend`` / ``return``). Archive: in use → archived (``archive``), for a paper neither lent nor
under review; an archived paper is kept as it is (no edit, review, loan or removal). A lent paper cannot be removed
or archived.

The holder is a driver of the caller's tenant that the caller's data rule of drivers shows; the paper takes the
holder's organisation (``mechanism_id`` and ``create_dept``), so data scopes by organisation find papers where their
holders are. Pictures are attachments of the tenant's file store (uploaded with ``file/upload``): jpg or png (as
recognised by their content when uploaded), at most 5 MB, at most 6 per paper.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select

from liftdesk.core.config import get_settings
from liftdesk.core.crud import Ctx
from liftdesk.core.db import utcnow
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.ids import next_id
from liftdesk.core.resource import Hooks
from liftdesk.fleet.models import Driver, DriverPaper, DriverPaperLog, DriverPaperPicture
from liftdesk.fleet.schemas import MAX_PAPER_PICTURES
from liftdesk.fleet.service import organisation_names
from liftdesk.system.models import Attach

# review states
NOT_SUBMITTED, SUBMITTED, FIRST_PASSED, FIRST_FAILED, SECOND_PASSED, SECOND_FAILED = range(6)
# loan and archive states
NOT_LENT, LENT = 0, 1
IN_USE, ARCHIVED = 0, 1

AUDIT, LOAN, ARCHIVE = "audit_status", "loan_status", "archive_status"
#: The values of each state (the transition test walks them all).
STATES: Mapping[str, tuple[int, ...]] = {AUDIT: tuple(range(6)), LOAN: (NOT_LENT, LENT), ARCHIVE: (IN_USE, ARCHIVED)}

#: Pictures: the kinds (as ``file/upload`` recognised them by content) and the size a paper takes.
PICTURE_KINDS = frozenset({"jpg", "png"})
PICTURE_MAX_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class Transition:
    """An event moves the state ``axis`` from a key of ``moves`` to its value, when the other states are among
    ``needs``' values."""

    axis: str
    moves: Mapping[int, int]
    needs: Mapping[str, frozenset[int]] = field(default_factory=dict)


_OPEN = {ARCHIVE: frozenset({IN_USE})}
#: Every allowed change of a paper's states; nothing else changes them.
TRANSITIONS: Mapping[str, Transition] = {
    # save of an existing paper: what changed is reviewed again (not while it is under review)
    "edit": Transition(
        AUDIT, dict.fromkeys((NOT_SUBMITTED, FIRST_FAILED, SECOND_PASSED, SECOND_FAILED), NOT_SUBMITTED), _OPEN
    ),
    "submit": Transition(AUDIT, {NOT_SUBMITTED: SUBMITTED, FIRST_FAILED: SUBMITTED, SECOND_FAILED: SUBMITTED}, _OPEN),
    "pass": Transition(AUDIT, {SUBMITTED: FIRST_PASSED, FIRST_PASSED: SECOND_PASSED}, _OPEN),
    "fail": Transition(AUDIT, {SUBMITTED: FIRST_FAILED, FIRST_PASSED: SECOND_FAILED}, _OPEN),
    "lend": Transition(LOAN, {NOT_LENT: LENT}, _OPEN),
    "return": Transition(LOAN, {LENT: NOT_LENT}),
    "archive": Transition(
        ARCHIVE,
        {IN_USE: ARCHIVED},
        {LOAN: frozenset({NOT_LENT}), AUDIT: frozenset({NOT_SUBMITTED, FIRST_FAILED, SECOND_PASSED, SECOND_FAILED})},
    ),
    "remove": Transition(ARCHIVE, {IN_USE: IN_USE}, {LOAN: frozenset({NOT_LENT})}),
}
#: Events whose log rows are loan records.
LOAN_EVENTS = ("lend", "return")


def state_name(axis: str, value: int) -> str:
    return t(f"paper_{axis.split('_')[0]}_{value}")


def plan(event: str, paper: DriverPaper) -> tuple[str, int, int]:
    """(axis, from, to) of ``event`` on ``paper``, or a 400 naming the paper and the state that refuses it."""
    rule = TRANSITIONS[event]
    for axis, allowed in rule.needs.items():
        if getattr(paper, axis) not in allowed:
            raise ServiceError(refusal(event, paper, axis))
    current = getattr(paper, rule.axis)
    if current not in rule.moves:
        raise ServiceError(refusal(event, paper, rule.axis))
    return rule.axis, current, rule.moves[current]


def refusal(event: str, paper: DriverPaper, axis: str) -> str:
    return t(
        "paper_refused",
        value=paper.paper_number,
        state=state_name(axis, getattr(paper, axis)),
        action=t(f"paper_event_{event}"),
    )


@dataclass
class Change:
    """What an event writes besides the state: columns of the paper and of its log row."""

    note: str | None = None
    paper: dict[str, Any] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=dict)
    #: Log columns taken from each paper before it changes (a return names the loan it ends).
    log_of: Callable[[DriverPaper], dict[str, Any]] | None = None


async def move(ctx: Ctx, papers: Sequence[DriverPaper], event: str, change: Change | None = None) -> None:
    """Apply ``event`` to every paper (all planned first: one refusal and nothing is written) and log each."""
    change = change or Change()
    plans = [plan(event, p) for p in papers]
    now = utcnow()
    logs = []
    for paper, (axis, before, after) in zip(papers, plans, strict=True):
        own = change.log_of(paper) if change.log_of else {}
        setattr(paper, axis, after)
        for key, value in change.paper.items():
            setattr(paper, key, value)
        ctx.scope.stamp(paper, creating=False)
        logs.append(log_row(ctx, paper, event, before, after, change.note, now, **change.log, **own))
    if logs:
        await ctx.session.execute(insert(DriverPaperLog), logs)
    await ctx.session.flush()


def log_row(
    ctx: Ctx,
    paper: DriverPaper,
    event: str,
    before: int | None,
    after: int | None,
    note: str | None,
    now: datetime,
    **loan: Any,
) -> dict[str, Any]:
    return {
        "id": next_id(),
        "tenant_id": paper.tenant_id,
        "paper_id": paper.id,
        "event": event,
        "from_state": before,
        "to_state": after,
        "note": note,
        "user_id": ctx.principal.user_id,
        "user_name": (ctx.principal.user_name or ctx.principal.account)[:64],
        "create_time": now,
        **loan,
    }


def shared(ctx: Ctx, papers: Sequence[DriverPaper], *axes: str) -> None:
    """A selection must share these states (spec 001 §5: "selections must share ... loan or archive status"):
    otherwise 400 naming the papers that differ from the first."""
    first = papers[0]
    for axis in axes:
        odd = [p.paper_number for p in papers if getattr(p, axis) != getattr(first, axis)]
        if odd:
            raise ServiceError(t("paper_mixed", state=t(f"paper_axis_{axis}"), value=", ".join(odd[:20])))


# ------------------------------------------------------------------------------------------------- days


def local_day(moment: datetime) -> date:
    """The tenants' calendar day of a stored (UTC) time."""
    return (moment + timedelta(minutes=get_settings().tz_offset_minutes)).date()


def local_today() -> date:
    return local_day(utcnow())


def days_left(until: datetime | None, today: date | None = None) -> int | None:
    if until is None:
        return None
    return (local_day(until) - (today or local_today())).days


# ------------------------------------------------------------------------------------------------- holders


async def holder(ctx: Ctx, driver_id: int) -> Driver:
    """The driver ``driver_id`` if the caller's scope of drivers shows them; else 400 naming ``driverId``."""
    found = (await ctx.session.execute(ctx.scope.select(Driver).where(Driver.id == driver_id))).scalar_one_or_none()
    if found is None:
        raise ServiceError(t("paper_holder_unknown", field="driverId"))
    return found


async def place_with_holder(ctx: Ctx, paper: DriverPaper, creating: bool) -> None:
    """The paper belongs to its holder's organisation; the caller's data rule of papers must show it there."""
    driver = await holder(ctx, paper.driver_id)
    paper.mechanism_id = driver.mechanism_id
    paper.create_dept = driver.mechanism_id
    if ctx.scope.narrows(DriverPaper):
        admitted = await ctx.session.execute(select(ctx.scope.admits(paper)))
        if not admitted.scalar():
            raise ServiceError(t("paper_holder_unknown", field="driverId"))


# ------------------------------------------------------------------------------------------------- pictures


async def check_pictures(ctx: Ctx, pictures: Sequence[Mapping[str, Any]]) -> list[Attach]:
    """The attachments of ``pictures`` (``attach_id``, ``side``): of the caller's tenant, jpg or png, at most 5 MB,
    at most 6; otherwise 400 naming ``pictures``."""
    if len(pictures) > MAX_PAPER_PICTURES:
        raise ServiceError(t("too_many", field="pictures", limit=MAX_PAPER_PICTURES))
    ids = [int(p["attach_id"]) for p in pictures]
    if not ids:
        return []
    rows = await ctx.session.execute(ctx.scope.select(Attach, data=False).where(Attach.id.in_(ids)))
    found = {a.id: a for a in rows.scalars()}
    missing = [str(i) for i in ids if i not in found]
    if missing:
        raise ServiceError(t("paper_picture_unknown", field="pictures", value=", ".join(missing)))
    for attach in found.values():
        if (attach.extension or "").lower() not in PICTURE_KINDS:
            raise ServiceError(t("paper_picture_type", field="pictures", value=attach.original_name))
        if (attach.attach_size or 0) > PICTURE_MAX_BYTES:
            raise ServiceError(t("file_too_large", field="pictures", limit=PICTURE_MAX_BYTES // (1024 * 1024)))
    return [found[i] for i in ids]


def unique_pictures(pictures: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Each attachment once (the first time it is given)."""
    seen: set[int] = set()
    out = []
    for p in pictures:
        if int(p["attach_id"]) not in seen:
            seen.add(int(p["attach_id"]))
            out.append(p)
    return out


async def write_pictures(ctx: Ctx, paper: DriverPaper, pictures: Sequence[Mapping[str, Any]]) -> None:
    await ctx.session.execute(
        delete(DriverPaperPicture).where(*ctx.scope.where(DriverPaperPicture), DriverPaperPicture.paper_id == paper.id)
    )
    rows = [
        {
            "tenant_id": paper.tenant_id,
            "paper_id": paper.id,
            "attach_id": int(p["attach_id"]),
            "side": int(p.get("side") or 3),
            "sort": i,
        }
        for i, p in enumerate(pictures)
    ]
    if rows:
        await ctx.session.execute(insert(DriverPaperPicture), rows)


async def pictures_of(ctx: Ctx, paper_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    if not paper_ids:
        return {}
    stmt = ctx.scope.apply(
        select(DriverPaperPicture, Attach.link, Attach.original_name)
        .join(Attach, Attach.id == DriverPaperPicture.attach_id)
        .where(DriverPaperPicture.paper_id.in_(list(paper_ids)))
        .order_by(DriverPaperPicture.paper_id, DriverPaperPicture.sort),
        DriverPaperPicture,
        Attach,
        data=False,
    )
    out: dict[int, list[dict[str, Any]]] = {}
    for pic, link, name in (await ctx.session.execute(stmt)).all():
        out.setdefault(pic.paper_id, []).append(
            {"attach_id": pic.attach_id, "side": pic.side, "link": link, "original_name": name}
        )
    return out


# ------------------------------------------------------------------------------------------------- the resource


class PaperHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating:
            obj.audit_status, obj.loan_status, obj.archive_status = NOT_SUBMITTED, NOT_LENT, IN_USE
        else:
            axis, before, after = plan("edit", obj)
            setattr(obj, axis, after)
            data["__edit"] = (before, after)
        if creating or "driver_id" in data:
            await place_with_holder(ctx, obj, creating)
        if data.get("pictures") is not None:
            data["pictures"] = unique_pictures(data["pictures"])
            await check_pictures(ctx, data["pictures"])

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if data.get("pictures") is not None:
            await write_pictures(ctx, obj, data["pictures"])
        before, after = data.get("__edit", (None, NOT_SUBMITTED))
        row = log_row(ctx, obj, "save" if creating else "edit", before, after, None, utcnow())
        await ctx.session.execute(insert(DriverPaperLog), [row])

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        for paper in rows:
            plan("remove", paper)

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        name = (ctx.params.get("driverName") or "").strip()
        if name:
            drivers = ctx.scope.select(Driver, data=False).with_only_columns(Driver.id)
            stmt = stmt.where(DriverPaper.driver_id.in_(drivers.where(Driver.name.contains(name, autoescape=True))))
        return stmt

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not rows:
            return rows
        names = await driver_names(ctx, {r["driver_id"] for r in rows})
        depts = await organisation_names(ctx, {r["mechanism_id"] for r in rows if r.get("mechanism_id")})
        pictures = await pictures_of(ctx, [r["id"] for r in rows])
        today = local_today()
        for r in rows:
            r.update(
                driver_name=names.get(r["driver_id"], ""),
                mechanism_name=depts.get(r.get("mechanism_id") or 0, ""),
                pictures=pictures.get(r["id"], []),
                days_left=days_left(r.get("valid_until"), today),
            )
        return rows


async def driver_names(ctx: Ctx, ids: set[int]) -> dict[int, str]:
    """Names of drivers of the caller's tenant (labels beside rows the caller reads)."""
    if not ids:
        return {}
    stmt = ctx.scope.select(Driver, data=False).with_only_columns(Driver.id, Driver.name).where(Driver.id.in_(ids))
    return {ident: name for ident, name in (await ctx.session.execute(stmt)).all()}
