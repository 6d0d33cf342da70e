"""The system context's resources: one declaration each; routes, paging, filters and scoping come from core."""

from __future__ import annotations

from liftdesk.core.resource import CRUD_OPS, OPEN, TREE_OPS, Resource
from liftdesk.system import files, logs, shell, sms
from liftdesk.system import messages as msg
from liftdesk.system import models as m
from liftdesk.system import schemas as s
from liftdesk.system import service as svc
from liftdesk.system.schemas import MapSettingIn, MapSettingOut

SYS = "/api/blade-system"
ADMINISTRATOR_ONLY = ("administrator",)
ADMINS = ("administrator", "admin")

PARAM = Resource(
    name="param",
    model=m.Param,
    prefix=f"{SYS}/param",
    schema_in=s.ParamIn,
    schema_out=s.ParamOut,
    code="param",
    label="param_name",
    unique=(("param_key",),),
    write_roles=ADMINISTRATOR_ONLY,
    default_order=("-create_time",),
    hooks=svc.ParamHooks(),
)
DICT = Resource(
    name="dict",
    model=m.Dict,
    prefix=f"{SYS}/dict",
    schema_in=s.DictIn,
    schema_out=s.DictOut,
    code="dict",
    view_menus=OPEN,  # labels of every page (no secrets): every signed-in user reads them
    label="dict_value",
    unique=(("code", "dict_key"),),
    write_roles=ADMINISTRATOR_ONLY,
    ops={"list": "list", "tree": "tree", "detail": "detail", "submit": "submit", "remove": "remove"},
    hooks=svc.DictHooks(m.Dict),
)
DICT_BIZ = Resource(
    name="dict_biz",
    model=m.DictBiz,
    prefix=f"{SYS}/dict-biz",
    schema_in=s.DictIn,
    schema_out=s.DictBizOut,
    code="dictbiz",
    view_menus=OPEN,  # labels of every page (no secrets): every signed-in user reads them
    label="dict_value",
    unique=(("code", "dict_key"),),
    write_roles=ADMINS,
    ops={"list": "list", "tree": "tree", "detail": "detail", "submit": "submit", "remove": "remove"},
    hooks=svc.DictHooks(m.DictBiz),
)
POST = Resource(
    name="post",
    model=m.Post,
    prefix=f"{SYS}/post",
    schema_in=s.PostIn,
    schema_out=s.PostOut,
    code="post",
    view_menus=("post", "user"),  # the user form picks posts
    label="post_name",
    unique=(("post_code",),),
    ops={**CRUD_OPS, "page": "page", "select": "select"},
    hooks=svc.PostHooks(),
)
CLIENT = Resource(
    name="client",
    model=m.Client,
    prefix=f"{SYS}/client",
    schema_in=s.ClientIn,
    schema_out=s.ClientOut,
    code="client",
    label="client_id",
    unique=(("client_id",),),
    read_roles=ADMINISTRATOR_ONLY,
    write_roles=ADMINISTRATOR_ONLY,
)
TENANT = Resource(
    name="tenant",
    model=m.Tenant,
    prefix=f"{SYS}/tenant",
    schema_in=s.TenantIn,
    schema_out=s.TenantOut,
    code="tenant",
    label="tenant_name",
    unique=(("tenant_name",),),
    read_roles=ADMINISTRATOR_ONLY,
    write_roles=ADMINISTRATOR_ONLY,
    ops={**CRUD_OPS, "select": "select"},
    hooks=svc.TenantHooks(),
    default_order=("tenant_id",),
)
ROLE = Resource(
    name="role",
    model=m.Role,
    prefix=f"{SYS}/role",
    schema_in=s.RoleIn,
    schema_out=s.RoleOut,
    code="role",
    view_menus=("role", "user"),  # the user form picks roles
    label="role_name",
    unique=(("role_alias",), ("role_name",)),
    write_roles=ADMINS,
    ops={**TREE_OPS, "select": "select"},
    hooks=svc.RoleHooks(),
)
MENU = Resource(
    name="menu",
    model=m.Menu,
    prefix=f"{SYS}/menu",
    schema_in=s.MenuIn,
    schema_out=s.MenuOut,
    code="menu",
    view_menus=("menu", "role", "topmenu"),  # granting menus to roles and top menus lists them
    label="name",
    unique=(("code",),),
    write_roles=ADMINISTRATOR_ONLY,
    ops={**TREE_OPS, "lazy-list": "lazy_tree"},
    hooks=svc.MenuHooks(),
)
TOP_MENU = Resource(
    name="topmenu",
    model=m.TopMenu,
    prefix=f"{SYS}/topmenu",
    schema_in=s.TopMenuIn,
    schema_out=s.TopMenuOut,
    code="topmenu",
    label="name",
    unique=(("code",),),
    write_roles=ADMINS,
    hooks=svc.TopMenuHooks(),
)
DEPT = Resource(
    name="dept",
    model=m.Dept,
    prefix=f"{SYS}/dept",
    schema_in=s.DeptIn,
    schema_out=s.DeptOut,
    code="dept",
    view_menus=OPEN,  # the organisation picker of every form: the tenant's own organisation names
    label="dept_name",
    write_roles=ADMINS,
    ancestors=True,
    ops={**TREE_OPS, "select": "select"},
    hooks=svc.DeptHooks(),
)
USER = Resource(
    name="user",
    model=m.User,
    prefix="/api/blade-user",
    schema_in=s.UserIn,
    schema_out=s.UserOut,
    code="user",
    label="real_name",
    unique=(("account",),),
    write_roles=ADMINS,
    ops={
        "page": "page",
        "list": "page",
        "detail": "detail",
        "submit": "submit",
        "update": "submit",
        "remove": "remove",
    },
    hooks=svc.UserHooks(),
    default_order=("-create_time",),
)
DATA_SCOPE = Resource(
    name="data_scope",
    model=m.ScopeData,
    prefix=f"{SYS}/data-scope",
    schema_in=s.ScopeDataIn,
    schema_out=s.ScopeDataOut,
    code="data_scope",
    view_menus=("menu", "role"),  # declared on menus, granted to roles
    label="scope_name",
    write_roles=ADMINISTRATOR_ONLY,
    hooks=svc.DataScopeHooks(),
)
API_SCOPE = Resource(
    name="api_scope",
    model=m.ScopeApi,
    prefix=f"{SYS}/api-scope",
    schema_in=s.ScopeApiIn,
    schema_out=s.ScopeApiOut,
    code="api_scope",
    view_menus=("menu", "role"),  # declared on menus, granted to roles
    label="scope_name",
    write_roles=ADMINISTRATOR_ONLY,
)
DATASOURCE = Resource(
    name="datasource",
    model=m.Datasource,
    prefix="/api/blade-develop/datasource",
    schema_in=s.DatasourceIn,
    schema_out=s.DatasourceOut,
    code="datasource",
    label="name",
    unique=(("name",),),
    read_roles=ADMINISTRATOR_ONLY,
    write_roles=ADMINISTRATOR_ONLY,
)
# The tenant's map (basemap and site plan): one row per tenant, served by the actions of system/api/map_setting.py
# only (no generated operations); read by every signed-in user of the tenant, written with the buttons of menu
# map_setting.
MAP_SETTING = Resource(
    name="map_setting",
    model=m.MapSetting,
    prefix="/api/liftdesk/map",
    schema_in=MapSettingIn,
    schema_out=MapSettingOut,
    code="map_setting",
    label="tile_url",
    ops={},
    tag="map",
)

# The logs (system/logs.py): read-only pages of the menus under "monitor"; the API and error logs are written by
# ``core.audit``, the usual log by the web app's error upload. Each tenant reads its own (the platform
# administrator another's with ``tenantId``); the error log, with its traces, is the platform administrator's only
# and its detail (with the trace) is an action of system/api/logs.py.
LOG = "/api/blade-log"
LOG_USUAL = Resource(
    name="log_usual",
    model=m.LogUsual,
    prefix=f"{LOG}/usual",
    schema_in=logs.LogUsualOut,
    schema_out=logs.LogUsualOut,
    code="log_usual",
    label="log_id",
    ops={"list": "page", "detail": "detail"},
    default_order=("-create_time",),
    tag="log",
)
LOG_API = Resource(
    name="log_api",
    model=m.LogApi,
    prefix=f"{LOG}/api",
    schema_in=logs.LogApiOut,
    schema_out=logs.LogApiOut,
    code="log_api",
    label="title",
    ops={"list": "page", "detail": "detail"},
    default_order=("-create_time",),
    tag="log",
)
LOG_ERROR = Resource(
    name="log_error",
    model=m.LogError,
    prefix=f"{LOG}/error",
    schema_in=logs.LogErrorOut,
    schema_out=logs.LogErrorOut,
    code="log_error",
    label="exception_name",
    read_roles=ADMINISTRATOR_ONLY,
    write_roles=ADMINISTRATOR_ONLY,
    ops={"list": "page"},
    default_order=("-create_time",),
    tag="log",
)
# Regions (blade_region): the administrative divisions of China, one table for every tenant, seeded from the
# national list (system/seed.py). Keyed by their GB/T 2260 code: ``id`` is the code's number, so ``detail?code=``,
# ``lazy-tree?parentCode=`` (``00``: the provinces) and ``remove?id=`` take the code itself. Read with the menu
# ``region`` (tenant administrators read everything); changed by the platform administrator only.
REGION = Resource(
    name="region",
    model=m.Region,
    prefix=f"{SYS}/region",
    schema_in=s.RegionIn,
    schema_out=s.RegionOut,
    code="region",
    label="name",
    unique=(("code",),),
    write_roles=ADMINISTRATOR_ONLY,
    ops={"list": "page", "lazy-tree": "lazy_tree", "detail": "detail", "submit": "submit", "remove": "remove"},
    id_param="code",
    parent_param="parentCode",
    hooks=svc.RegionHooks(),
)
# Files (system/files.py): the tenant's object storage configurations (one enabled at a time, ``oss/enable``; secrets
# read back masked) and its attachments, made by ``POST /api/blade-fics/file/upload`` and read with a token of the
# tenant at their link (system/api/files.py). Changed by administrators; attachments also by whom their menu's
# buttons are granted.
RESOURCE = "/api/blade-resource"
OSS = Resource(
    name="oss",
    model=m.Oss,
    prefix=f"{RESOURCE}/oss",
    schema_in=s.OssIn,
    schema_out=s.OssOut,
    code="oss",
    label="oss_code",
    unique=(("oss_code",),),
    write_roles=ADMINS,
    default_order=("-create_time",),
    hooks=files.OssHooks(),
    tag="files",
)
# SMS (system/sms.py): the tenant's SMS configurations, one enabled at a time (``sms/enable``; secrets read back
# masked); messages go out through ``sms/endpoint/send-message`` (system/api/sms.py). Changed by administrators.
SMS = Resource(
    name="sms",
    model=m.Sms,
    prefix=f"{RESOURCE}/sms",
    schema_in=sms.SmsIn,
    schema_out=sms.SmsOut,
    code="sms",
    label="sms_code",
    unique=(("sms_code",),),
    write_roles=ADMINS,
    default_order=("-create_time",),
    hooks=sms.SmsHooks(),
    tag="sms",
)
ATTACH = Resource(
    name="attach",
    model=m.Attach,
    prefix=f"{RESOURCE}/attach",
    schema_in=s.AttachIn,
    schema_out=s.AttachOut,
    code="attach",
    label="original_name",
    default_order=("-create_time",),
    hooks=files.AttachHooks(),
    tag="files",
)

# Notices and in-site messages (system/messages.py). Notices: the desk's CRUD (menu 通知公告 and its buttons); a new
# one is published to every user of the tenant. Site messages: every signed-in user reads, marks and deletes their
# own (the hooks add ``user_id = caller`` to every query), so their calls need a token and nothing more. Receive
# settings (menu 消息接收设置): per message type, how it is sent and who receives it; actions only.
FICS = "/api/blade-fics/fics"
NOTICE = Resource(
    name="notice",
    model=m.Notice,
    prefix="/api/blade-desk/notice",
    schema_in=s.NoticeIn,
    schema_out=s.NoticeOut,
    code="notice",
    label="title",
    default_order=("-release_time", "-create_time"),
    hooks=msg.NoticeHooks(),
)
SITE_MSG = Resource(
    name="site_msg",
    model=m.SiteMessage,
    prefix=f"{FICS}/siteMsg",
    schema_in=s.SiteMessageOut,
    schema_out=s.SiteMessageOut,
    code="message",
    view_menus=OPEN,  # everyone's own messages (the hooks' filter): the bell of every user
    label="title",
    ops={"page": "page"},
    default_order=("-create_time",),
    hooks=msg.SiteMessageHooks(),
    tag="message",
)
MSG_RECEIVE = Resource(
    name="msg_receive",
    model=m.MessageReceive,
    prefix=f"{FICS}/siteMsgReceive",
    schema_in=s.ReceiveSendTypeIn,
    schema_out=s.ReceiveOut,
    code="msg_receive",
    label="msg_type",
    ops={},
    tag="message",
)
MSG_RECEIVE_USER = Resource(
    name="msg_receive_user",
    model=m.MessageReceiveUser,
    prefix=f"{FICS}/siteMsgReceiveUser",
    schema_in=s.ReceiveUserOut,
    schema_out=s.ReceiveUserOut,
    code="msg_receive",
    label="user_id",
    ops={},
    tag="message",
)

# The shell's own helpers (system/shell.py): the columns each user hides per table (every signed-in user, their own
# rows only) and the pages they visit (written by every signed-in user's web app, read by administrators).
SHELL = "/api/blade-fics"
SHOW_HIDE = Resource(
    name="show_hide",
    model=m.ShowHide,
    prefix=f"{SHELL}/showHide",
    schema_in=shell.ShowHideIn,
    schema_out=shell.ShowHideOut,
    code="show_hide",
    view_menus=OPEN,  # everyone's own column choices
    label="table_key",
    ops={},
    hooks=shell.ShowHideHooks(),
    tag="common",
)
PAGE_LOG = Resource(
    name="page_log",
    model=m.PageLog,
    prefix=f"{SHELL}/pageLog",
    schema_in=shell.PageLogOut,
    schema_out=shell.PageLogOut,
    code="page_log",
    label="page_path",
    read_roles=ADMINS,
    write_roles=ADMINS,
    ops={},
    default_order=("-create_time",),
    hooks=shell.PageLogHooks(),
    tag="common",
)

RESOURCES = (
    PARAM,
    DICT,
    DICT_BIZ,
    POST,
    CLIENT,
    TENANT,
    ROLE,
    MENU,
    TOP_MENU,
    DEPT,
    USER,
    DATA_SCOPE,
    API_SCOPE,
    DATASOURCE,
    MAP_SETTING,
    LOG_USUAL,
    LOG_API,
    LOG_ERROR,
    REGION,
    OSS,
    SMS,
    ATTACH,
    NOTICE,
    SITE_MSG,
    MSG_RECEIVE,
    MSG_RECEIVE_USER,
    SHOW_HIDE,
    PAGE_LOG,
)
