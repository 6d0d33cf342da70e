"""Server-side messages in the user's language (zh default, en).

The language comes from the ``Accept-Language`` header and lives in a context variable for the request.
"""

from __future__ import annotations

from contextvars import ContextVar

_lang: ContextVar[str] = ContextVar("lang", default="zh")

MESSAGES: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "ok": ("操作成功", "Operation succeeded"),
    "fail": ("操作失败", "Operation failed"),
    "no_data": ("暂无承载数据", "No data"),
    "unauthorized": ("请求未授权", "Request not authorised"),
    "token_missing": ("缺失令牌,鉴权失败", "Missing token, authentication failed"),
    "token_invalid": ("令牌已失效", "The token is no longer valid"),
    "forbidden": ("请求被拒绝", "Request refused: no permission"),
    "not_found": ("数据不存在", "The record does not exist"),
    "server_error": ("服务器异常", "Server error"),
    "server_error_ref": ("服务器内部错误 (ref {ref})", "Internal server error (ref {ref})"),
    "validation": ("{field}: {reason}", "{field}: {reason}"),
    "field_required": ("{field} 不能为空", "{field} is required"),
    "field_invalid": ("{field} 格式不正确", "{field} is not valid"),
    "field_too_long": ("{field} 长度不能超过 {limit}", "{field} must be at most {limit} characters"),
    "field_too_short": ("{field} 长度不能少于 {limit}", "{field} must be at least {limit} characters"),
    "field_range": ("{field} 超出允许范围", "{field} is out of range"),
    "duplicate": ("{field} 已存在: {value}", "{field} already exists: {value}"),
    # data rules (core.scope): a rule that could never admit a row is refused
    "rule_no_model": (
        "resourceCode {value} 不是有数据表的资源, 无法设置数据权限 (请在其读取的资源上设置, 如 vehicle)",
        "resourceCode {value} is no resource with a table of its own: set the data rule on the resource it reads "
        "(such as vehicle)",
    ),
    "rule_no_column": (
        "scopeColumn {value} 不是资源 {code} 的字段",
        "scopeColumn {value} is not a column of the resource {code}",
    ),
    # code generation (system/codegen)
    "codegen_reserved": ("{name} 是保留名称, 请换一个", "{name} is a reserved name, choose another"),
    "codegen_column_twice": ("字段列名重复: {name}", "The column {name} is given twice"),
    "codegen_needs_string": (
        "至少需要一个字符串(string)字段作为名称",
        "At least one string field is needed (the name)",
    ),
    "codegen_prefix": ("tablePrefix {prefix} 必须是表名的开头", "tablePrefix {prefix} must begin the table name"),
    "codegen_table_exists": ("tableName 数据表已存在: {name}", "tableName: the table {name} already exists"),
    "codegen_package_taken": (
        "packageName 已被使用: {name}",
        "packageName: {name} is already taken by a resource",
    ),
    "codegen_same_twice": (
        "所选记录的表名或包名重复, 无法一起生成",
        "The chosen records share a table or package name and cannot be generated together",
    ),
    "codegen_copy": ("-副本", " (copy)"),
    "polygon_vertices": ("{field} 需要 {low} 到 {high} 个顶点", "{field} needs {low} to {high} vertices"),
    "polygon_crossing": ("{field} 的边不能相交", "{field}: the polygon's edges must not cross"),
    "bad_sort": ("不支持的排序字段: {field}", "Unsupported sort column: {field}"),
    "ids_required": ("请选择至少一条数据", "Please select at least one record"),
    "has_children": ("请先删除子节点!", "Delete the child nodes first!"),
    "dept_has_users": ("该机构下还有用户, 不能删除", "The organisation still has users and cannot be deleted"),
    "bad_parent": ("父节点不存在", "The parent node does not exist"),
    "parent_self": ("父节点不能是自己或自己的下级", "A node cannot be its own parent or descendant"),
    "tenant_not_found": ("租户ID未找到", "Tenant ID not found"),
    "tenant_expired": ("租户授权已过期,请联系管理员", "The tenant's licence has expired, contact the administrator"),
    "bad_credentials": ("用户名或密码错误", "Wrong account or password"),
    "no_role": ("未获得用户的角色信息", "The user has no role"),
    "captcha_wrong": ("验证码不正确", "The verification code is wrong"),
    "device_bound_here": (
        "deviceNumber {value} 已绑定车辆 {car}",
        "deviceNumber {value} is already bound to vehicle {car}",
    ),
    "device_unavailable": ("deviceNumber {value} 不可用", "deviceNumber {value} is not available"),
    "import_type": ("只能导入 .xls 或 .xlsx 文件", "Only .xls or .xlsx files can be imported"),
    "import_unreadable": ("文件无法读取,请使用导入模板", "The file cannot be read: use the import template"),
    "import_empty": ("文件中没有数据", "The file holds no rows"),
    "import_header": ("表头不符合模板,应包含: {columns}", "The header row does not match the template: {columns}"),
    "import_rows": (
        "{field}: 导入文件最多 {limit} 行 (含表头)",
        "{field}: an import file holds at most {limit} rows (header included)",
    ),
    "import_columns": ("{field}: 导入文件最多 {limit} 列", "{field}: an import file holds at most {limit} columns"),
    "import_cells": (
        "{field}: 导入文件最多 {limit} 个单元格",
        "{field}: an import file holds at most {limit} cells",
    ),
    "import_unpacked": (
        "{field}: 导入文件解压后最多 {limit} MB",
        "{field}: an import file unpacks to at most {limit} MB",
    ),
    "too_many": ("{field} 一次最多 {limit} 条", "{field}: at most {limit} in one request"),
    "body_too_large": ("请求内容过大(最多 {limit} KB)", "The request is too large (at most {limit} KB)"),
    "captcha_required": (
        "登录失败次数较多,请输入验证码",
        "Several failed sign-ins: enter the verification code",
    ),
    "password_change_required": (
        "请先修改初始密码",
        "Choose a new password first",
    ),
    "password_rule": (
        "{field} 须为8-15位,且包含数字、大写字母、小写字母和特殊字符",
        "{field} must be 8-15 characters with a digit, an upper and a lower case letter and a special character",
    ),
    "password_unchanged": (
        "新密码不能与原密码或账号相同",
        "The new password must differ from the old one and the account",
    ),
    "password_common": (
        "{field}: 密码过于常见 (常用密码、单词或人名), 请换一个",
        "{field}: the password is too common (a frequent password, a word or a name); choose another",
    ),
    "password_is_account": ("{field}: 密码不能与账号相同", "{field}: the password must differ from the account"),
    "password_changed": ("密码已修改,请重新登录", "Password changed: sign in again"),
    "too_many_failures": ("登录错误次数过多,请稍后再试", "Too many failed sign-ins, try again later"),
    "bad_client": ("客户端认证失败", "Client authentication failed"),
    "grant_unsupported": ("不支持的授权类型: {grant}", "Unsupported grant type: {grant}"),
    "social_not_configured": (
        "第三方登录尚未配置",
        "Third-party sign-in is not configured yet",
    ),
    "refresh_invalid": ("刷新令牌无效或已过期", "The refresh token is invalid or expired"),
    "user_disabled": (
        "账号未启用或已被禁用, 请联系管理员",
        "The account is not enabled yet or disabled; ask an administrator",
    ),
    "no_terminal": ("车辆未绑定终端: {value}", "The vehicle has no terminal: {value}"),
    "terminal_unbound": (
        "{field}: 终端未绑定车辆, 其数据未保存: {value}",
        "{field}: the terminal is bound to no vehicle, its data was not stored: {value}",
    ),
    "command_invalid": ("指令参数不正确: {reason}", "Invalid command: {reason}"),
    "command_not_pending": ("只能取消待发送的指令: {value}", "Only pending commands can be cancelled: {value}"),
    "alarm_not_found": ("报警不存在或无权查看: {value}", "No such alarm, or not yours to see: {value}"),
    "alarm_closed": ("报警已关闭: {value}", "The alarm is already closed: {value}"),
    "alarm_still_active": (
        "报警仍在持续, 结束后才能关闭 (可先确认和处理): {value}",
        "The alarm is still active; it can be closed once it has ended (acknowledge and handle it meanwhile): {value}",
    ),
    "alarm_cause_unknown": ("{field}: 不是报警原因字典中的值", "{field}: not a value of the alarm cause dictionary"),
    "alarm_assignee_unknown": ("{field}: 没有这个用户", "{field}: no such user"),
    "param_unknown": (
        "{field}: 终端当前值未知, 已下发参数查询, 请在终端应答后重试: {value}",
        "{field}: the terminal's current value is unknown; a parameter query was sent, retry once it has answered: "
        "{value}",
    ),
    "period_too_long": ("{field}: 时间范围不能超过 {days} 天", "{field}: the period must not exceed {days} days"),
    "period_order": ("{field} 不能晚于结束日期", "{field} must not be after the end date"),
    "report_total": ("合计", "Total"),
    "one_of": ("{field}: 必须且只能填写其中一项", "{field}: give exactly one of them"),
    "register_closed": ("注册功能未开启", "Self-registration is switched off"),
    "register_pending": (
        "注册申请已提交,请耐心等待管理员通过!",
        "Registration submitted; wait for an administrator to approve it",
    ),
    "password_mismatch": ("两次输入的密码不一致", "The two passwords do not match"),
    "password_mismatch_field": ("{field}: 两次输入的密码不一致", "{field}: the two passwords do not match"),
    "tenant_not_found_field": ("{field}: 租户ID未找到", "{field}: tenant ID not found"),
    "register_too_often": ("注册过于频繁,请稍后再试", "Too many registrations from this address, try again later"),
    "user_not_pending": ("这些账号不是待审核的注册: {value}", "These accounts are not pending registrations: {value}"),
    # organisation logos (system/api/logos.py)
    "logo_type": ("{field}: 只能上传 jpg、png、jpeg 格式的图片", "{field}: only jpg, png or jpeg pictures"),
    "logo_content": (
        "{field}: 文件内容不是 {kind} 图片, 与扩展名不符",
        "{field}: the file's content is not a {kind} picture, as its extension says",
    ),
    "logo_link": ("{field}: 须为本租户上传的 jpg 或 png 图片", "{field}: must be a jpg or png picture uploaded here"),
    "old_password_wrong": ("原密码不正确", "The old password is wrong"),
    "admin_role_only": ("只有超级管理员可以执行此操作", "Only the super administrator may do this"),
    "tenant_quota": ("租户账号数量已达上限", "The tenant has reached its account quota"),
    "last_admin": (
        "租户至少要保留一位启用的管理员, 此操作会移除最后一位",
        "A tenant keeps at least one enabled administrator: this would remove the last one",
    ),
    "cannot_delete_self": ("不能删除当前登录用户", "You cannot delete the signed-in user"),
    "cannot_delete_builtin": ("内置数据不能删除: {value}", "Built-in data cannot be deleted: {value}"),
    # the tenant's map (system/api/map_setting.py)
    "map_tile_template": (
        "{field} 须为 http(s) 地址, 包含 {{z}}、{{x}}、{{y}}",
        "{field} must be an http(s) URL containing {{z}}, {{x}} and {{y}}",
    ),
    "map_corners_order": (
        "{field}: 西南角须在东北角的西南方",
        "{field}: the south-west corner must lie south-west of the north-east corner",
    ),
    "map_corners_all": ("{field}: 须同时填写四个坐标", "{field}: give all four coordinates or none"),
    "map_plan_type": ("{field} 只能是 JPG、PNG 或 WebP 图片", "{field} must be a JPG, PNG or WebP image"),
    "map_plan_too_large": ("{field} 不能超过 {limit} MB", "{field} must be at most {limit} MB"),
    "map_plan_missing": ("尚未上传场地平面图", "No site plan has been uploaded"),
    # organisations (system/api/depts.py)
    "dept_sort_parents": (
        "只能排序同一上级下的机构, 这些不是: {value}",
        "Only organisations of one parent can be sorted together; these are not: {value}",
    ),
    "dept_move_loop": (
        "{field}: 不能移动到自己或自己的下级之下",
        "{field}: an organisation cannot move under itself or one of its descendants",
    ),
    # users (system/api/users.py)
    "mobile_required": ("{field}: 手机号不能为空", "{field}: the mobile number cannot be empty"),
    "mobile_length": ("{field}: 手机号长度不是11位", "{field}: the mobile number is not 11 digits long"),
    "mobile_format": ("{field}: 手机号格式不正确", "{field}: the mobile number's format is not correct"),
    "real_name_length": ("{field}: 姓名长度在 2 到 5 个字符", "{field}: the real name must be 2 to 5 characters"),
    "user_ext_unsupported": (
        "{field}: 平台扩展信息暂不保存",
        "{field}: platform extension information is not kept yet",
    ),
    "import_unknown_name": ("{field}: 未找到 {value}", "{field}: {value} not found"),
    # regions (system/service.py RegionHooks)
    "region_code_level": (
        "{field}: 区划编号 {value} 不符合级别 {level} (省 xx0000, 市 xxyy00, 区县 6 位, 乡镇 9 位, 村 12 位)",
        "{field}: code {value} does not fit level {level} (province xx0000, city xxyy00, district 6 digits, "
        "town 9, village 12)",
    ),
    "region_code_parent": (
        "{field}: 区划编号 {value} 不属于上级区划 {parent}",
        "{field}: code {value} does not belong under region {parent}",
    ),
    "region_fixed": ("{field}: 区划编号及其上级不能修改", "{field}: a region's code and parent cannot change"),
    # files: object storage, attachments, uploads (system/files.py, system/api/files.py)
    "file_empty": ("{field} 是空文件", "{field} is an empty file"),
    "file_too_large": ("{field} 不能超过 {limit} MB", "{field} must be at most {limit} MB"),
    "file_type": (
        "{field}: 不支持此类文件 (按内容识别), 允许: {types}",
        "{field}: this kind of file is not accepted (recognised by its content); accepted: {types}",
    ),
    "file_type_name": (
        "{field}: 不支持此类文件 (按扩展名识别), 允许: {types}",
        "{field}: this kind of file is not accepted (recognised by its extension); accepted: {types}",
    ),
    "upload_rate": (
        "{field}: 每个用户每小时最多上传 {limit} 个文件, 请稍后再试",
        "{field}: at most {limit} uploads an hour per user; try again later",
    ),
    "storage_quota": (
        "{field}: 租户存储空间上限 {limit} MB, 已用 {used} MB, 放不下此文件",
        "{field}: the tenant's storage quota is {limit} MB and {used} MB are used; the file does not fit",
    ),
    "direct_upload_local": (
        "直传需要对象存储, 本租户的文件存放在本地磁盘, 请通过 file/upload 上传",
        "Direct upload needs object storage; this tenant's files are kept on the local disk: upload with file/upload",
    ),
    "file_unchecked_content": (
        "直传的文件内容不是 {kind} 文件或超出上传限制, 不予读取",
        "The directly uploaded file's content is not a {kind} file or exceeds the upload limit; it is not served",
    ),
    "file_missing": ("文件不存在或已删除", "The file does not exist or has been removed"),
    "file_store_failed": ("文件存储失败: {reason}", "The file could not be stored: {reason}"),
    "endpoint_scheme": (
        "{field}: 地址必须是 http:// 或 https:// 开头, 且不能包含用户名或密码",
        "{field}: the address must start with http:// or https:// and carry no user name or password",
    ),
    "endpoint_internal": (
        "{field}: 地址 {host} 指向内部网络 ({address}), 不允许访问",
        "{field}: the address {host} leads to an internal network ({address}) and may not be called",
    ),
    "endpoint_unresolved": ("{field}: 无法解析地址 {host}", "{field}: the address {host} cannot be resolved"),
    "oss_unreachable": (
        "{field}: 无法访问对象存储: {reason}",
        "{field}: the object storage cannot be reached: {reason}",
    ),
    "oss_enable_race": (
        "另一个配置同时被启用, 请重试",
        "Another configuration was enabled at the same time; try again",
    ),
    # SMS configurations and messages (system/sms.py, system/api/sms.py)
    "sms_category": (
        "{field}: 暂不支持此短信服务商 ({value}), 可用: 阿里云, 腾讯云",
        "{field}: this SMS provider ({value}) is not supported; available: Aliyun, Tencent Cloud",
    ),
    "sms_not_found": ("{field}: 短信配置 {value} 不存在", "{field}: there is no SMS configuration {value}"),
    "sms_none_enabled": (
        "没有启用的短信配置, 请先在短信配置中启用一个",
        "No SMS configuration is enabled; enable one in the SMS configurations first",
    ),
    "sms_failed": ("{field}: 短信发送失败: {reason}", "{field}: the message was not sent: {reason}"),
    # phone sign-in (system/phone.py)
    "sms_validate_sent": (
        "若该手机号已绑定账号, 验证码已发送, 5分钟内有效",
        "If the number belongs to an account, a code was sent; it is valid for 5 minutes",
    ),
    "sms_too_frequent": (
        "{field}: 验证码发送过于频繁, 请 {seconds} 秒后再试",
        "{field}: one code a minute per number; try again in {seconds} s",
    ),
    "sms_hour_limit": (
        "{field}: 每个手机号一小时内最多获取 {limit} 次验证码, 请稍后再试",
        "{field}: at most {limit} codes an hour per number; try again later",
    ),
    "sms_code_format": ("{field}: 验证码为6位数字", "{field}: the code is 6 digits"),
    "sms_code_expired": (
        "{field}: 验证码已失效, 请重新获取",
        "{field}: the code has expired or was already used; ask for a new one",
    ),
    "sms_code_wrong": (
        "{field}: 验证码不正确, 还可尝试 {left} 次",
        "{field}: the code is wrong ({left} tries left)",
    ),
    "sms_phone_unknown": ("{field}: 该手机号未绑定账号", "{field}: no account has this mobile number"),
    "sms_phone_ambiguous": (
        "{field}: 该手机号绑定了多个账号, 请使用账号密码登录",
        "{field}: several accounts have this mobile number; sign in with an account and password",
    ),
    "sms_params": (
        '{field} 须为 JSON 对象, 值为文字或数字, 如 {{"code": "1234"}}',
        '{field} must be a JSON object of texts or numbers, e.g. {{"code": "1234"}}',
    ),
    "sms_too_many": ("{field}: 一次最多发送 {limit} 个号码", "{field}: at most {limit} numbers at once"),
    "sms_enable_race": (
        "另一个短信配置同时被启用, 请重试",
        "Another SMS configuration was enabled at the same time; try again",
    ),
    "attach_by_upload": (
        "{field}: 附件只能通过上传文件创建",
        "{field}: attachments are created by uploading a file",
    ),
    # in-site messages and their receive settings (system/messages.py, system/api/messages.py)
    "message_read_selected": (
        "所选消息中包含已读消息,请重新选择: {value}",
        "The selection includes messages already read; select again: {value}",
    ),
    "message_type_unknown": ("{field}: 消息类型 {value} 不存在", "{field}: message type {value} does not exist"),
    "message_type_notice": (
        "{field}: 通知公告发送给所有用户,无需设置",
        "{field}: notices go to every user; they have no receive settings",
    ),
    "message_user_unknown": ("{field}: 用户不存在: {value}", "{field}: no such user: {value}"),
    # drivers' papers and expiry reminders (fleet/papers.py, fleet/api/papers.py, fleet/api/reminders.py)
    "paper_refused": (
        "证件 {value} 当前状态为「{state}」, 不能{action}",
        'Paper {value} is "{state}": it cannot be {action}',
    ),
    "paper_event_edit": ("修改", "edited"),
    "paper_event_submit": ("提交审核", "submitted for review"),
    "paper_event_pass": ("审核通过", "passed"),
    "paper_event_fail": ("审核驳回", "failed"),
    "paper_event_lend": ("借出", "lent"),
    "paper_event_return": ("归还", "returned"),
    "paper_event_archive": ("归档", "archived"),
    "paper_event_remove": ("删除", "removed"),
    "paper_audit_0": ("未提交", "not submitted"),
    "paper_audit_1": ("已提交", "submitted"),
    "paper_audit_2": ("初审通过", "first review passed"),
    "paper_audit_3": ("初审未通过", "first review failed"),
    "paper_audit_4": ("复审通过", "second review passed"),
    "paper_audit_5": ("复审未通过", "second review failed"),
    "paper_loan_0": ("未借出", "not lent"),
    "paper_loan_1": ("已借出", "lent"),
    "paper_archive_0": ("未归档", "not archived"),
    "paper_archive_1": ("已归档", "archived"),
    "paper_axis_audit_status": ("审核状态", "review state"),
    "paper_axis_loan_status": ("借用状态", "loan state"),
    "paper_axis_archive_status": ("归档状态", "archive state"),
    "paper_mixed": (
        "所选证件的{state}不一致, 请重新选择: {value}",
        "The selected papers differ in their {state}; select again: {value}",
    ),
    "paper_picture_type": (
        "{field}: 证件图片只能是 jpg 或 png: {value}",
        "{field}: pictures must be jpg or png: {value}",
    ),
    "paper_holder_unknown": ("{field}: 司机不存在", "{field}: no such driver"),
    "paper_picture_unknown": ("{field}: 图片附件不存在: {value}", "{field}: no such picture attachment: {value}"),
    "paper_return_past": ("{field}: 归还日期不能早于今天", "{field}: the return date cannot be before today"),
    "reminder_not_open": ("该提醒{state}, 不能忽略", "The reminder is {state}: it cannot be ignored"),
    "reminder_state_0": ("待处理", "open"),
    "reminder_state_1": ("已忽略", "ignored"),
    "reminder_state_2": ("已处理", "done"),
    # drivers, their cards and authorizations (fleet/drivers.py, fleet/api/drivers.py, driver_auth.py)
    "card_serial_taken": (
        "{field}: 卡序列号 {value} 已被使用",
        "{field}: the card serial number {value} is already in use",
    ),
    "card_main_exists": ("{field}: 司机 {value} 已有主卡", "{field}: driver {value} already has a main card"),
    "card_bound": (
        "{field}: 卡 {value} 已绑定司机, 请先解绑",
        "{field}: card {value} is bound to a driver; unbind it first",
    ),
    "driver_car_types": (
        "所选车辆的车辆类型不一致, 请选择同一类型的车辆",
        "The selected vehicles are of different types: select vehicles of one type",
    ),
    "driver_car_limit": (
        "{field}: 一个司机最多授权 {limit} 辆车 (已授权 {have} 辆)",
        "{field}: a driver may be authorized for at most {limit} vehicles ({have} already)",
    ),
    "apply_not_pending": (
        "所选数据中包含非审核中的申请, 请重新选择: {value}",
        "The selection includes applications that are not under review; select again: {value}",
    ),
    # the code's enumerations (common/getEnumToDictList, system/shell.py)
    "enum.message_type.1": ("通知公告", "Notice"),
    "enum.message_type.2": ("碰撞报警", "Collision alarm"),
    "enum.message_type.3": ("超速报警", "Speeding alarm"),
    "enum.message_type.4": ("超载报警", "Overload alarm"),
    "enum.message_type.5": ("电池报警", "Battery alarm"),
    "enum.message_type.6": ("故障报警", "Fault alarm"),
    "enum.message_type.7": ("围栏报警", "Fence alarm"),
    "enum.message_type.8": ("其他报警", "Other alarm"),
    "enum.message_type.9": ("证件到期", "Papers expiring"),
    "enum.message_send_type.1": ("站内信", "In-site message"),
    "enum.page_behavior.visit": ("访问页面", "Page visit"),
}


def set_language(header: str | None) -> None:
    _lang.set(parse_language(header))


def parse_language(header: str | None) -> str:
    if not header:
        return "zh"
    first = header.split(",")[0].strip().lower()
    return "en" if first.startswith("en") else "zh"


def current_language() -> str:
    return _lang.get()


def t(key: str, **kwargs: object) -> str:
    zh, en = MESSAGES.get(key, (key, key))
    text = en if _lang.get() == "en" else zh
    return text.format(**kwargs) if kwargs else text
