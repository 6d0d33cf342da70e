"""Test fixtures: the real app on real databases (SQLite file and PostgreSQL), migrated by Alembic and seeded.

Every test that takes ``api`` runs once per database. PostgreSQL is required: set LIFTDESK_TEST_PG to reach a
server other than the local one; a missing server fails the run rather than skipping half of it.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, select, text, update
from sqlalchemy.ext.asyncio import create_async_engine

from liftdesk.app import create_app
from liftdesk.core.config import Settings
from liftdesk.core.db import Database
from liftdesk.core.security import hash_password
from liftdesk.core.services import Services
from liftdesk.migrate import upgrade
from liftdesk.system.models import DictBiz, Menu, User
from liftdesk.system.seed import seed
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import TerminalService

PG_ADMIN_URL = os.environ.get("LIFTDESK_TEST_PG", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
BASIC = "Basic " + base64.b64encode(b"saber:saber_secret").decode()
BACKENDS = ["sqlite", "postgresql"]
#: Modules that take minutes each: collected first, so that with two xdist workers (``make backend-test``, whose
#: ``--no-loadscope-reorder`` keeps this order: xdist otherwise hands out the files with the most tests first) one of
#: them starts on these while the other works through the many short ones, instead of one finishing them at the end.
LONG_MODULES = ("test_schemathesis.py",)


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by parametrized fixtures, which this keeps
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in LONG_MODULES)  # stable: the rest keep their order


def md5(text_: str) -> str:
    return hashlib.md5(text_.encode()).hexdigest()


@dataclass
class Api:
    """An HTTP client on the app plus the facts tests need (ids of seed rows, tokens)."""

    client: httpx.AsyncClient
    db: Database
    backend: str
    tokens: dict[str, str] = field(default_factory=dict)
    counter: int = 0

    def unique(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{uuid.uuid4().hex[:6]}{self.counter}"

    async def login(self, account: str, password: str, tenant: str = "000000", **extra: str) -> httpx.Response:
        params = {
            "tenantId": tenant,
            "username": account,
            "password": md5(password),
            "grant_type": "password",
            "scope": "all",
            "type": "account",
            **extra,
        }
        return await self.client.post(
            "/api/blade-auth/oauth/token", params=params, headers={"Authorization": BASIC, "Tenant-Id": tenant}
        )

    async def token(self, account: str, password: str, tenant: str = "000000") -> str:
        key = f"{tenant}/{account}"
        if key not in self.tokens:
            r = await self.login(account, password, tenant)
            assert r.status_code == 200, r.text
            self.tokens[key] = r.json()["access_token"]
        return self.tokens[key]

    async def headers(
        self, who: str = "admin", tenant: str = "000000", password: str | None = None, lang: str = "zh-CN"
    ) -> dict[str, str]:
        tok = await self.token(who, password or who, tenant)
        return {"Blade-Auth": f"bearer {tok}", "Authorization": BASIC, "Accept-Language": lang}

    async def call(
        self, method: str, path: str, who: str = "admin", tenant: str = "000000", password: str | None = None, **kw: Any
    ) -> dict[str, Any]:
        headers = {**(await self.headers(who, tenant, password)), **kw.pop("headers", {})}
        r = await self.client.request(method, path, headers=headers, **kw)
        body: dict[str, Any] = r.json()
        body["_status"] = r.status_code
        return body

    async def get(self, path: str, **kw: Any) -> dict[str, Any]:
        return await self.call("GET", path, **kw)

    async def post(self, path: str, **kw: Any) -> dict[str, Any]:
        return await self.call("POST", path, **kw)


async def _create_pg_database() -> tuple[str, str]:
    name = f"liftdesk_test_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    await admin.dispose()
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    return f"{base}/{name}", name


async def _drop_pg_database(name: str) -> None:
    admin = create_async_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    await admin.dispose()


async def _migrate_and_seed(url: str) -> None:
    await upgrade(url)
    db = Database(url=url)
    async with db.sessionmaker() as session:
        await seed(session)
        # The seeded admin must choose a new password at first sign-in (tests/security/test_passwords.py proves
        # it); the rest of the suite signs in with admin / admin as a client that has done so.
        await session.execute(update(User).values(password_must_change=0))
        await session.commit()
    await db.dispose()


async def password_chosen(api: Api, tenant: str) -> None:
    """A tenant created through the API as if its administrator had chosen ``admin`` as their new password (the
    tests sign in with it; the random one of the creation's answer is replaced)."""
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(User)
            .where(User.tenant_id == tenant, User.account == "admin")
            .values(password=hash_password(md5("admin")))
        )
        await s.execute(update(User).where(User.tenant_id == tenant).values(password_must_change=0))
        await s.commit()


@pytest.fixture(scope="session")
def tmp_root() -> Path:
    return Path(tempfile.mkdtemp(prefix="liftdesk-test-"))


@pytest.fixture(scope="session", params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_root: Path) -> AsyncIterator[tuple[str, str]]:
    backend: str = request.param
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_root / 'liftdesk.db'}"
        await _migrate_and_seed(url)
        yield backend, url
        return
    url, name = await _create_pg_database()
    await _migrate_and_seed(url)
    try:
        yield backend, url
    finally:
        await asyncio.sleep(0)
        await _drop_pg_database(name)


@pytest.fixture(scope="module")
async def db(database: tuple[str, str]) -> AsyncIterator[Database]:
    """A database handle on the migrated, seeded database of this run's backend (no app)."""
    d = Database(url=database[1])
    yield d
    await d.dispose()


@pytest.fixture(scope="session")
async def api(database: tuple[str, str], tmp_root: Path) -> AsyncIterator[Api]:
    backend, url = database
    settings = Settings(database_url=url, env="test", web_dir=tmp_root / "no-web", var_dir=tmp_root / "var")
    db = Database(settings, url=url)
    app = create_app(settings, db=db)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield Api(client=client, db=db, backend=backend)
    await db.dispose()


class Parts:
    """The long-lived parts of a test app (``app.state.services``), by name, read when asked (the gateway is added
    when the runtime starts)."""

    def __init__(self, app: Any) -> None:
        self.services: Services = app.state.services

    @property
    def db(self) -> Database:
        return self.services.db

    @property
    def bus(self) -> Any:
        return self.services.bus

    @property
    def pipeline(self) -> Pipeline:
        return self.services.get(Pipeline)

    @property
    def terminals(self) -> TerminalService:
        return self.services.get(TerminalService)

    @property
    def commands(self) -> CommandService:
        return self.services.get(CommandService)

    @property
    def gateway(self) -> Gateway:
        return self.services.get(Gateway)


async def live_url(base: str, token: str) -> str:
    """The live feed's WebSocket URL on the server at ``base`` (``http://host:port``) for the holder of ``token``: a
    ticket asked with the token (single use, valid 30 s), never the token itself."""
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.post("/api/liftdesk/live/ticket", headers={"Blade-Auth": f"bearer {token}"})
    body = r.json()
    assert body["code"] == 200, body
    return f"{base.replace('http', 'ws', 1)}/api/liftdesk/live?ticket={body['data']['ticket']}"


def parts(api: Api) -> Parts:
    return Parts(api.client._transport.app)  # type: ignore[attr-defined]


def app_settings(api: Api) -> Settings:
    """The settings of the app the ``api`` client talks to (a test may change one for a while)."""
    settings: Settings = api.client._transport.app.state.settings  # type: ignore[attr-defined]
    return settings


@pytest.fixture(scope="module")
def allow_private_endpoints(api: Api) -> Iterator[None]:
    """``allow_private_endpoints`` on while a module's tests run: their S3 and SMS servers are on localhost, which
    the default refuses (core/egress.py; tests/system/test_egress.py proves the default)."""
    settings = app_settings(api)
    before = settings.allow_private_endpoints
    settings.allow_private_endpoints = True
    try:
        yield
    finally:
        settings.allow_private_endpoints = before


@dataclass
class Tenants:
    a: str  # the seed tenant 000000, signed in as the platform administrator
    b: str  # a tenant created through the API, signed in as its own admin (role ``admin``)


@pytest.fixture(scope="session")
async def tenants(api: Api) -> Tenants:
    r = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Tenant B ")})
    assert r["code"] == 200, r
    await password_chosen(api, r["data"]["tenantId"])
    return Tenants(a="000000", b=r["data"]["tenantId"])


async def seed_ids(api: Api, tenant: str = "000000") -> dict[str, str]:
    """Ids of a tenant's first role (non-administrator if there is one), root organisation and first post."""
    who = {"tenant": tenant}
    roles = (await api.get("/api/blade-system/role/list", **who))["data"]
    depts = (await api.get("/api/blade-system/dept/list", **who))["data"]
    posts = (await api.get("/api/blade-system/post/select", **who))["data"]
    by_alias = {r["roleAlias"]: r["id"] for r in roles}
    return {
        "role": by_alias.get("admin") or roles[0]["id"],
        "administrator": by_alias.get("administrator", ""),
        "driver": by_alias.get("driver", ""),
        "maintenance": by_alias.get("maintenance", ""),
        "dept": depts[0]["id"],
        "child_dept": depts[0]["children"][0]["id"] if depts[0].get("children") else depts[0]["id"],
        "post": posts[0]["id"],
    }


@pytest.fixture(scope="session")
async def driver(api: Api) -> str:
    """A user of tenant 000000 whose only role (ordinary driver) has been granted nothing."""
    ids = await seed_ids(api)
    account = api.unique("drv")
    r = await api.post(
        "/api/blade-user/submit",
        json={
            "account": account,
            "password": "driver-1",
            "name": "Driver",
            "realName": "Driver",
            "roleId": ids["driver"],
            "deptId": ids["child_dept"],
        },
    )
    assert r["code"] == 200, r
    return account


@asynccontextmanager
async def tenant_thresholds(db: Database, values: dict[str, str]) -> AsyncIterator[None]:
    """Tenant 000000's ``telemetry_threshold`` business dictionary holding ``values`` (e.g.
    ``{"telemetry.offlineDays": "2"}``) while the block runs; removed afterwards."""
    async with db.sessionmaker() as s:
        root = DictBiz(
            tenant_id="000000", parent_id=0, code="telemetry_threshold", dict_key="-1", dict_value="t", sort=1
        )
        s.add(root)
        await s.flush()
        for key, value in values.items():
            s.add(
                DictBiz(
                    tenant_id="000000",
                    parent_id=root.id,
                    code="telemetry_threshold",
                    dict_key=key,
                    dict_value=value,
                    sort=1,
                )
            )
        await s.commit()
    try:
        yield
    finally:
        async with db.sessionmaker() as s:
            await s.execute(delete(DictBiz).where(DictBiz.code == "telemetry_threshold"))
            await s.commit()


@asynccontextmanager
async def own_organisation_user(
    api: Api,
    dept: str,
    buttons: tuple[str, ...] = (),
    resource: str = "vehicle",
    menus: tuple[str, ...] = ("vehicle", "command_log"),
) -> AsyncIterator[dict[str, str]]:
    """A new user of tenant 000000 in organisation ``dept`` whose role sees the rows of ``resource`` (default: the
    vehicles) of its own organisation only (data scope type 3 on ``create_dept``), holds the ``menus`` (default: the
    vehicle and command-log menus) and the ``buttons`` (codes such as ``vehicle_edit``). Yields
    ``{"who": account, "password": ...}`` (the keyword arguments of ``Api.get`` / ``Api.post``); the data-scope
    rule is removed afterwards."""
    role = (
        await api.post(
            "/api/blade-system/role/submit",
            json={"roleName": api.unique("scoped "), "roleAlias": api.unique("scoped"), "sort": 9},
        )
    )["data"]["id"]
    rule = await api.post(
        "/api/blade-system/data-scope/submit",
        json={"resourceCode": resource, "scopeName": "own organisation", "scopeType": 3, "scopeColumn": "create_dept"},
    )
    assert rule["code"] == 200, rule
    codes = (*buttons, *menus)  # by default the menus that show vehicles and their commands
    async with api.db.sessionmaker() as s:
        menus = (await s.execute(select(Menu.id).where(Menu.code.in_(codes), Menu.is_deleted == 0))).scalars().all()
    assert len(menus) == len(codes), f"menus {codes}: {len(menus)} found"
    grant = {"roleIds": [role], "menuIds": [str(m) for m in menus], "dataScopeIds": [rule["data"]["id"]]}
    assert (await api.post("/api/blade-system/role/grant", json=grant))["code"] == 200
    account, password = api.unique("scoped"), "scoped-pass"
    user = await api.post(
        "/api/blade-user/submit",
        json={"account": account, "password": password, "name": "S", "realName": "S", "roleId": role, "deptId": dept},
    )
    assert user["code"] == 200, user
    try:
        yield {"who": account, "password": password}
    finally:
        await api.post("/api/blade-system/data-scope/remove", params={"ids": rule["data"]["id"]})
