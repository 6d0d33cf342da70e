"""What clients submit (``XIn``, written by hand with its rules) and what they get back (``XOut``, derived)."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, field_validator

from liftdesk.core.ids import ID_PATTERN
from liftdesk.core.schemas import (
    Id,
    IdList,
    IdListRequired,
    Schema,
    Time,
    dictionary,
    documented,
    ids_documented,
    out_schema,
    trimmed_pattern,
)
from liftdesk.system import models as m

#: A mobile number as the specification takes it (11 digits, 1[3-9]...), as the calls check it.
MOBILE_PATTERN = r"^\s*1[3-9][0-9]{9}\s*$"

Text = Annotated[str, Field(min_length=1, max_length=255)]
Short = Annotated[str, Field(min_length=1, max_length=64)]
Opt = Annotated[str | None, Field(default=None, max_length=255)]
Sort = Annotated[int, Field(ge=-1_000_000, le=1_000_000)]


class ParamIn(Schema):
    id: Id | None = None
    param_name: Text
    param_key: Text
    param_value: Annotated[str, Field(min_length=1, max_length=4000)]
    remark: Opt = None


class DictIn(Schema):
    id: Id | None = None
    parent_id: Id | None = 0
    code: Text
    dict_key: Text
    dict_value: Text
    sort: Sort
    is_sealed: Annotated[int, Field(ge=0, le=1)] = 0
    remark: Opt = None


class PostIn(Schema):
    id: Id | None = None
    category: Annotated[int | None, Field(ge=0, le=99), dictionary("post_category")] = None
    post_code: Annotated[str, Field(min_length=1, max_length=12)]
    post_name: Short
    sort: Sort
    remark: Opt = None


class ClientIn(Schema):
    id: Id | None = None
    client_id: Annotated[str, Field(min_length=1, max_length=48)]
    client_secret: Annotated[str, Field(min_length=6, max_length=256)]
    scope: Text = "all"
    authorized_grant_types: Text = "refresh_token,password,captcha"
    access_token_validity: Annotated[int, Field(ge=60, le=31_536_000)] = 3600
    refresh_token_validity: Annotated[int, Field(ge=60, le=31_536_000)] = 604800
    resource_ids: Opt = None
    web_server_redirect_uri: Opt = None
    authorities: Opt = None
    autoapprove: Opt = None
    additional_information: Annotated[str | None, Field(default=None, max_length=4096)] = None


class TenantIn(Schema):
    id: Id | None = None
    tenant_id: Annotated[str | None, Field(default=None, max_length=12)] = None
    tenant_name: Annotated[str, Field(min_length=1, max_length=50)]
    domain: Opt = None
    background_url: Opt = None
    linkman: Annotated[str | None, Field(default=None, max_length=20)] = None
    contact_number: Annotated[str | None, Field(default=None, max_length=20)] = None
    address: Opt = None
    account_number: Annotated[int, Field(ge=-1, le=1_000_000)] = -1
    expire_time: Time | None = None
    package_id: Id | None = None
    retention_months: Annotated[int, Field(ge=1, le=120)] = 12
    storage_quota_mb: Annotated[
        int, Field(ge=-1, le=10_000_000, description="the tenant's file storage, MB (-1: no limit)")
    ] = 2048
    upload_rate: Annotated[int, Field(ge=-1, le=100_000, description="uploads per user per hour (-1: no limit)")] = 200


#: A role alias is one identifier: no commas or spaces (aliases travel as a comma list in the token's ``role_name``).
Alias = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")]


class RoleIn(Schema):
    id: Id | None = None
    parent_id: Id | None = 0
    role_name: Short
    role_alias: Alias
    sort: Sort


class MenuIn(Schema):
    id: Id | None = None
    parent_id: Id | None = 0
    code: Text
    name: Text
    alias: Text
    path: Opt = None
    source: Opt = None
    sort: Sort
    category: Annotated[int, Field(ge=1, le=2), dictionary("menu_category")] = 1
    action: Annotated[int, Field(ge=0, le=3), dictionary("button_func")] = 0
    is_open: Annotated[int, Field(ge=0, le=2), dictionary("yes_no")] = 1
    remark: Opt = None


class TopMenuIn(Schema):
    id: Id | None = None
    code: Text
    name: Text
    source: Opt = None
    sort: Sort


class DeptIn(Schema):
    id: Id | None = None
    parent_id: Id | None = 0
    dept_name: Annotated[str, Field(min_length=1, max_length=45)]
    full_name: Annotated[str | None, Field(default=None, max_length=45)] = None
    dept_category: Annotated[int, Field(ge=1, le=99), dictionary("org_category")] = 1
    sort: Sort
    remark: Opt = None
    dept_logo: Annotated[str | None, Field(default=None, max_length=500)] = None


class UserIn(Schema):
    # A new user needs a password (``UserHooks``); an update leaves it out (passwords have calls of their own).
    model_config = ConfigDict(json_schema_extra=documented(required=("password",)))

    id: Id | None = None
    account: Annotated[str, Field(min_length=2, max_length=45)]
    password: Annotated[str | None, Field(default=None, min_length=6, max_length=64)] = None
    name: Annotated[str, Field(min_length=1, max_length=20)]
    real_name: Annotated[str, Field(min_length=1, max_length=20)]
    code: Annotated[str | None, Field(default=None, max_length=12)] = None
    user_type: Annotated[int, Field(ge=1, le=99)] = 1
    email: Annotated[str | None, Field(default=None, max_length=45)] = None
    phone: Annotated[str | None, Field(default=None, max_length=45)] = None
    sex: Annotated[int | None, Field(ge=0, le=99), dictionary("sex")] = None
    birthday: Time | None = None
    avatar: Annotated[str | None, Field(default=None, max_length=500)] = None
    role_id: IdListRequired
    dept_id: IdListRequired
    post_id: IdList = ""

    @field_validator("role_id", "dept_id")
    @classmethod
    def _not_empty(cls, v: str) -> str:
        if not v:
            raise ValueError("required")
        return v


class ScopeDataIn(Schema):
    id: Id | None = None
    menu_id: Id | None = None
    resource_code: Text
    scope_name: Text
    scope_field: Opt = "*"
    scope_class: Annotated[str | None, Field(default=None, max_length=500)] = None
    scope_column: Opt = "create_dept"
    scope_type: Annotated[int, Field(ge=1, le=5)] = 1
    scope_value: Annotated[str | None, Field(default=None, max_length=2000)] = None
    remark: Opt = None


class ScopeApiIn(Schema):
    id: Id | None = None
    menu_id: Id | None = None
    resource_code: Text
    scope_name: Text
    scope_path: Opt = None
    scope_type: Annotated[int, Field(ge=1, le=2)] = 1
    remark: Opt = None


class UserOutBase(Schema):
    account: str
    name: str | None = None
    real_name: str | None = None
    code: str | None = None
    user_type: int | None = None
    email: str | None = None
    phone: str | None = None
    sex: int | None = None
    birthday: Time | None = None
    avatar: str | None = None
    role_id: str = ""
    dept_id: str = ""
    post_id: str = ""


ParamOut = out_schema("ParamOut", ParamIn, m.Param)
DictOut = out_schema("DictOut", DictIn, m.Dict, parent_name=(str | None, None))
DictBizOut = out_schema("DictBizOut", DictIn, m.DictBiz, parent_name=(str | None, None))
PostOut = out_schema("PostOut", PostIn, m.Post, category_name=(str | None, None))
ClientOut = out_schema("ClientOut", ClientIn, m.Client)
TenantOut = out_schema(
    "TenantOut",
    TenantIn,
    m.Tenant,
    # the creation's answer only: the new tenant's ``admin`` password, random, shown this once and stored nowhere
    admin_password=(str | None, None),
)
RoleOut = out_schema("RoleOut", RoleIn, m.Role, parent_name=(str | None, None))
MenuOut = out_schema(
    "MenuOut",
    MenuIn,
    m.Menu,
    parent_name=(str | None, None),
    category_name=(str | None, None),
    action_name=(str | None, None),
    is_open_name=(str | None, None),
)
TopMenuOut = out_schema("TopMenuOut", TopMenuIn, m.TopMenu)
DeptOut = out_schema(
    "DeptOut",
    DeptIn,
    m.Dept,
    ancestors=(str | None, None),
    parent_name=(str | None, None),
    dept_category_name=(str | None, None),
    invite_code=(str | None, None),
)
UserOut = out_schema(
    "UserOut",
    UserOutBase,
    m.User,
    tenant_name=(str | None, None),
    role_name=(str | None, None),
    dept_name=(str | None, None),
    post_name=(str | None, None),
    sex_name=(str | None, None),
    user_type_name=(str | None, None),
)
ScopeDataOut = out_schema("ScopeDataOut", ScopeDataIn, m.ScopeData)
ScopeApiOut = out_schema("ScopeApiOut", ScopeApiIn, m.ScopeApi)


class DatasourceOutBase(Schema):
    name: str
    driver_class: str
    url: str
    username: str | None = None
    remark: str | None = None


class DatasourceIn(DatasourceOutBase):
    id: Id | None = None
    name: Annotated[str, Field(min_length=1, max_length=100)]
    driver_class: Annotated[str, Field(min_length=1, max_length=100)]
    url: Annotated[str, Field(min_length=1, max_length=500)]
    username: Annotated[str | None, Field(default=None, max_length=50)] = None
    password: Annotated[str | None, Field(default=None, max_length=255)] = None
    remark: Opt = None


DatasourceOut = out_schema("DatasourceOut", DatasourceOutBase, m.Datasource)


# ---------------------------------------------------------------- the tenant's map (api/map_setting.py)

#: Largest site plan image (bytes).
MAX_PLAN_BYTES = 5 * 1024 * 1024
Lat = Annotated[float, Field(ge=-90, le=90)]
Lon = Annotated[float, Field(ge=-180, le=180)]


class MapSettingIn(Schema):
    """What a tenant saves of its map. The site plan image itself is uploaded apart (``plan/upload``)."""

    tile_url: str = Field(
        default="",
        max_length=500,
        description="tile URL template: http(s), with {z}, {x} and {y} (optionally {s}); empty: the default basemap",
    )
    attribution: str = Field(default="", max_length=200, description="the basemap's attribution text")
    max_zoom: int | None = Field(default=None, ge=1, le=24, description="the basemap's largest zoom level")
    plan_south: Lat | None = Field(default=None, description="latitude of the site plan's south-west corner")
    plan_west: Lon | None = Field(default=None, description="longitude of the site plan's south-west corner")
    plan_north: Lat | None = Field(default=None, description="latitude of the site plan's north-east corner")
    plan_east: Lon | None = Field(default=None, description="longitude of the site plan's north-east corner")
    plan_opacity: float = Field(default=0.8, ge=0, le=1, description="opacity of the site plan, 0 to 1")


class MapSettingOut(Schema):
    """The tenant's map as every map of the web app draws it (defaults when the tenant has set nothing)."""

    id: Id | None = None
    tile_url: str = ""
    attribution: str = ""
    max_zoom: int | None = None
    plan_south: float | None = None
    plan_west: float | None = None
    plan_north: float | None = None
    plan_east: float | None = None
    plan_opacity: float = 0.8
    #: A site plan image is stored (served by ``plan/image``).
    has_plan: bool = False
    plan_type: str | None = None
    plan_size: int | None = None
    #: sha256 of the image: its ETag, and the web app's cache key.
    plan_hash: str | None = None
    update_time: Time | None = None


# ---------------------------------------------------------------- users beyond CRUD (system/api/users.py)


class ProfileOut(Schema):
    """The signed-in user's own profile (``info``): what they may change, and what they may only read."""

    id: Id
    tenant_id: str
    account: str
    name: str | None = None
    real_name: str | None = None
    avatar: str | None = None
    email: str | None = None
    phone: str | None = None
    sex: int | None = None
    sex_name: str | None = None
    birthday: Time | None = None
    role_name: str | None = None
    dept_name: str | None = None
    post_name: str | None = None


class ProfileIn(Schema):
    """What a user may change about themself (``update-info``): never their account, roles or organisations.
    The rules of the specification (real name 2-5 characters, an 11-digit mobile number) are checked by the call,
    with its own messages."""

    name: Annotated[str, Field(min_length=1, max_length=20, description="nickname")]
    # checked by the call with the specification's message; documented here as what it accepts
    real_name: Annotated[
        str,
        Field(
            max_length=20,
            description="real name, 2 to 5 characters",
            json_schema_extra={"maxLength": 5, "pattern": trimmed_pattern(2)},
        ),
    ]
    phone: Annotated[
        str, Field(max_length=45, description="mobile number: 11 digits", json_schema_extra={"pattern": MOBILE_PATTERN})
    ]
    email: Annotated[
        str | None,
        Field(
            default=None,
            max_length=45,
            description="e-mail address (name@domain.tld)",
            json_schema_extra={"pattern": r"^(?:\s*[^@\s]+@[^@\s]+\.[^@\s]+\s*)?$"},
        ),
    ] = None
    avatar: Annotated[
        str | None,
        Field(
            default=None,
            max_length=500,
            description="avatar image URL (http(s):// or a path from /)",
            json_schema_extra={"pattern": r"^(?:\s*(?:https?://|/)[\s\S]*)?$"},
        ),
    ] = None
    sex: Annotated[int | None, Field(ge=0, le=99), dictionary("sex")] = None
    birthday: Time | None = None


class UserGrantQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("user_ids", "role_ids")))

    user_ids: IdListRequired = Field(default="", description="comma-separated user ids")
    role_ids: IdListRequired = Field(default="", description="comma-separated role ids (replace the users' roles)")


class PlatformQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("id",)))

    id: str = Field(default="", max_length=20, description="the user's id", json_schema_extra={"pattern": ID_PATTERN})


class PlatformIn(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("user_id", "user_type")))

    user_id: str = Field(
        default="", max_length=20, description="the user's id", json_schema_extra={"pattern": ID_PATTERN}
    )
    user_type: int = Field(default=0, ge=1, le=3, description="platform: 1 web, 2 app, 3 other (dictionary user_type)")
    user_ext: str = Field(
        default="", max_length=0, description="platform extension information (not kept yet: must be empty)"
    )


class PlatformOut(Schema):
    """A user's platform: their type (dictionary ``user_type``) and its extension information."""

    id: Id
    account: str
    real_name: str | None = None
    user_type: int | None = None
    user_type_name: str | None = None
    user_ext: str = ""


#: A region's code: its GB/T 2260 code, 6 digits (province ``xx0000``, city ``xxyy00``, district), 9 (town) or 12
#: (village).
RegionCode = Annotated[str, Field(pattern=r"^[0-9]{6}(?:[0-9]{3}){0,2}$", examples=["440300"])]


class RegionIn(Schema):
    id: Id | None = None
    code: RegionCode
    # ``00``: the country (a province's parent)
    parent_code: Annotated[str, Field(pattern=r"^(?:00|[0-9]{6}|[0-9]{9})$")] = "00"
    name: Annotated[str, Field(min_length=1, max_length=64)]
    # 1 province, 2 city, 3 district, 4 town, 5 village: follows from the code (given, it must agree)
    region_level: Annotated[int | None, Field(ge=1, le=5)] = None
    sort: Sort = 0
    remark: Opt = None


_RegionName = (str | None, None)
RegionOut = out_schema(
    "RegionOut",
    RegionIn,
    m.Region,
    ancestors=_RegionName,
    province_code=_RegionName,
    province_name=_RegionName,
    city_code=_RegionName,
    city_name=_RegionName,
    district_code=_RegionName,
    district_name=_RegionName,
    town_code=_RegionName,
    town_name=_RegionName,
    village_code=_RegionName,
    village_name=_RegionName,
)


# ---------------------------------------------------------------- object storage and attachments (system/files.py)

#: What a stored secret reads as in lists and details (``core.audit``'s mask); sent back as read, the stored secret
#: is kept.
SECRET_MASK = "******"
#: An S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens).
BUCKET_PATTERN = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
#: The address of an S3-compatible service: http(s), a host (and port), optionally a path; no credentials in it.
ENDPOINT_PATTERN = r"^https?://[A-Za-z0-9.\[\]:-]+(?:/[^\s?#]*)?$"
#: A name shown to people: no control characters (it ends up in a download's headers).
#: A name shown as text: no control characters and no angle brackets (no markup).
PLAIN_NAME_PATTERN = r"^[^\x00-\x1f\x7f<>]+$"


class OssIn(Schema):
    id: Id | None = None
    category: Annotated[int, Field(ge=1, le=4), dictionary("oss")] = 1
    oss_code: Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")]
    endpoint: Annotated[
        str,
        Field(
            min_length=1,
            max_length=255,
            pattern=ENDPOINT_PATTERN,
            description="the S3-compatible service, http(s)://host[:port]",
        ),
    ]
    access_key: Annotated[str | None, Field(default=None, max_length=255)] = None
    secret_key: Annotated[
        str | None,
        Field(default=None, max_length=255, description="read back as ******; sent back as ******, it is kept"),
    ] = None
    bucket_name: Annotated[str, Field(min_length=3, max_length=63, pattern=BUCKET_PATTERN)]
    app_id: Opt = None
    region: Annotated[str | None, Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_-]*$")] = None
    remark: Opt = None


OssOut = out_schema("OssOut", OssIn, m.Oss)


class OssIdQuery(Schema):
    id: Id


class AttachIn(Schema):
    """What may change of an attachment (``attach/submit``): its name as shown. Attachments are made by uploading."""

    model_config = ConfigDict(json_schema_extra=documented(required=("id",)))

    id: Id | None = None
    original_name: Annotated[str, Field(min_length=1, max_length=255, pattern=PLAIN_NAME_PATTERN)]


class AttachOutBase(Schema):
    link: str
    domain: str = ""
    name: str
    original_name: str
    extension: str = ""
    attach_size: int = 0
    content_type: str = ""
    oss_id: Id | None = None


AttachOut = out_schema("AttachOut", AttachOutBase, m.Attach)


class AttachIdQuery(Schema):
    id: Id


class UploadOut(Schema):
    """An uploaded file (``file/upload``): where it is read (``link``, with a token of the tenant), its store's
    domain, its key there, the name it was uploaded with and its attachment's id."""

    link: str
    domain: str
    name: str
    original_name: str
    attach_id: Id
    extension: str
    attach_size: int


class CosTokenQuery(Schema):
    page: str = Field(
        default="attach",
        max_length=32,
        json_schema_extra={"enum": ["attach", "driverPaper"]},
        description="the page the file belongs to (attach: the attachments; driverPaper: a driver's papers); its add "
        "or edit button is needed",
    )
    file_name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=255,
            description="the file's name; its extension (one of the accepted kinds) fixes its Content-Type",
        ),
    ]


class CosTokenOut(Schema):
    """A direct-upload credential (``common/cosToken``): POST ``fields`` and then the file (multipart field ``file``,
    last) to ``url`` before ``expireAt``. The object store accepts exactly the key ``key``, 1 to ``maxSize`` bytes and
    the ``Content-Type`` ``contentType``; the file is then read at ``link`` (with a token of the tenant), which checks
    its content first."""

    url: str
    fields: dict[str, str]
    key: str
    link: str
    content_type: str
    max_size: int
    expire_at: Time


# ---------------------------------------------------------------- notices and in-site messages (system/messages.py)


class NoticeIn(Schema):
    id: Id | None = None
    title: Annotated[str, Field(min_length=1, max_length=255)]
    category: Annotated[int, Field(ge=1, le=99), dictionary("notice")] = 1
    release_time: Time | None = None
    content: Annotated[str | None, Field(default=None, max_length=20_000)] = None


NoticeOut = out_schema("NoticeOut", NoticeIn, m.Notice, category_name=(str | None, None))


class SiteMessageOut(Schema):
    """One in-site message of the caller's, with the spec's names of the message centre beside ours."""

    id: Id
    tenant_id: str | None = None
    user_id: Id | None = None
    msg_type: Annotated[int, dictionary("message_type", biz=True)]
    msg_type_name: str | None = None
    title: str
    content: str | None = None
    user_num: str | None = Field(default=None, description="the vehicle's plate or the driver it is about")
    business_id: Id | None = Field(default=None, description="the notice or the vehicle it is about")
    link: str | None = None
    is_read: Annotated[int, Field(description="0 unread, 1 read")] = 0
    read_time: Time | None = None
    create_time: Time | None = None
    handle_time: Time | None = Field(default=None, description="the spec's name of createTime")
    message_type_name: str | None = Field(default=None, description="the spec's name of msgTypeName")
    message_text: str | None = Field(default=None, description="the spec's name of content")
    message_state: int | None = Field(default=None, description="the spec's name of isRead")


MessageType = Annotated[int, Field(ge=1, le=99, description="a key of the business dictionary message_type")]
#: The message types the receive settings are about: the alarms (2 to 8; 1, notices, go to every user).
AlarmType = Annotated[int, Field(ge=2, le=8, description="an alarm type of the business dictionary message_type")]


class ReceiveOut(Schema):
    """How the messages of one type are sent and who receives them."""

    msg_type: MessageType
    msg_type_name: str
    send_type: str = Field(description="keys of the business dictionary message_send_type (1 in-site); empty: off")
    send_type_name: str = ""
    is_default: bool = Field(description="no user chosen: the tenant's administrators receive them")
    receiver_count: int
    receivers: str = Field(description="the receivers' names, comma-separated (the first 20)")


class ReceiveUserOut(Schema):
    id: Id
    msg_type: int
    user_id: Id
    account: str | None = None
    real_name: str | None = None
    create_time: Time | None = None


class ReceiveSendTypeIn(Schema):
    msg_type: AlarmType
    send_type: Annotated[str, Field(max_length=64, pattern=r"^(?:1)?$", description="1: in-site; empty: off")] = ""


class ReceiveTypeIn(Schema):
    msg_type: AlarmType


class ReceiveUsersIn(Schema):
    msg_type: AlarmType
    user_ids: Annotated[IdList, ids_documented(1000), Field(description="the users: 1,2 or [1, 2] (one at least)")]
