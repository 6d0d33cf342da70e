"""Users beyond CRUD: unlocking, one's own profile, platforms, granting roles, import and export.

Imported users: a new account gets a random password that follows the rule and that nobody is told (it is not in
the import's report, which is kept for the progress call, nor in the log); it must be changed at first sign-in. An
administrator hands out passwords with ``reset-password`` (each shown once, to them), as for any forgotten password.
BladeX gives imported users the parameter ``account.initPassword`` (123456), the same for every account and known
to all: until its owner signs in, anybody could take such an account.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import update

from liftdesk.core import crud
from liftdesk.core.batch import selected
from liftdesk.core.envelope import Forbidden, NotFound, ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.ids import id_of
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.security import ADMINISTRATOR_ROLE_ID
from liftdesk.core.transfer import (
    Column,
    declare_exporter,
    declare_importer,
)
from liftdesk.system import auth
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system import schemas as s
from liftdesk.system.api.common import USER
from liftdesk.system.api.passwords import UserIdsQuery, random_password
from liftdesk.system.service import dict_labels, keep_an_administrator

# ---------------------------------------------------------------- users (beyond CRUD)


@res.USER.action(
    "POST",
    f"{USER}/unlock",
    permission="edit",
    kind="batch",
    query=UserIdsQuery,
    answer=bool,
    summary="Clear the sign-in failure count of users",
)
async def unlock_users(ctx: crud.Ctx, query: UserIdsQuery) -> bool:
    users: list[m.User] = await selected(ctx, query.user_ids, "userIds")
    for u in users:
        await auth.clear_failures(ctx.session, u.tenant_id, u.account)
    return True


# ---------------------------------------------------------------- one's own profile

#: An 11-digit mobile number (mainland China: 1, then a carrier digit 3-9).
MOBILE = re.compile(r"^1[3-9]\d{9}$")


async def _me(ctx: crud.Ctx) -> m.User:
    """The caller's own row, through the scope (tenant, not deleted; no data rule: one's own row is always one's)."""
    mine = ctx.scope.select(m.User, data=False).where(m.User.id == ctx.principal.user_id)
    user = (await ctx.session.execute(mine)).scalar_one_or_none()
    if user is None:
        raise NotFound(t("not_found"))
    return user


async def _profile(ctx: crud.Ctx, user: m.User) -> s.ProfileOut:
    row = (await res.USER.hooks.enrich(ctx, crud.serialise(res.USER, [user])))[0]
    return s.ProfileOut.model_validate(row)


def check_mobile(phone: str, field: str = "phone") -> str:
    """The specification's rule: empty, not 11 digits, or not a mobile number (a landline) each have a message."""
    phone = phone.strip()
    if not phone:
        raise ServiceError(t("mobile_required", field=field))
    if phone.isdigit() and len(phone) != 11:
        raise ServiceError(t("mobile_length", field=field))
    if not MOBILE.match(phone):
        raise ServiceError(t("mobile_format", field=field))
    return phone


def check_real_name(name: str, field: str = "realName") -> str:
    name = name.strip()
    if not 2 <= len(name) <= 5:
        raise ServiceError(t("real_name_length", field=field))
    return name


@res.USER.action(
    "GET",
    f"{USER}/info",
    permission=SIGNED_IN,
    kind="detail",
    answer=s.ProfileOut,
    summary="The signed-in user's own profile (name, real name, phone, email, avatar, sex, birthday; their roles, "
    "organisations and posts by name, to read only)",
)
async def own_info(ctx: crud.Ctx) -> s.ProfileOut:
    return await _profile(ctx, await _me(ctx))


@res.USER.action(
    "POST",
    f"{USER}/update-info",
    permission=SIGNED_IN,
    body=s.ProfileIn,
    answer=s.ProfileOut,
    summary="Change one's own profile: nickname, real name (2-5 characters), mobile number (11 digits, required), "
    "email, avatar URL, sex, birthday. Account, roles, organisations and posts are the administrator's",
)
async def update_info(ctx: crud.Ctx, body: s.ProfileIn) -> s.ProfileOut:
    user = await _me(ctx)
    name = body.name.strip()
    if not name:
        raise ServiceError(t("field_required", field="name"))
    user.name = name
    user.real_name = check_real_name(body.real_name)
    user.phone = check_mobile(body.phone)
    email = (body.email or "").strip()
    if email and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", email):
        raise ServiceError(t("field_invalid", field="email"))
    user.email = email or None
    user.avatar = (body.avatar or "").strip() or None
    if user.avatar and not re.match(r"^(https?://|/)", user.avatar):
        raise ServiceError(t("field_invalid", field="avatar"))
    user.sex = body.sex
    user.birthday = body.birthday
    ctx.scope.stamp(user, creating=False)
    await ctx.session.flush()
    return await _profile(ctx, user)


# ---------------------------------------------------------------- platforms


async def _one(ctx: crud.Ctx, text: str, field: str) -> m.User:
    ident = id_of(text)
    if ident is None:
        raise ServiceError(t("field_required" if not text else "field_invalid", field=field))
    user: m.User = await crud.get_scoped(ctx, ident)  # type: ignore[assignment]
    return user


async def _platform(ctx: crud.Ctx, user: m.User) -> s.PlatformOut:
    types = await dict_labels(ctx.session, "user_type")
    return s.PlatformOut(
        id=user.id,
        account=user.account,
        real_name=user.real_name,
        user_type=user.user_type,
        user_type_name=types.get(str(user.user_type), ""),
        user_ext="",
    )


@res.USER.action(
    "GET",
    f"{USER}/platform-detail",
    kind="detail",
    query=s.PlatformQuery,
    answer=s.PlatformOut,
    summary="A user's platform (user type: 1 web, 2 app, 3 other) and its extension information (none is kept "
    "yet: always empty)",
)
async def platform_detail(ctx: crud.Ctx, query: s.PlatformQuery) -> s.PlatformOut:
    return await _platform(ctx, await _one(ctx, query.id, "id"))


@res.USER.action(
    "POST",
    f"{USER}/update-platform",
    permission="edit",
    query=s.PlatformIn,
    answer=s.PlatformOut,
    summary="Set a user's platform (userType 1 web, 2 app, 3 other); extension information (userExt) is refused "
    "until it has a table of its own",
)
async def update_platform(ctx: crud.Ctx, query: s.PlatformIn) -> s.PlatformOut:
    if query.user_type not in (1, 2, 3):
        raise ServiceError(t("field_invalid", field="userType"))
    if query.user_ext.strip():
        raise ServiceError(t("user_ext_unsupported", field="userExt"))
    user = await _one(ctx, query.user_id, "userId")
    user.user_type = query.user_type
    ctx.scope.stamp(user, creating=False)
    await ctx.session.flush()
    return await _platform(ctx, user)


# ---------------------------------------------------------------- granting roles


@res.USER.action(
    "POST",
    f"{USER}/grant",
    permission="edit",
    kind="batch",
    query=s.UserGrantQuery,
    answer=bool,
    summary="Replace the roles of users (userIds, roleIds), all or none: every user and role must be one the caller "
    "sees; only the platform administrator grants the administrator role",
)
async def grant_roles(ctx: crud.Ctx, query: s.UserGrantQuery) -> bool:
    users: list[m.User] = await selected(ctx, query.user_ids, "userIds")
    role_ids = list(dict.fromkeys(crud.parse_ids(query.role_ids, "roleIds")))
    if ADMINISTRATOR_ROLE_ID in role_ids and not ctx.principal.is_administrator:
        raise Forbidden(t("admin_role_only"), 403)
    stmt = res.ROLE.hooks.filter(ctx, ctx.scope.select(m.Role).where(m.Role.id.in_(role_ids)))
    found = {r.id for r in (await ctx.session.execute(stmt)).scalars().all()}
    if found != set(role_ids):
        raise NotFound(t("not_found"))
    text = ",".join(str(i) for i in role_ids)
    for user in users:
        user.role_id = text
        ctx.scope.stamp(user, creating=False)
    await keep_an_administrator(ctx, changed={u.id: u for u in users})
    await ctx.session.flush()
    return True


# ---------------------------------------------------------------- import and export

#: The spreadsheet: roles by name or alias, organisations and posts by name (or post code), sex by label or number.
_USER_COLUMNS = (
    Column("account", "账号", "Account"),
    Column("name", "昵称", "Nickname"),
    Column("real_name", "姓名", "Real name"),
    Column("phone", "手机号码", "Mobile"),
    Column("email", "电子邮箱", "Email"),
    Column("sex", "性别", "Sex", shown="sex_name"),
    Column("role_name", "所属角色", "Roles"),
    Column("dept_name", "所属机构", "Organisations"),
    Column("post_name", "所属岗位", "Posts"),
)
_NAMES = {"roleName": ("role_id", 6), "deptName": ("dept_id", 7), "postName": ("post_id", 8)}
_SPLIT = re.compile(r"[,，;；]")

declare_exporter(
    res.USER,
    "export-user",
    (*_USER_COLUMNS, Column("user_type_name", "用户平台", "Platform"), Column("tenant_name", "所属租户", "Tenant")),
    "users",
    "The users as .xlsx, with the list's filters (as page takes them: account, realName, deptId ...); roles, "
    "organisations and posts by name, never passwords",
)


class _Lookup:
    """Names the spreadsheet may use, as ids of the caller's tenant (through the scope)."""

    def __init__(self) -> None:
        self.by_field: dict[str, dict[str, list[int]]] = {}
        self.sexes: dict[str, int] = {}

    @classmethod
    async def load(cls, ctx: crud.Ctx) -> _Lookup:
        out = cls()
        roles = res.ROLE.hooks.filter(ctx, ctx.scope.select(m.Role))
        depts = ctx.scope.select(m.Dept)
        posts = ctx.scope.select(m.Post)
        for field, stmt, labels in (
            ("roleName", roles, ("role_name", "role_alias")),
            ("deptName", depts, ("dept_name",)),
            ("postName", posts, ("post_name", "post_code")),
        ):
            names: dict[str, list[int]] = {}
            for row in (await ctx.session.execute(stmt)).scalars().all():
                for label in labels:
                    value = str(getattr(row, label) or "").strip().lower()
                    if value and row.id not in names.setdefault(value, []):
                        names[value].append(row.id)
            out.by_field[field] = names
        out.sexes = {v: int(k) for k, v in (await dict_labels(ctx.session, "sex")).items() if k.isdigit()}
        return out

    def ids(self, field: str, text: Any) -> str:
        header = _USER_COLUMNS[_NAMES[field][1]].header
        out: list[int] = []
        for part in _SPLIT.split(str(text)):
            name = part.strip()
            if not name:
                continue
            found = self.by_field[field].get(name.lower(), [])
            if len(found) != 1:  # none, or the same name twice (two organisations of one name): say which
                raise ServiceError(t("import_unknown_name", field=header, value=name))
            out.append(found[0])
        return ",".join(str(i) for i in dict.fromkeys(out))

    def sex(self, value: Any) -> Any:
        if isinstance(value, str) and value in self.sexes:
            return self.sexes[value]
        return value


class _UserImport:
    """The plan of a user import (``core.transfer.ImportPlan``): names to ids, and a new account's random password
    (see the module's text), which must be changed at first sign-in."""

    def __init__(self, lookup: _Lookup) -> None:
        self.lookup = lookup

    @classmethod
    async def of(cls, ctx: crud.Ctx) -> _UserImport:
        return cls(await _Lookup.load(ctx))

    async def prepare(self, ctx: crud.Ctx, values: dict[str, Any]) -> dict[str, Any]:
        """A spreadsheet row as ``submit`` takes it: names to ids, and a random password for a new account."""
        out = {k: v for k, v in values.items() if k not in _NAMES}
        for field, (target, _) in _NAMES.items():
            if field in values:
                out[camel(target)] = self.lookup.ids(field, values[field])
        if "sex" in out:
            out["sex"] = self.lookup.sex(out["sex"])
        if "account" in out:
            out["account"] = str(out["account"])
        if "phone" in out:
            out["phone"] = str(out["phone"])
        account = out.get("account")
        if account:
            known = ctx.scope.select(m.User).with_only_columns(m.User.id).where(m.User.account == account)
            if (await ctx.session.execute(known.limit(1))).first() is None:
                for field in ("roleName", "deptName"):
                    if not out.get(camel(_NAMES[field][0])):
                        raise ServiceError(t("field_required", field=_USER_COLUMNS[_NAMES[field][1]].header))
                out["password"] = random_password()  # told to nobody: see the module's text
        return out

    async def saved(self, ctx: crud.Ctx, row: dict[str, Any], created: bool) -> None:
        """A new account of this import chooses its own password at first sign-in (in the row's transaction)."""
        if not created:
            return
        stmt = update(m.User).where(*ctx.scope.where(m.User, data=False), m.User.id == int(row["id"]))
        await ctx.session.execute(stmt.values(password_must_change=1))


def camel(field: str) -> str:
    head, *rest = field.split("_")
    return head + "".join(p.title() for p in rest)


declare_importer(
    res.USER,
    f"{USER}/import-user",
    f"{USER}/export-template",
    f"{USER}/import-user-progress",
    _USER_COLUMNS,
    key=("account",),
    filename="users",
    summary="Add users from an .xls / .xlsx file (multipart file; isCovered=1 updates users of the same account). "
    "Roles by name or alias, organisations and posts by name. A new account gets a random password nobody is "
    "told and must change it at first sign-in: hand passwords out with reset-password. Answers a report: created, "
    "updated, and the refused rows with their reasons (no passwords); more than 200 rows run in the background "
    "(import-user-progress)",
    plan_of=_UserImport.of,
    template_summary="The user import's template (its header row)",
    progress_summary="Progress and report of a large user import (jobId from import-user's answer)",
)
