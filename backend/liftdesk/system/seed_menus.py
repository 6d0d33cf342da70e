"""The menus and buttons of the screens that exist, as seeded (``system/seed.py`` writes them into an empty database
and adds those a database lacks at every start: ``sync_menus``)."""

from __future__ import annotations

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
    # the alarm center is read (and its lists exported); alarms are worked: acknowledged, handled, closed
    "alarm_record": [
        ("view", "查看", 2, 1),
        ("export", "导出", 1, 2),
        ("ack", "确认", 3, 3),
        ("handle", "处理", 2, 4),
        ("close", "关闭", 3, 5),
    ],
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

#: The menu of each extra button (``EXTRA_BUTTONS``), by button code.
PARENT_OF = {code: menu for menu, buttons in EXTRA_BUTTONS.items() for code, *_ in buttons}
