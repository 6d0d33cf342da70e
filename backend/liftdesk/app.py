"""The composition root: settings → database → routers → the web app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from liftdesk import __version__
from liftdesk.core.config import Settings, get_settings
from liftdesk.core.db import Database
from liftdesk.core.envelope import fail_body, install_error_handlers
from liftdesk.core.i18n import parse_language, set_language, t
from liftdesk.core.router import mount_resources


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


def load_contexts() -> None:
    """Import every context so that its resources register before the registry freezes."""
    import liftdesk.fleet.resources
    import liftdesk.system.resources
    import liftdesk.telemetry.models  # noqa: F401


def create_app(settings: Settings | None = None, db: Database | None = None, services: bool = False) -> FastAPI:
    """The web app. ``services`` also runs what a full server runs beside the API: the telemetry pipeline writer,
    the live hub, the terminal gateway, the MQTT adapter and the simulated fleet (as the settings ask)."""
    settings = settings or get_settings()
    load_contexts()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = Runtime(app, settings)
        app.state.runtime = runtime
        if services:
            await runtime.start()
        try:
            yield
        finally:
            await runtime.stop()
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
    wire_telemetry(app, settings)
    app.add_middleware(LanguageMiddleware)
    install_error_handlers(app)

    from liftdesk.fleet.api import router as fleet_router
    from liftdesk.system.api import router as system_router
    from liftdesk.telemetry.live import router as live_router

    app.include_router(system_router)
    app.include_router(fleet_router)
    app.include_router(live_router)
    mount_resources(app)
    _mount_web(app, settings.web_dir)
    return app


def wire_telemetry(app: FastAPI, settings: Settings) -> None:
    """The telemetry objects every process has (the API publishes to the bus and reads the live hub)."""
    from liftdesk.core.bus import make_bus
    from liftdesk.fleet.service import VEHICLE_CHANGED
    from liftdesk.telemetry.live import LiveHub
    from liftdesk.telemetry.pipeline import Pipeline

    bus = make_bus(settings.redis_url)
    app.state.bus = bus
    app.state.pipeline = Pipeline(app.state.db, bus, tz_minutes=settings.tz_offset_minutes)
    app.state.live = LiveHub(app.state.db, bus)

    async def _vehicle_changed(msg: dict[str, object]) -> None:
        app.state.pipeline.forget(str(msg.get("deviceNumber") or "") or None)

    bus.subscribe(VEHICLE_CHANGED, _vehicle_changed)


class Runtime:
    """Starts and stops the long-running parts of a server process, in order."""

    def __init__(self, app: FastAPI, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.started: list[object] = []

    async def start(self) -> None:
        state = self.app.state
        await state.bus.start()
        await state.pipeline.start()
        await state.live.start()
        from liftdesk.telemetry.jobs import Jobs

        jobs = Jobs(state.db)
        await jobs.start()
        self.started = [jobs, state.live, state.pipeline, state.bus]

    async def stop(self) -> None:
        for part in self.started:
            await part.stop()  # type: ignore[attr-defined]
        self.started = []


def _mount_web(app: FastAPI, web_dir: Path) -> None:
    index = web_dir / "index.html"
    assets = web_dir / "assets"
    if assets.is_dir():
        app.mount("/assets", StaticFiles(directory=assets), name="assets")

    @app.get("/{path:path}", include_in_schema=False)
    def spa(path: str) -> Response:
        if path.startswith("api/") or path == "api":
            return JSONResponse(fail_body(404, t("not_found")), status_code=404)
        candidate = (web_dir / path).resolve()
        if path and candidate.is_file() and web_dir.resolve() in candidate.parents:
            return FileResponse(candidate)
        if index.is_file():
            return FileResponse(index, headers={"Cache-Control": "no-cache"})
        return JSONResponse(fail_body(404, "web app not built: run `make run` (or `make web`)"), status_code=404)


__all__ = ["create_app", "parse_language"]
