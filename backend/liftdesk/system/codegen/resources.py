"""Code generation (``/api/blade-develop/code``) and the report designer's saved definitions
(``/api/blade-report/report/rest``): platform-wide tools of the platform administrator, as in BladeX.

``gen-code`` answers a zip of the four files of each chosen record (``generate``): unzipped at the repository's root,
the resource registers itself (``liftdesk.generated``), its migration follows the current head and its web
configuration sits beside the others.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from fastapi.responses import Response
from pydantic import ValidationError
from sqlalchemy import inspect

from liftdesk.core import crud
from liftdesk.core.crud import Ctx
from liftdesk.core.db import Base
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.registry import REGISTRY
from liftdesk.core.resource import Hooks, Resource
from liftdesk.migrate import alembic_config
from liftdesk.system.codegen import generate as gen
from liftdesk.system.codegen import models as m
from liftdesk.system.codegen import schemas as s

ADMINISTRATOR_ONLY = ("administrator",)
ZIP = "application/zip"


async def _table_exists(ctx: Ctx, table: str) -> bool:
    if table in Base.metadata.tables:
        return True

    def names(sync: Any) -> list[str]:
        return list(inspect(sync.connection()).get_table_names())

    return table in await ctx.session.run_sync(names)


def _package_taken(package: str) -> bool:
    taken = {r.name for r in REGISTRY} | {r.code for r in REGISTRY}
    return package in taken or importlib.util.find_spec(f"liftdesk.generated.{package}") is not None


def _changed(obj: Any, column: str) -> bool:
    return bool(inspect(obj).attrs[column].history.has_changes())


class CodeHooks(Hooks):
    """Columns once each, one of them text (the label); a prefix must begin the table; the table must be new and the
    package free (checked when they are set)."""

    async def before_save(self, ctx: Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        columns = [f["column"] for f in obj.fields]
        twice = next((c for i, c in enumerate(columns) if c in columns[:i]), None)
        if twice is not None:
            raise ServiceError(t("codegen_column_twice", name=twice))
        if not any(f["type"] == "string" for f in obj.fields):
            raise ServiceError(t("codegen_needs_string"))
        prefix = obj.table_prefix
        if prefix and (not obj.table_name.startswith(prefix) or obj.table_name == prefix):
            raise ServiceError(t("codegen_prefix", prefix=prefix))
        if (creating or _changed(obj, "table_name")) and await _table_exists(ctx, obj.table_name):
            raise ServiceError(t("codegen_table_exists", name=obj.table_name))
        if (creating or _changed(obj, "package_name")) and _package_taken(obj.package_name):
            raise ServiceError(t("codegen_package_taken", name=obj.package_name))


CODE = Resource(
    name="code",
    model=m.Code,
    prefix="/api/blade-develop/code",
    schema_in=s.CodeIn,
    schema_out=s.CodeOut,
    code="code",
    label="code_name",
    read_roles=ADMINISTRATOR_ONLY,
    write_roles=ADMINISTRATOR_ONLY,
    default_order=("-create_time",),
    hooks=CodeHooks(),
)
REPORT_FILE = Resource(
    name="report_file",
    model=m.ReportFile,
    prefix="/api/blade-report/report/rest",
    schema_in=s.ReportFileIn,
    schema_out=s.ReportFileOut,
    code="report_file",
    # the spec's list and remove, and the detail the page opens a definition with
    ops={"list": "page", "detail": "detail", "remove": "remove"},
    label="name",
    read_roles=ADMINISTRATOR_ONLY,
    write_roles=ADMINISTRATOR_ONLY,
    default_order=("-update_time",),
)


def migration_heads() -> list[str]:
    """The heads of the project's migrations: what a generated migration follows (alembic's script machinery is
    imported here, on a generation, not with the app: its import logs its plugins)."""
    from alembic.script import ScriptDirectory

    return sorted(ScriptDirectory.from_config(alembic_config("")).get_heads())


def _checked(row: m.Code) -> s.CodeIn:
    try:
        return s.CodeIn.model_validate(row)
    except ValidationError as exc:  # a record saved under older rules
        raise ServiceError(f"{row.code_name}: {crud.validation_text(exc)}") from exc


@CODE.action(
    "POST",
    "gen-code",
    permission="code_gen",
    kind="export",
    query=s.GenQuery,
    raw=True,
    summary="Generate the code of records: a zip of each one's resource declaration, schemas, migration and web page",
    openapi={"responses": {"200": {"description": "the generated files", "content": {ZIP: {}}}}},
)
async def gen_code(ctx: Ctx, query: s.GenQuery) -> Response:
    idents = crud.parse_ids(query.ids)
    rows: Sequence[m.Code] = (
        (await ctx.session.execute(ctx.scope.select(m.Code).where(m.Code.id.in_(idents)).order_by(m.Code.id)))
        .scalars()
        .all()
    )
    if len(rows) != len(set(idents)):
        raise ServiceError(t("not_found"))
    codes = [(_checked(r), r.id) for r in rows]
    packages = [c.package_name for c, _ in codes]
    tables = [c.table_name for c, _ in codes]
    if len(set(packages)) != len(packages) or len(set(tables)) != len(tables):
        raise ServiceError(t("codegen_same_twice"))
    heads = migration_heads()
    files: list[gen.Generated] = []
    for code, ident in codes:
        files += gen.generate(code, ident, heads)
        heads = [gen.revision_of(code.table_name)]  # the next record's migration follows this one
    stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    name = packages[0] if len(packages) == 1 else "liftdesk-code"
    return Response(
        gen.zip_of(files),
        media_type=ZIP,
        headers={"Content-Disposition": f'attachment; filename="{name}-{stamp}.zip"'},
    )


@CODE.action("POST", "copy", permission="code_copy", query=s.CopyQuery, answer=s.CodeOut, summary="Copy a record")
async def copy_code(ctx: Ctx, query: s.CopyQuery) -> dict[str, Any]:
    source = await crud.get_scoped(ctx, crud.parse_id(query.id))
    assert isinstance(source, m.Code)
    suffix = t("codegen_copy")
    copy = m.Code(
        code_name=(source.code_name[: 64 - len(suffix)] + suffix),
        service_name=source.service_name,
        table_name=source.table_name,
        table_prefix=source.table_prefix,
        entity_name=source.entity_name,
        package_name=source.package_name,
        fields=[dict(f) for f in source.fields],
        remark=source.remark,
    )
    ctx.scope.stamp(copy, creating=True)
    ctx.session.add(copy)
    await ctx.session.flush()
    await ctx.session.refresh(copy)
    return crud.serialise(CODE, [copy])[0]


RESOURCES = (
    CODE,
    REPORT_FILE,
)
