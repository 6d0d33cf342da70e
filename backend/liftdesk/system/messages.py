"""In-site messages, notices and who receives what (issue 12 part 6).

Tables (migration 0012):

- ``blade_notice`` (BladeX's): a notice of the tenant: title, category (system dictionary ``notice``), content,
  release time. ``/api/blade-desk/notice/{list,detail,submit,remove}`` (menu 通知公告, its buttons). Saving a NEW
  notice publishes it: every user of the tenant gets a site message about it, written with one batched INSERT in
  the request's transaction (:func:`publish_notice`); the release time defaults to the moment it is saved. Editing
  a notice does not send it again; removing one removes its messages too.
- ``liftdesk_site_message``: one message to one user: title, content, type (``msg_type``, a key of the business
  dictionary ``message_type`` seeded per tenant by :func:`sync_message_dicts`: 1 通知公告, 2 碰撞报警 ... 8 其他报警),
  read or not and when, the plate or driver it is about (``user_num``), the notice or vehicle (``business_id``).
  A user reads, marks and deletes their OWN messages only (``SiteMessageHooks.filter``: every list, detail and
  selection of ``siteMsg`` and ``message`` adds ``user_id = caller``; another user's id is "not found"); the calls
  need a valid token and nothing more (every user has a bell).
- ``liftdesk_msg_receive`` / ``liftdesk_msg_receive_user``: per tenant and message type, how it is sent
  (``send_type``: keys of the business dictionary ``message_send_type``, 1 站内信; empty: not sent; no row: the
  default, in-site) and who receives it: the users chosen with ``siteMsgReceiveUser/selectUserSub``, or, when none
  is chosen, the tenant's administrators (roles ``admin`` / ``administrator``). ``restoreDefault`` drops the choice
  and the send types (back to in-site, to the administrators). Notices ignore it: they go to every user.

Where messages come from (real events, never fixtures): a notice published (above), and the alarms the telemetry
pipeline raises: after a batch is committed, ``Pipeline.commit`` hands its new events to :func:`alarm_messages`,
which writes, in one transaction of its own per batch, one message per alarm and receiver of its type (four small
look-ups and one batched INSERT; a failure is logged and never fails the telemetry batch, already durable).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.crud import Ctx
from liftdesk.core.db import Database, utcnow
from liftdesk.core.ids import ids_of, next_id
from liftdesk.core.resource import Hooks
from liftdesk.core.security import ADMINISTRATOR, TENANT_ADMIN
from liftdesk.system import models as m
from liftdesk.system.service import dict_labels

log = logging.getLogger("liftdesk.messages")

#: The business dictionary of message types, and the type of notices.
MESSAGE_TYPE = "message_type"
SEND_TYPE = "message_send_type"
NOTICE_TYPE = 1
#: Drivers' licences and papers expiring (``fleet.reminders``): sent to the type's receivers as the alarms are.
PAPER_EXPIRY_TYPE = 9
SITE = "1"  # send type: in-site message
MESSAGE_TYPES: list[tuple[str, str]] = [
    ("1", "通知公告"),
    ("2", "碰撞报警"),
    ("3", "超速报警"),
    ("4", "超载报警"),
    ("5", "电池报警"),
    ("6", "故障报警"),
    ("7", "围栏报警"),
    ("8", "其他报警"),
    ("9", "证件到期"),  # drivers' licences and papers expiring (fleet/reminders.py)
]
SEND_TYPES: list[tuple[str, str]] = [(SITE, "站内信")]
BIZ_DICTS: list[tuple[str, str, list[tuple[str, str]]]] = [
    (MESSAGE_TYPE, "消息类型", MESSAGE_TYPES),
    (SEND_TYPE, "消息发送方式", SEND_TYPES),
    # the causes a supervisor picks when handling an alarm (reporting/handling.py); each tenant edits its own
    (
        "alarm_cause",
        "报警原因",
        [
            ("1", "操作不当"),
            ("2", "车辆故障"),
            ("3", "货物或场地"),
            ("4", "终端或传感器误报"),
            ("5", "阈值设置不当"),
            ("9", "其他"),
        ],
    ),
]
#: The alarm types the receive settings list (notices go to everyone).
ALARM_TYPES = tuple(int(k) for k, _ in MESSAGE_TYPES if int(k) != NOTICE_TYPE)
#: The most messages one page of the bell reads at a time is the paging's; the most one notice writes at once.
INSERT_CHUNK = 2_000

#: Alarm kinds (``fics_event.kind``) → message type and the words of the message (zh: stored as the tenant reads).
_KIND_TYPES: dict[str, int] = {
    "collision": 2,
    "speeding": 3,
    "fence_speeding": 3,
    "jt808_overspeed": 3,
    "overload": 4,
    "fault": 6,
    "fence_in": 7,
    "fence_out": 7,
    "fence_cross": 7,
}
_KIND_WORDS: dict[str, str] = {
    "collision": "碰撞",
    "speeding": "超速",
    "overload": "超载",
    "fence_in": "进围栏",
    "fence_out": "出围栏",
    "fence_cross": "越界",
    "fence_speeding": "围栏内超速",
    "fault": "故障",
    "offline": "长时间离线",
    "battery_high_voltage": "电池高压",
    "battery_low_voltage": "电池低压",
    "battery_over_current": "电池过流",
    "battery_over_temperature": "电池过温",
    "battery_liquid_level": "电池液位低",
    "jt808_overspeed": "终端超速",
    "terminal_clock": "终端时钟异常",
    "card_refused": "刷卡被拒",
    "dms_fatigue": "疲劳驾驶",
    "dms_phone": "接打电话",
    "dms_smoking": "抽烟",
    "dms_distraction": "分神驾驶",
    "dms_no_face": "未检测到人脸",
    "dms_camera_blocked": "摄像头遮挡",
    "dms_face_mismatch": "人证不符",
}
#: Why a card was refused (``card_refused`` events, telemetry/pipeline/drivers.py), in the message's words.
_REASON_WORDS: dict[str, str] = {
    "unknown_card": "未登记的卡",
    "not_authorized": "未授权本车",
    "blacklisted": "黑名单司机",
    "licence_expired": "驾驶证已过期",
}


def alarm_type(kind: str) -> int:
    """The message type of an alarm kind."""
    if kind in _KIND_TYPES:
        return _KIND_TYPES[kind]
    return 5 if kind.startswith("battery") else 8


def _reason(event: Mapping[str, Any]) -> str:
    """A refused card's reason and serial, for the message (nothing for other alarms)."""
    if event.get("kind") != "card_refused":
        return ""
    try:
        detail = json.loads(str(event.get("detail") or "{}"))
    except ValueError:
        return ""
    reason = _REASON_WORDS.get(str(detail.get("reason")), str(detail.get("reason") or ""))
    return f" (原因: {reason}, 卡号 {detail.get('card') or '-'})"


def alarm_words(kind: str) -> str:
    return _KIND_WORDS.get(kind) or kind


async def type_labels(session: AsyncSession, tenant_id: str) -> dict[str, str]:
    """The tenant's message type names by key (its business dictionary, else the seeded names)."""
    rows = await session.execute(
        select(m.DictBiz.dict_key, m.DictBiz.dict_value).where(
            m.DictBiz.tenant_id == tenant_id,
            m.DictBiz.code == MESSAGE_TYPE,
            m.DictBiz.parent_id != 0,
            m.DictBiz.is_deleted == 0,
        )
    )
    return {**dict(MESSAGE_TYPES), **{k: v for k, v in rows.all()}}


# ---------------------------------------------------------------------------------------------- notices


def clean_html(html: str | None) -> str | None:
    """A notice's body as it is kept: ammonia's (``nh3``) default allow-list of tags and attributes, nothing that
    runs (scripts, event handlers, ``javascript:`` links, styles, frames); links get ``rel="noopener noreferrer"``."""
    if not html:
        return html
    import nh3

    return nh3.clean(html)


class NoticeHooks(Hooks):
    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating and obj.release_time is None:
            obj.release_time = utcnow().replace(microsecond=0)
        if "content" in data:
            obj.content = clean_html(obj.content)  # sanitised on the way in: every reader gets the clean body

    async def after_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating:
            await publish_notice(ctx, obj)

    async def before_remove(self, ctx: Ctx, rows: Sequence[Any]) -> None:
        await ctx.session.execute(
            delete(m.SiteMessage).where(
                *ctx.scope.where(m.SiteMessage),
                m.SiteMessage.msg_type == NOTICE_TYPE,
                m.SiteMessage.business_id.in_([r.id for r in rows]),
            )
        )

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        labels = await dict_labels(ctx.session, "notice")
        for r in rows:
            r["category_name"] = labels.get(str(r.get("category")), "")
        return rows


async def publish_notice(ctx: Ctx, notice: m.Notice) -> int:
    """Every user of the notice's tenant gets a message about it: one batched INSERT (in chunks of
    ``INSERT_CHUNK``) in the request's transaction. Returns how many."""
    users = ctx.scope.select(m.User, data=False).with_only_columns(m.User.id)
    user_ids = list((await ctx.session.execute(users)).scalars().all())
    now = utcnow()
    rows = [
        {
            "id": next_id(),
            "tenant_id": notice.tenant_id,
            "user_id": uid,
            "msg_type": NOTICE_TYPE,
            "title": notice.title,
            "content": notice.content or "",
            "user_num": None,
            "business_id": notice.id,
            "link": None,
            "is_read": 0,
            "read_time": None,
            "create_time": now,
        }
        for uid in user_ids
    ]
    for start in range(0, len(rows), INSERT_CHUNK):
        await ctx.session.execute(insert(m.SiteMessage), rows[start : start + INSERT_CHUNK])
    return len(rows)


# ---------------------------------------------------------------------------------------------- messages


class SiteMessageHooks(Hooks):
    """A user's own messages only, with the names the message centre shows (the spec's Message: handleTime,
    messageTypeName, userNum, messageText, messageState)."""

    def filter(self, ctx: Ctx, stmt: Any) -> Any:
        return stmt.where(m.SiteMessage.user_id == ctx.principal.user_id)

    async def enrich(self, ctx: Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        labels = await type_labels(ctx.session, ctx.scope.tenant_id)
        for r in rows:
            name = labels.get(str(r.get("msg_type")), str(r.get("msg_type")))
            r.update(
                msg_type_name=name,
                message_type_name=name,
                handle_time=r.get("create_time"),
                message_text=r.get("content"),
                message_state=r.get("is_read"),
            )
        return rows


# ---------------------------------------------------------------------------------------------- receivers


async def administrators(session: AsyncSession, tenant_ids: Iterable[str]) -> dict[str, list[int]]:
    """The users of each tenant who hold an administrator role (``admin`` / ``administrator``), by tenant."""
    tenants = sorted(set(tenant_ids))
    if not tenants:
        return {}
    roles = await session.execute(
        select(m.Role.id).where(
            m.Role.tenant_id.in_(tenants), m.Role.role_alias.in_((TENANT_ADMIN, ADMINISTRATOR)), m.Role.is_deleted == 0
        )
    )
    role_ids = set(roles.scalars().all())
    if not role_ids:
        return {}
    users = await session.execute(
        select(m.User.id, m.User.tenant_id, m.User.role_id).where(
            m.User.tenant_id.in_(tenants),
            m.User.is_deleted == 0,
            or_(*(m.User.role_id.contains(str(r)) for r in role_ids)),
        )
    )
    out: dict[str, list[int]] = {}
    for uid, tenant, role_text in users.all():
        if role_ids & set(ids_of(role_text)):
            out.setdefault(tenant, []).append(uid)
    return out


async def receivers(session: AsyncSession, wanted: Iterable[tuple[str, int]]) -> dict[tuple[str, int], list[int]]:
    """Who gets the in-site messages of each (tenant, message type): the chosen users, else the tenant's
    administrators; nobody when in-site sending is off for the type. Four queries whatever the number."""
    keys = set(wanted)
    if not keys:
        return {}
    tenants = {tenant for tenant, _ in keys}
    settings = await session.execute(
        select(m.MessageReceive.tenant_id, m.MessageReceive.msg_type, m.MessageReceive.send_type).where(
            m.MessageReceive.tenant_id.in_(tenants)
        )
    )
    off = {(t_, k) for t_, k, send in settings.all() if SITE not in (send or "").split(",")}
    chosen_rows = await session.execute(
        select(m.MessageReceiveUser.tenant_id, m.MessageReceiveUser.msg_type, m.MessageReceiveUser.user_id)
        .join(m.User, m.User.id == m.MessageReceiveUser.user_id)
        .where(
            m.MessageReceiveUser.tenant_id.in_(tenants),
            m.User.tenant_id == m.MessageReceiveUser.tenant_id,
            m.User.is_deleted == 0,
        )
    )
    chosen: dict[tuple[str, int], list[int]] = {}
    for tenant, kind, uid in chosen_rows.all():
        chosen.setdefault((tenant, kind), []).append(uid)
    admins = await administrators(session, {t_ for t_, k in keys if (t_, k) not in chosen})
    return {key: [] if key in off else chosen.get(key) or admins.get(key[0], []) for key in keys}


async def alarm_messages(db: Database, events: Sequence[Mapping[str, Any]], plates: Mapping[int, str]) -> int:
    """Site messages for alarms just committed by the telemetry pipeline (rows of ``fics_event``: tenant, vehicle,
    kind, begin time, value, limit): one per alarm and receiver of its type, in one transaction of their own.
    ``plates``: vehicle id → plate. Never raises (the alarms are stored already): a failure is logged."""
    if not events:
        return 0
    try:
        async with db.sessionmaker() as session, session.begin():
            return await _alarm_messages(session, events, plates)
    except Exception:
        log.exception("in-site messages for %d alarms not written", len(events))
        return 0


async def _alarm_messages(session: AsyncSession, events: Sequence[Mapping[str, Any]], plates: Mapping[int, str]) -> int:
    typed = [(e, alarm_type(str(e["kind"]))) for e in events]
    to = await receivers(session, {(str(e["tenant_id"]), kind) for e, kind in typed})
    labels = dict(MESSAGE_TYPES)
    now = utcnow()
    rows: list[dict[str, Any]] = []
    for e, kind in typed:
        users = to.get((str(e["tenant_id"]), kind), [])
        if not users:
            continue
        plate = plates.get(int(e["vehicle_id"])) or ""
        content = f"车辆 {plate or e['vehicle_id']} {alarm_words(str(e['kind']))}报警"
        if e.get("value") is not None and e.get("limit_value") is not None:
            content += f" (值 {float(e['value']):g}, 阈值 {float(e['limit_value']):g})"
        content += _reason(e)
        if e.get("driver_name"):
            content += f", 司机 {e['driver_name']}"
        for uid in users:
            rows.append(
                {
                    "id": next_id(),
                    "tenant_id": e["tenant_id"],
                    "user_id": uid,
                    "msg_type": kind,
                    "title": labels.get(str(kind), "报警"),
                    "content": content,
                    "user_num": plate or None,
                    "business_id": e["vehicle_id"],
                    "link": None,
                    "is_read": 0,
                    "read_time": None,
                    "create_time": e.get("begin_time") or now,
                }
            )
    for start in range(0, len(rows), INSERT_CHUNK):
        await session.execute(insert(m.SiteMessage), rows[start : start + INSERT_CHUNK])
    return len(rows)


# ---------------------------------------------------------------------------------------------- seed


async def sync_message_dicts(session: AsyncSession) -> int:
    """Every tenant gets the business dictionaries of message types and send types it lacks (a root it deleted
    counts as present: its choice stays). New tenants copy tenant 000000's (``provision_tenant``). Returns the
    rows written."""
    tenants = (await session.execute(select(m.Tenant.tenant_id).where(m.Tenant.is_deleted == 0))).scalars().all()
    have = set(
        (
            await session.execute(
                select(m.DictBiz.tenant_id, m.DictBiz.code).where(
                    m.DictBiz.code.in_([code for code, _, _ in BIZ_DICTS]), m.DictBiz.parent_id == 0
                )
            )
        ).all()
    )
    rows: list[dict[str, Any]] = []
    for tenant in tenants:
        for i, (code, name, items) in enumerate(BIZ_DICTS):
            if (tenant, code) in have:
                continue
            root = next_id()
            common = {"tenant_id": tenant, "code": code, "remark": None, "is_sealed": 0, "is_deleted": 0}
            rows.append({"id": root, "parent_id": 0, "dict_key": "-1", "dict_value": name, "sort": 90 + i, **common})
            rows += [
                {"id": next_id(), "parent_id": root, "dict_key": k, "dict_value": v, "sort": j + 1, **common}
                for j, (k, v) in enumerate(items)
            ]
    if rows:
        await session.execute(insert(m.DictBiz), rows)
    return len(rows)
