"""The composition root: settings → database → routers → the web app."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from liftdesk import __version__
from liftdesk.core.audit import AuditLog, AuditWriter
from liftdesk.core.config import Settings, get_settings
from liftdesk.core.db import Database
from liftdesk.core.envelope import fail_body, install_error_handlers
from liftdesk.core.http import CatchAll, RequestGuard, SecurityHeaders
from liftdesk.core.i18n import parse_language, set_language, t
from liftdesk.core.manifest import install as install_manifest
from liftdesk.core.process import tune_gc
from liftdesk.core.registry import Context, Registry, build
from liftdesk.core.router import mount
from liftdesk.core.services import Services


class LanguageMiddleware:
    """Sets the request's language (``Accept-Language``) for server messages."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            header = dict(scope.get("headers") or []).get(b"accept-language", b"").decode("latin-1")
            set_language(header or None)
        await self.app(scope, receive, send)


def operation_id(route: APIRoute) -> str:
    tag = route.tags[0] if route.tags else "default"
    return f"{tag}-{route.name}"


def contexts() -> tuple[Context, ...]:
    """The contexts of the app, upstream first: each brings its resources, its subscriptions to the events of those
    upstream of it and the ports it implements (``core.registry.Context``); the code generator's resources last."""
    from liftdesk import generated
    from liftdesk.fleet.context import CONTEXT as FLEET
    from liftdesk.reporting.context import CONTEXT as REPORTING
    from liftdesk.system.context import CONTEXT as SYSTEM
    from liftdesk.telemetry.context import CONTEXT as TELEMETRY

    return (SYSTEM, FLEET, TELEMETRY, REPORTING, generated.context())


def build_registry() -> Registry:
    """The app's registry, built from :func:`contexts` (once per process; again, the same registry)."""
    return build(contexts())


def create_app(
    settings: Settings | None = None, db: Database | None = None, services: bool = False, role: str = "all"
) -> FastAPI:
    """The web app. ``services`` also runs what the process's ``role`` runs beside the API (see :class:`Runtime`):
    for ``all``, the telemetry pipeline writer, the live hub, the command service, the jobs, the terminal gateway,
    the MQTT adapter and the simulated fleet (as the settings ask)."""
    settings = settings or get_settings()
    registry = build_registry()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = Runtime(app, settings, role)
        app.state.runtime = runtime
        await app.state.audit.start()
        await report_unusable_rules(app.state.db)
        if services:
            await runtime.start()
        try:
            yield
        finally:
            await runtime.stop()
            await app.state.audit.stop()
            if db is None:
                await app.state.db.dispose()

    app = FastAPI(
        title="Liftdesk",
        version=__version__,
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
        description="Fleet back office API (BladeX-compatible envelope, paging and routes).",
    )
    app.state.settings = settings
    app.state.db = db or Database(settings)
    # The API and error logs, written off the request path (``core.audit``).
    app.state.audit = AuditWriter(app.state.db)
    wire_telemetry(app, settings)
    # Outermost first on the way in: headers on every answer, then the language, then the API log, then the 500
    # envelope that keeps the connection (and writes the error log), then the body guard (size and NUL bytes) right
    # before the routes.
    app.add_middleware(RequestGuard)
    app.add_middleware(CatchAll, writer=app.state.audit)
    app.add_middleware(AuditLog, writer=app.state.audit)
    app.add_middleware(LanguageMiddleware)
    app.add_middleware(SecurityHeaders)
    install_error_handlers(app)

    from liftdesk.system.api.public import router as public_router
    from liftdesk.telemetry.live import document_feed
    from liftdesk.telemetry.live import router as live_router

    app.include_router(public_router)
    app.include_router(live_router)
    mount(app, registry)
    install_manifest(app, document_feed)
    _mount_web(app, settings.web_dir)
    return app


async def report_unusable_rules(db: Database) -> list[str]:
    """The start-up check of the stored data rules: each that can admit no row (its resource has no table of its
    own, or its column is not the model's) is logged; the scope admits no row with it (``core.scope``)."""
    from sqlalchemy.exc import SQLAlchemyError

    from liftdesk.system.service import unusable_rules

    try:
        async with db.sessionmaker() as session:
            problems = await unusable_rules(session)
    except SQLAlchemyError:  # a database not migrated yet (``liftdesk serve`` migrates before it starts the app)
        return []
    for problem in problems:
        logging.getLogger("liftdesk").warning("%s: it admits no row; fix or remove it under 数据权限", problem)
    return problems


def wire_telemetry(app: FastAPI, settings: Settings) -> None:
    """The bus and the services every process has (the API publishes to the bus, reads the live hub, creates
    commands): ``app.state.services`` (``core.services``), which handlers are given."""
    from liftdesk.core.bus import Bus, LocalBus, RedisBus
    from liftdesk.fleet.service import FENCE_CHANGED, VEHICLE_CHANGED
    from liftdesk.system.service import SETTINGS_CHANGED
    from liftdesk.telemetry.commands import CommandService
    from liftdesk.telemetry.jobs import OFFLINE_TOPIC, RETENTION_TOPIC
    from liftdesk.telemetry.live import LiveHub
    from liftdesk.telemetry.pipeline import Pipeline
    from liftdesk.telemetry.terminals import TerminalService

    bus: Bus = RedisBus(settings.redis_url, prefix=settings.redis_prefix) if settings.redis_url else LocalBus()
    app.state.bus = bus
    db = app.state.db
    pipeline = Pipeline(db, bus, tz_minutes=settings.tz_offset_minutes)
    services = Services(settings, db, bus)
    services.add(pipeline)
    services.add(LiveHub(db, bus))
    services.add(CommandService(db, bus))
    services.add(
        TerminalService(
            db,
            auto_register_tenants=frozenset({settings.auto_register_tenant} - {""}),
            strict_auth=settings.strict_terminal_auth,
            bus=bus,
        )
    )
    app.state.services = services

    async def _vehicle_changed(msg: dict[str, object]) -> None:
        pipeline.forget(str(msg.get("deviceNumber") or "") or None)

    async def _fence_changed(msg: dict[str, object]) -> None:
        devices = msg.get("deviceNumbers")
        for device in devices if isinstance(devices, list) else ():
            if device:
                pipeline.forget(str(device))

    bus.subscribe(VEHICLE_CHANGED, _vehicle_changed)
    bus.subscribe(FENCE_CHANGED, _fence_changed)
    # What the pipeline caches must follow what the jobs and the settings pages change (possibly in another process).
    bus.subscribe(OFFLINE_TOPIC, pipeline.on_offline)
    bus.subscribe(RETENTION_TOPIC, pipeline.on_retention)
    bus.subscribe(SETTINGS_CHANGED, pipeline.on_settings_changed)


#: The roles of a process (``liftdesk serve|api|gateway|worker``). ``all`` is one process doing everything (``make
#: run``). Split, the processes share the database and the bus (Redis, ``LIFTDESK_REDIS_URL``): ``api`` serves HTTP
#: and the live feed, creates commands and waits for their answers; ``gateway`` holds the terminals' connections
#: (JT/T 808, MQTT), runs the pipeline and sends the commands; ``worker`` runs the scheduled jobs.
ROLES = ("all", "api", "gateway", "worker")


class Runtime:
    """Starts and stops the long-running parts of a server process, in order, as its role asks."""

    def __init__(self, app: FastAPI, settings: Settings, role: str = "all", member: int | None = None) -> None:
        if role not in ROLES:
            raise ValueError(f"role: {role!r} is not one of {', '.join(ROLES)}")
        self.app = app
        self.settings = settings
        self.role = role
        #: One of several gateway processes on one port (``liftdesk gateway --processes N``): its index.
        self.member = member
        self.started: list[object] = []

    @property
    def serves_http(self) -> bool:
        return self.role in ("all", "api")

    @property
    def holds_terminals(self) -> bool:
        return self.role in ("all", "gateway")

    async def start(self) -> None:
        from liftdesk.fleet.reminders import ReminderJob
        from liftdesk.telemetry.commands import CommandService
        from liftdesk.telemetry.jobs import Jobs
        from liftdesk.telemetry.live import LiveHub
        from liftdesk.telemetry.pipeline import Pipeline

        services: Services = self.app.state.services
        commands = services.get(CommandService)
        if self.role != "all" and not self.settings.redis_url:
            logging.getLogger("liftdesk").warning(
                "role %s without LIFTDESK_REDIS_URL: commands, their answers and live updates stay in this process",
                self.role,
            )
        await services.bus.start()
        self.started.append(services.bus)
        parts: list[Any] = []
        if self.serves_http or self.holds_terminals:
            parts.append(services.get(Pipeline))  # the terminals' data, and HTTP ingest (``/api/liftdesk/ingest``)
        if self.serves_http:
            parts.append(services.get(LiveHub))
        if self.role in ("all", "worker"):
            parts.append(Jobs(services.db, services.bus, commands=commands))  # with the card lists' daily re-check
            parts.append(ReminderJob(services.db))  # drivers' licence and paper expiry reminders (daily, idempotent)
        for part in parts:
            await part.start()
            self.started.insert(0, part)
        if self.serves_http or self.holds_terminals:
            # Only the process holding the terminals' connections sends commands, so only it may take back what a
            # previous one left in flight (``recover``) and sweep the queue; an API process creates and waits.
            # Several gateway processes: their supervisor recovered before starting them; each sweeps.
            await commands.start(recover=self.holds_terminals and self.member is None, sweep=self.holds_terminals)
            self.started.insert(0, commands)
        if self.holds_terminals:
            await self._start_terminals()
        tune_gc()

    async def _start_terminals(self) -> None:
        """The terminals' way in: the JT/T 808 gateway (with the demo fleet in ``all``) and the MQTT adapter."""
        from liftdesk.telemetry.commands import CommandService
        from liftdesk.telemetry.gateway.server import DAY_S, Gateway
        from liftdesk.telemetry.mqtt import MqttAdapter
        from liftdesk.telemetry.pipeline import Pipeline
        from liftdesk.telemetry.terminals import TerminalService

        services: Services = self.app.state.services
        cfg = self.settings
        pipeline, terminals = services.get(Pipeline), services.get(TerminalService)
        commands = services.get(CommandService)
        if cfg.gateway_port:
            gateway = Gateway(
                services.db,
                pipeline,
                terminals,
                commands,
                host=cfg.gateway_host,
                port=cfg.gateway_port,
                idle_timeout_s=cfg.gateway_idle_timeout_s,
                vendor_extension_makers=cfg.vendor_extension_makers,
                attributes_max_age_s=DAY_S,  # ask each terminal what it is (0x8107) at most once a day
                reuse_port=self.member is not None,  # the port is shared with the sibling gateway processes
            )
            gateway.follow(services.bus)  # a deleted or renumbered vehicle's terminal is disconnected at once
            await gateway.start()
            services.add(gateway)
            self.started.insert(0, gateway)
            if cfg.simulator_vehicles > 0 and self.role == "all":  # the demo fleet of ``make run``
                self.started.insert(0, await Simulator.start(gateway.port, cfg.simulator_vehicles))
        if cfg.mqtt_url and not self.member:  # one MQTT client (the first of several gateway processes)
            mqtt = MqttAdapter(cfg.mqtt_url, pipeline, terminals, commands, db=services.db, bus=services.bus)
            await mqtt.start()
            self.started.insert(0, mqtt)

    async def stop(self) -> None:
        for part in self.started:
            try:
                await part.stop()  # type: ignore[attr-defined]
            except Exception:
                logging.getLogger("liftdesk").exception("stopping %r failed", part)
        self.started = []


async def run_services(settings: Settings, role: str, stop: asyncio.Event, member: int | None = None) -> None:
    """A process without HTTP (``liftdesk gateway``, ``liftdesk worker``): the role's parts until ``stop`` is set;
    ``member``: the index of this gateway process among several on one port."""
    app = create_app(settings, role=role)
    runtime = Runtime(app, settings, role, member)
    app.state.runtime = runtime
    try:
        await runtime.start()
        logging.getLogger("liftdesk").info("liftdesk %s running", role)
        await stop.wait()
    finally:
        await runtime.stop()
        await app.state.db.dispose()


class Simulator:
    """The demo fleet of ``make run``: simulated terminals talking JT/T 808 to this process's gateway."""

    def __init__(self, task: asyncio.Task[object], stop_event: asyncio.Event) -> None:
        self.task = task
        self.stop_event = stop_event

    @classmethod
    async def start(cls, port: int, vehicles: int) -> Simulator:
        from liftdesk.telemetry.simulator import demo_specs, run_fleet

        stop_event = asyncio.Event()
        task: asyncio.Task[object] = asyncio.create_task(
            run_fleet("127.0.0.1", port, demo_specs(vehicles), stop_event=stop_event), name="simulator"
        )
        return cls(task, stop_event)

    async def stop(self) -> None:
        self.stop_event.set()
        try:
            await asyncio.wait_for(self.task, 10)
        except (TimeoutError, asyncio.CancelledError):
            self.task.cancel()


def _mount_web(app: FastAPI, web_dir: Path) -> None:
    """The built web app: its hashed files under ``/assets`` (cached for a year), the other files of ``web_dir`` and,
    for any other path (a route of the app), ``index.html`` (revalidated each time). Every file goes out in the best
    encoding the request accepts that the build wrote beside it (:class:`PrecompressedFiles`); a path that leaves
    ``web_dir`` is not found."""
    import posixpath

    from starlette.exceptions import HTTPException
    from starlette.requests import Request

    assets = PrecompressedFiles(directory=web_dir / "assets", cache_control=IMMUTABLE, check_dir=False)
    files = PrecompressedFiles(directory=web_dir, cache_control="no-cache", check_dir=False)

    async def serve(store: PrecompressedFiles, path: str, request: Request, fallback: str | None) -> Response:
        # as StaticFiles does: no "." or ".." left (and its lookup refuses whatever still leads out of its folder)
        clean = posixpath.normpath(path.strip("/")) if path.strip("/") else ""
        try:
            if clean and clean != ".":
                return await store.get_response(clean, request.scope)
        except HTTPException as exc:
            if exc.status_code != 404:
                raise
        if fallback is not None:
            try:
                return await store.get_response(fallback, request.scope)
            except HTTPException as exc:
                if exc.status_code != 404:
                    raise
            return JSONResponse(fail_body(404, "web app not built: run `make run` (or `make web`)"), status_code=404)
        return JSONResponse(fail_body(404, t("not_found")), status_code=404)

    async def asset(request: Request) -> Response:
        return await serve(assets, request.path_params["path"], request, None)

    async def spa(request: Request) -> Response:
        path = request.path_params["path"]
        if path.startswith("api/") or path == "api":
            return JSONResponse(fail_body(404, t("not_found")), status_code=404)
        return await serve(files, path, request, "index.html")

    # Plain Starlette routes (they take the request itself), after every API route: the last one catches the app's
    # own paths (/login, /wel/index, ...).
    app.add_route("/assets/{path:path}", asset, methods=["GET", "HEAD"], include_in_schema=False)
    app.add_route("/{path:path}", spa, methods=["GET", "HEAD"], include_in_schema=False)


#: The encodings of the files ``npm run build`` writes beside each text file of the web app (``app.js.br``,
#: ``app.js.gz``: frontend/scripts/compress.mjs), best first, with their file suffixes.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
#: Vite names every file it writes under ``/assets`` by a hash of its content: a new build gives new names.
IMMUTABLE = "public, max-age=31536000, immutable"


def accepted_encodings(header: str) -> set[str]:
    """The codings of :data:`ENCODINGS` an ``Accept-Encoding`` header allows (``q=0`` refuses one, ``*`` stands for
    those it does not name)."""
    allowed: dict[str, bool] = {}
    for part in header.split(","):
        name, *params = (piece.strip() for piece in part.split(";"))
        if not name:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        allowed[name.lower()] = q > 0
    star = allowed.pop("*", False)
    return {coding for coding, _ in ENCODINGS if allowed.get(coding, star)}


class PrecompressedFiles(StaticFiles):
    """Static files sent as the ``.br`` or ``.gz`` file beside them when there is one and the request accepts it
    (``br`` before ``gzip`` before the file itself), with ``Content-Encoding``, ``Vary: Accept-Encoding``, the
    original file's type and the given ``Cache-Control``. StaticFiles keeps the lookup inside the directory (no
    ``..``, no link out of it) and answers ``If-None-Match`` with 304 (each encoding has its own ETag)."""

    def __init__(self, *, cache_control: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cache_control = cache_control

    def file_response(self, full_path: Any, stat_result: Any, scope: Any, status_code: int = 200) -> Response:
        import mimetypes
        import os
        import stat as stat_module

        from starlette.datastructures import Headers
        from starlette.staticfiles import NotModifiedResponse

        request_headers = Headers(scope=scope)
        original = os.fspath(full_path)
        media_type, encoding = mimetypes.guess_type(original)
        if encoding or not media_type:  # a .br or .gz file asked for by its own name is just bytes
            media_type = "application/octet-stream"
        headers = {"Cache-Control": self.cache_control, "Vary": "Accept-Encoding"}
        served, stat = original, stat_result
        accepted = accepted_encodings(request_headers.get("accept-encoding", ""))
        for coding, suffix in ENCODINGS:
            if coding not in accepted:
                continue
            try:
                sibling = os.stat(original + suffix)
            except OSError:
                continue
            if stat_module.S_ISREG(sibling.st_mode):
                served, stat = original + suffix, sibling
                headers["Content-Encoding"] = coding
                break
        response = FileResponse(
            served, status_code=status_code, media_type=media_type, headers=headers, stat_result=stat
        )
        if self.is_not_modified(response.headers, request_headers):
            return NotModifiedResponse(response.headers)
        return response


__all__ = ["create_app", "parse_language"]
