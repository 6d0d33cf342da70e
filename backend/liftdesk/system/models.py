"""System tables (BladeX 2.9 schema, ``blade_*`` names so existing data maps across)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, Index, LargeBinary, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from liftdesk.core.db import (
    AuditMixin,
    Base,
    BaseEntity,
    IdMixin,
    SoftDeleteMixin,
    TenantMixin,
    TreeMixin,
    utcnow,
)


class Tenant(BaseEntity, Base):
    __tablename__ = "blade_tenant"
    tenant_id: Mapped[str] = mapped_column(String(12), unique=True)
    tenant_name: Mapped[str] = mapped_column(String(50))
    domain: Mapped[str | None] = mapped_column(String(255))
    background_url: Mapped[str | None] = mapped_column(String(1000))
    linkman: Mapped[str | None] = mapped_column(String(20))
    contact_number: Mapped[str | None] = mapped_column(String(20))
    address: Mapped[str | None] = mapped_column(String(255))
    account_number: Mapped[int] = mapped_column(default=-1)
    expire_time: Mapped[datetime | None]
    package_id: Mapped[int | None] = mapped_column(BigInteger)
    datasource_id: Mapped[int | None] = mapped_column(BigInteger)
    license_key: Mapped[str | None] = mapped_column(String(1000))
    # Months of raw positions kept (whole month partitions are dropped past it); aggregates are kept.
    retention_months: Mapped[int] = mapped_column(default=12, server_default="12")
    # What its files may take (MB) and how many files a user may upload an hour (-1: no limit; system/uploads.py).
    storage_quota_mb: Mapped[int] = mapped_column(default=2048, server_default="2048")
    upload_rate: Mapped[int] = mapped_column(default=200, server_default="200")


class User(BaseEntity, TenantMixin, Base):
    __tablename__ = "blade_user"
    __table_args__ = (Index("ix_blade_user_tenant_account", "tenant_id", "account"),)
    code: Mapped[str | None] = mapped_column(String(12))
    user_type: Mapped[int] = mapped_column(default=1)
    account: Mapped[str] = mapped_column(String(45))
    password: Mapped[str] = mapped_column(String(255))
    name: Mapped[str | None] = mapped_column(String(20))
    real_name: Mapped[str | None] = mapped_column(String(20))
    avatar: Mapped[str | None] = mapped_column(String(500))
    email: Mapped[str | None] = mapped_column(String(45))
    phone: Mapped[str | None] = mapped_column(String(45))
    birthday: Mapped[datetime | None]
    sex: Mapped[int | None]
    role_id: Mapped[str] = mapped_column(String(1000), default="")
    dept_id: Mapped[str] = mapped_column(String(1000), default="")
    post_id: Mapped[str] = mapped_column(String(1000), default="")
    # 1: the next sign-in must choose a new password before anything else (seeded and provisioned administrators,
    # passwords reset or replaced by an administrator).
    password_must_change: Mapped[int] = mapped_column(default=0, server_default="0")


class UserDept(IdMixin, Base):
    __tablename__ = "blade_user_dept"
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    dept_id: Mapped[int] = mapped_column(BigInteger, index=True)


class Role(IdMixin, TenantMixin, TreeMixin, SoftDeleteMixin, Base):
    __tablename__ = "blade_role"
    role_name: Mapped[str] = mapped_column(String(255))
    role_alias: Mapped[str] = mapped_column(String(255))
    # 1: its holders administer the tenant (``system.auth.admin_level``), whatever its alias says. Set when a tenant
    # is made (its ``admin`` role) and by migration 0032; never through ``role/submit``.
    is_admin: Mapped[int] = mapped_column(default=0, server_default="0")


class RoleMenu(IdMixin, Base):
    __tablename__ = "blade_role_menu"
    menu_id: Mapped[int] = mapped_column(BigInteger, index=True)
    role_id: Mapped[int] = mapped_column(BigInteger, index=True)


class RoleScope(IdMixin, Base):
    __tablename__ = "blade_role_scope"
    scope_category: Mapped[int] = mapped_column(default=1)
    scope_id: Mapped[int] = mapped_column(BigInteger, index=True)
    role_id: Mapped[int] = mapped_column(BigInteger, index=True)


class Menu(IdMixin, TreeMixin, SoftDeleteMixin, Base):
    __tablename__ = "blade_menu"
    code: Mapped[str] = mapped_column(String(255), index=True)
    name: Mapped[str] = mapped_column(String(255))
    alias: Mapped[str | None] = mapped_column(String(255))
    path: Mapped[str | None] = mapped_column(String(255))
    source: Mapped[str | None] = mapped_column(String(255))
    category: Mapped[int] = mapped_column(default=1)
    action: Mapped[int] = mapped_column(default=0)
    is_open: Mapped[int] = mapped_column(default=1)
    remark: Mapped[str | None] = mapped_column(String(255))


class TopMenu(BaseEntity, TenantMixin, Base):
    __tablename__ = "blade_top_menu"
    code: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255))
    source: Mapped[str | None] = mapped_column(String(255))
    sort: Mapped[int] = mapped_column(default=0)


class TopMenuSetting(IdMixin, Base):
    __tablename__ = "blade_top_menu_setting"
    top_menu_id: Mapped[int] = mapped_column(BigInteger, index=True)
    menu_id: Mapped[int] = mapped_column(BigInteger, index=True)


class Dept(BaseEntity, TenantMixin, TreeMixin, Base):
    __tablename__ = "blade_dept"
    ancestors: Mapped[str] = mapped_column(String(2000), default="0")
    dept_category: Mapped[int] = mapped_column(default=1)
    dept_name: Mapped[str] = mapped_column(String(45))
    full_name: Mapped[str | None] = mapped_column(String(45))
    remark: Mapped[str | None] = mapped_column(String(255))
    invite_code: Mapped[str | None] = mapped_column(String(16))
    dept_logo: Mapped[str | None] = mapped_column(String(500))


class Post(BaseEntity, TenantMixin, Base):
    __tablename__ = "blade_post"
    category: Mapped[int | None]
    post_code: Mapped[str] = mapped_column(String(12))
    post_name: Mapped[str] = mapped_column(String(64))
    sort: Mapped[int] = mapped_column(default=0)
    remark: Mapped[str | None] = mapped_column(String(255))


class Dict(IdMixin, TreeMixin, SoftDeleteMixin, Base):
    __tablename__ = "blade_dict"
    code: Mapped[str] = mapped_column(String(255), index=True)
    dict_key: Mapped[str] = mapped_column(String(255))
    dict_value: Mapped[str] = mapped_column(String(255))
    remark: Mapped[str | None] = mapped_column(String(255))
    is_sealed: Mapped[int] = mapped_column(default=0)


class DictBiz(IdMixin, TenantMixin, TreeMixin, SoftDeleteMixin, Base):
    __tablename__ = "blade_dict_biz"
    code: Mapped[str] = mapped_column(String(255), index=True)
    dict_key: Mapped[str] = mapped_column(String(255))
    dict_value: Mapped[str] = mapped_column(String(255))
    remark: Mapped[str | None] = mapped_column(String(255))
    is_sealed: Mapped[int] = mapped_column(default=0)


class Param(BaseEntity, Base):
    __tablename__ = "blade_param"
    param_name: Mapped[str] = mapped_column(String(255))
    param_key: Mapped[str] = mapped_column(String(255), index=True)
    param_value: Mapped[str] = mapped_column(Text)
    remark: Mapped[str | None] = mapped_column(String(255))


class Client(BaseEntity, Base):
    __tablename__ = "blade_client"
    client_id: Mapped[str] = mapped_column(String(48), index=True)
    client_secret: Mapped[str] = mapped_column(String(256))
    resource_ids: Mapped[str | None] = mapped_column(String(256))
    scope: Mapped[str] = mapped_column(String(256), default="all")
    authorized_grant_types: Mapped[str] = mapped_column(String(256))
    web_server_redirect_uri: Mapped[str | None] = mapped_column(String(256))
    authorities: Mapped[str | None] = mapped_column(String(256))
    access_token_validity: Mapped[int] = mapped_column(default=3600)
    refresh_token_validity: Mapped[int] = mapped_column(default=604800)
    additional_information: Mapped[str | None] = mapped_column(String(4096))
    autoapprove: Mapped[str | None] = mapped_column(String(256))


class ScopeData(BaseEntity, Base):
    __tablename__ = "blade_scope_data"
    menu_id: Mapped[int | None] = mapped_column(BigInteger)
    resource_code: Mapped[str] = mapped_column(String(255), index=True)
    scope_name: Mapped[str] = mapped_column(String(255))
    scope_field: Mapped[str | None] = mapped_column(String(255))
    scope_class: Mapped[str | None] = mapped_column(String(500))
    scope_column: Mapped[str | None] = mapped_column(String(255))
    scope_type: Mapped[int] = mapped_column(default=1)
    scope_value: Mapped[str | None] = mapped_column(String(2000))
    remark: Mapped[str | None] = mapped_column(String(255))


class ScopeApi(BaseEntity, Base):
    __tablename__ = "blade_scope_api"
    menu_id: Mapped[int | None] = mapped_column(BigInteger)
    resource_code: Mapped[str] = mapped_column(String(255), index=True)
    scope_name: Mapped[str] = mapped_column(String(255))
    scope_path: Mapped[str | None] = mapped_column(String(255))
    scope_type: Mapped[int] = mapped_column(default=1)
    remark: Mapped[str | None] = mapped_column(String(255))


class LogUsual(IdMixin, TenantMixin, Base):
    __tablename__ = "blade_log_usual"
    service_id: Mapped[str | None] = mapped_column(String(32))
    log_level: Mapped[str | None] = mapped_column(String(10))
    log_id: Mapped[str | None] = mapped_column(String(100))
    log_data: Mapped[str | None] = mapped_column(Text)
    request_uri: Mapped[str | None] = mapped_column(String(255))
    user_agent: Mapped[str | None] = mapped_column(String(1000))
    remote_ip: Mapped[str | None] = mapped_column(String(255))
    create_by: Mapped[str | None] = mapped_column(String(64))
    create_time: Mapped[datetime] = mapped_column(default=utcnow)


class MenuVisit(IdMixin, TenantMixin, AuditMixin, Base):
    __tablename__ = "blade_menu_visit"
    menu_id: Mapped[int] = mapped_column(BigInteger, index=True)


class Datasource(BaseEntity, Base):
    __tablename__ = "blade_datasource"
    name: Mapped[str] = mapped_column(String(100))
    driver_class: Mapped[str] = mapped_column(String(100))
    url: Mapped[str] = mapped_column(String(500))
    username: Mapped[str | None] = mapped_column(String(50))
    password: Mapped[str | None] = mapped_column(String(255))
    remark: Mapped[str | None] = mapped_column(String(255))


class MapSetting(IdMixin, TenantMixin, AuditMixin, Base):
    """A tenant's map: its basemap (a tile URL template; empty: the web app's default) and a site plan image placed
    by its south-west and north-east corners (WGS-84), drawn under the vehicles. One row per tenant."""

    __tablename__ = "liftdesk_map_setting"
    __table_args__ = (Index("ux_liftdesk_map_setting_tenant", "tenant_id", unique=True),)
    tile_url: Mapped[str] = mapped_column(String(500), default="")
    attribution: Mapped[str] = mapped_column(String(200), default="")
    max_zoom: Mapped[int | None]
    plan_image: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    plan_type: Mapped[str | None] = mapped_column(String(20))
    plan_size: Mapped[int | None]
    plan_hash: Mapped[str | None] = mapped_column(String(64))
    plan_south: Mapped[float | None] = mapped_column(Float)
    plan_west: Mapped[float | None] = mapped_column(Float)
    plan_north: Mapped[float | None] = mapped_column(Float)
    plan_east: Mapped[float | None] = mapped_column(Float)
    plan_opacity: Mapped[float] = mapped_column(Float, default=0.8)


class _LogRequest(IdMixin, TenantMixin):
    """The request columns the API and error logs share (BladeX's ``blade_log_api`` / ``blade_log_error``)."""

    service_id: Mapped[str | None] = mapped_column(String(32))
    server_host: Mapped[str | None] = mapped_column(String(255))
    server_ip: Mapped[str | None] = mapped_column(String(255))
    env: Mapped[str | None] = mapped_column(String(255))
    method: Mapped[str | None] = mapped_column(String(10))
    request_uri: Mapped[str | None] = mapped_column(String(255))
    user_agent: Mapped[str | None] = mapped_column(String(1000))
    remote_ip: Mapped[str | None] = mapped_column(String(255))
    method_class: Mapped[str | None] = mapped_column(String(255))
    method_name: Mapped[str | None] = mapped_column(String(255))
    params: Mapped[str | None] = mapped_column(Text)
    create_by: Mapped[str | None] = mapped_column(String(64))
    create_time: Mapped[datetime] = mapped_column(default=utcnow)


class LogApi(_LogRequest, Base):
    """One mutating call: who, where, what (parameters with secrets masked), its status and how long it took."""

    __tablename__ = "blade_log_api"
    __table_args__ = (Index("ix_blade_log_api_tenant_time", "tenant_id", "create_time"),)
    type: Mapped[str | None] = mapped_column(String(2))
    title: Mapped[str | None] = mapped_column(String(255))
    time: Mapped[int | None] = mapped_column(BigInteger)  # ms
    status: Mapped[int | None]


class LogError(_LogRequest, Base):
    """One unhandled server error, with its trace (read by the platform administrator only)."""

    __tablename__ = "blade_log_error"
    __table_args__ = (Index("ix_blade_log_error_tenant_time", "tenant_id", "create_time"),)
    stack_trace: Mapped[str | None] = mapped_column(Text)
    exception_name: Mapped[str | None] = mapped_column(String(255))
    message: Mapped[str | None] = mapped_column(Text)
    line_number: Mapped[int | None]
    file_name: Mapped[str | None] = mapped_column(String(1000))


class Region(TreeMixin, Base):
    """BladeX's ``blade_region``: one administrative division of China, global (the same for every tenant).
    ``code`` is its GB/T 2260 code as text (the key, as in BladeX; provinces and cities ``110000``, ``440300``,
    towns 9 digits, villages 12). ``id`` and ``parent_id`` are the same codes as numbers (codes are digits and never
    start with 0): the handle the generic resource layer and its integer ids work with; ``parent_code`` is ``00``
    and ``parent_id`` 0 under the country."""

    __tablename__ = "blade_region"
    code: Mapped[str] = mapped_column(String(12), primary_key=True)
    id: Mapped[int] = mapped_column(BigInteger, unique=True)
    parent_code: Mapped[str] = mapped_column(String(12), default="00")
    ancestors: Mapped[str] = mapped_column(String(255), default="00")
    name: Mapped[str] = mapped_column(String(64))
    province_code: Mapped[str | None] = mapped_column(String(12))
    province_name: Mapped[str | None] = mapped_column(String(64))
    city_code: Mapped[str | None] = mapped_column(String(12))
    city_name: Mapped[str | None] = mapped_column(String(64))
    district_code: Mapped[str | None] = mapped_column(String(12))
    district_name: Mapped[str | None] = mapped_column(String(64))
    town_code: Mapped[str | None] = mapped_column(String(12))
    town_name: Mapped[str | None] = mapped_column(String(64))
    village_code: Mapped[str | None] = mapped_column(String(12))
    village_name: Mapped[str | None] = mapped_column(String(64))
    region_level: Mapped[int] = mapped_column(default=1)
    remark: Mapped[str | None] = mapped_column(String(255))


class Oss(BaseEntity, TenantMixin, Base):
    """BladeX's ``blade_oss``: one object storage configuration of a tenant (``category``: dictionary ``oss``, each an
    S3-compatible service reached at ``endpoint``). ``status`` 2 is the tenant's enabled one (at most one: the
    partial unique index), 1 the others; with none enabled, files go to the local disk (``system/files.py``)."""

    __tablename__ = "blade_oss"
    __table_args__ = (
        Index(
            "ux_blade_oss_enabled",
            "tenant_id",
            unique=True,
            sqlite_where=text("status = 2 AND is_deleted = 0"),
            postgresql_where=text("status = 2 AND is_deleted = 0"),
        ),
    )
    category: Mapped[int] = mapped_column(default=1)
    oss_code: Mapped[str] = mapped_column(String(32))
    endpoint: Mapped[str] = mapped_column(String(255))
    access_key: Mapped[str | None] = mapped_column(String(255))
    secret_key: Mapped[str | None] = mapped_column(String(255))
    bucket_name: Mapped[str] = mapped_column(String(255))
    app_id: Mapped[str | None] = mapped_column(String(255))
    region: Mapped[str | None] = mapped_column(String(255))
    remark: Mapped[str | None] = mapped_column(String(255))


class Sms(BaseEntity, TenantMixin, Base):
    """BladeX's ``blade_sms``: one SMS configuration of a tenant (``category``: dictionary ``sms``; aliyun and tencent
    are served, ``system/sms.py``). ``status`` 2 is the tenant's enabled one (at most one: the partial unique index);
    with none enabled, messages are written to the server log outside production. ``endpoint`` (Liftdesk's) is the
    provider's address when not its public one; ``app_id`` (Liftdesk's) is tencent's SmsSdkAppId."""

    __tablename__ = "blade_sms"
    __table_args__ = (
        Index(
            "ux_blade_sms_enabled",
            "tenant_id",
            unique=True,
            sqlite_where=text("status = 2 AND is_deleted = 0"),
            postgresql_where=text("status = 2 AND is_deleted = 0"),
        ),
    )
    category: Mapped[int] = mapped_column(default=3)
    sms_code: Mapped[str] = mapped_column(String(32))
    template_id: Mapped[str] = mapped_column(String(64))
    access_key: Mapped[str | None] = mapped_column(String(255))
    secret_key: Mapped[str | None] = mapped_column(String(255))
    region_id: Mapped[str | None] = mapped_column(String(64))
    sign_name: Mapped[str | None] = mapped_column(String(64))
    app_id: Mapped[str | None] = mapped_column(String(64))
    endpoint: Mapped[str | None] = mapped_column(String(255))
    remark: Mapped[str | None] = mapped_column(String(255))


class SmsValidate(IdMixin, TenantMixin, Base):
    """A sign-in code sent by SMS (``sms/endpoint/send-validate``, ``system/phone.py``): only its HMAC is kept, with
    its expiry, the wrong tries against it and whether it was used. A row is written for every accepted request,
    whether or not a user has the number (the rate limits count rows per number, and must not tell the two apart)."""

    __tablename__ = "blade_sms_validate"
    __table_args__ = (Index("ix_blade_sms_validate_phone_time", "phone", "create_time"),)
    key: Mapped[str] = mapped_column(String(64), unique=True)
    phone: Mapped[str] = mapped_column(String(20))
    code_hash: Mapped[str] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(default=0)
    used: Mapped[int] = mapped_column(default=0)
    create_time: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    expire_time: Mapped[datetime] = mapped_column()


class Attach(BaseEntity, TenantMixin, Base):
    """BladeX's ``blade_attach``: one uploaded file. ``name`` is its key in the store that holds it (``oss_id``, or the
    local disk when null); ``link`` the address it is read at (with a token of the tenant)."""

    __tablename__ = "blade_attach"
    link: Mapped[str] = mapped_column(String(1000))
    domain: Mapped[str] = mapped_column(String(500), default="")
    name: Mapped[str] = mapped_column(String(500))
    original_name: Mapped[str] = mapped_column(String(255))
    extension: Mapped[str] = mapped_column(String(12), default="")
    attach_size: Mapped[int] = mapped_column(BigInteger, default=0)
    content_type: Mapped[str] = mapped_column(String(100), default="application/octet-stream")
    oss_id: Mapped[int | None] = mapped_column(BigInteger)


class Notice(BaseEntity, TenantMixin, Base):
    """BladeX's ``blade_notice``: a notice an administrator publishes to the tenant (system/messages.py): saving a
    new one gives every user of the tenant an in-site message about it."""

    __tablename__ = "blade_notice"
    title: Mapped[str] = mapped_column(String(255))
    category: Mapped[int] = mapped_column(default=1)
    release_time: Mapped[datetime | None]
    content: Mapped[str | None] = mapped_column(Text)


class SiteMessage(IdMixin, TenantMixin, Base):
    """One in-site message to one user (system/messages.py): a notice published, a vehicle's alarm. Read by its
    recipient only."""

    __tablename__ = "liftdesk_site_message"
    __table_args__ = (Index("ix_liftdesk_site_message_user", "tenant_id", "user_id", "is_read"),)
    user_id: Mapped[int] = mapped_column(BigInteger)
    msg_type: Mapped[int] = mapped_column(default=1)  # key of the business dictionary ``message_type``
    title: Mapped[str] = mapped_column(String(255))
    content: Mapped[str | None] = mapped_column(Text)
    user_num: Mapped[str | None] = mapped_column(String(64))  # the vehicle's plate or the driver it is about
    business_id: Mapped[int | None] = mapped_column(BigInteger)  # the notice or the vehicle it is about
    link: Mapped[str | None] = mapped_column(String(255))
    is_read: Mapped[int] = mapped_column(default=0)
    read_time: Mapped[datetime | None]
    create_time: Mapped[datetime] = mapped_column(default=utcnow)


class MessageReceive(IdMixin, TenantMixin, AuditMixin, Base):
    """How a tenant sends the messages of one type (system/messages.py): which ways (``send_type``, keys of the
    dictionary ``message_send_type``: 1 in-site; empty: none). No row: the default (in-site)."""

    __tablename__ = "liftdesk_msg_receive"
    __table_args__ = (Index("ux_liftdesk_msg_receive_type", "tenant_id", "msg_type", unique=True),)
    msg_type: Mapped[int] = mapped_column()
    send_type: Mapped[str] = mapped_column(String(64), default="1")


class MessageReceiveUser(IdMixin, TenantMixin, AuditMixin, Base):
    """A user chosen to receive the messages of one type; a type without any goes to the tenant's
    administrators."""

    __tablename__ = "liftdesk_msg_receive_user"
    __table_args__ = (Index("ux_liftdesk_msg_receive_user", "tenant_id", "msg_type", "user_id", unique=True),)
    msg_type: Mapped[int] = mapped_column()
    user_id: Mapped[int] = mapped_column(BigInteger)


class ShowHide(IdMixin, TenantMixin, AuditMixin, Base):
    """The columns one user hides in one table of the web app (``showHide/find`` / ``options``, system/shell.py):
    ``hidden`` is a JSON array of column keys; a column it does not name is shown (a column added later appears)."""

    __tablename__ = "liftdesk_show_hide"
    __table_args__ = (Index("ux_liftdesk_show_hide_user_table", "tenant_id", "user_id", "table_key", unique=True),)
    user_id: Mapped[int] = mapped_column(BigInteger)
    table_key: Mapped[str] = mapped_column(String(100))
    hidden: Mapped[str] = mapped_column(Text, default="[]")


class PageLog(IdMixin, TenantMixin, AuditMixin, Base):
    """One page visit (or other behaviour) of a user in the web app (``pageLog/save``, system/shell.py): the page's
    route path and the name it showed, the behaviour (``page_behavior``); who and when are the audit columns."""

    __tablename__ = "liftdesk_page_log"
    __table_args__ = (Index("ix_liftdesk_page_log_time", "tenant_id", "create_time"),)
    page_path: Mapped[str] = mapped_column(String(255))
    page_name: Mapped[str] = mapped_column(String(100), default="")
    behavior: Mapped[str] = mapped_column(String(20), default="visit")
