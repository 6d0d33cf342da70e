"""Import and export of a resource's rows as spreadsheets: two more kinds of action.

``Resource.exporter`` declares a GET that answers an .xlsx of the resource's list with the list's own filters (the
same query parameters as its page call, through the same scope), at most ``MAX_EXPORT`` rows.

``Resource.importer`` declares a POST taking a multipart ``file`` (.xls or .xlsx only) and ``isCovered`` (1: a row
whose key matches an existing row updates it; 0: such a row is reported, not changed), plus a GET for the template
(the header row). Each data row is validated and saved like a ``submit`` of the resource (its schema, hooks and
uniqueness rules): good rows are saved, bad rows are reported with their row number and the message; one bad row
does not stop the others. A file of more than ``INLINE_ROWS`` rows is processed in the background: the answer
carries a ``jobId`` whose progress (done / total, the report so far) is read from the progress call.

A resource whose spreadsheet is not its ``submit`` body (names instead of ids, a value the server makes) gives the
importer an :class:`ImportPlan`: each row goes through its ``prepare`` before it is saved (a ServiceError there is
the row's error, like any other) and its ``saved`` after, in the row's transaction.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import io
import json
import multiprocessing
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from fastapi import UploadFile
from fastapi.responses import Response
from pydantic import Field, ValidationError

from liftdesk.core import crud
from liftdesk.core.context import Ctx
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import current_language, set_language, t
from liftdesk.core.kv import KV
from liftdesk.core.paging import PageQuery, snake_to_camel
from liftdesk.core.resource import Resource
from liftdesk.core.schemas import Schema, format_time
from liftdesk.core.services import Services

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
XLS = "application/vnd.ms-excel"
#: The import's file in the document: a spreadsheet, named .xlsx or .xls (``read_table`` goes by the name). What the
#: file holds (a workbook with the template's header) is beyond what a schema says.
UPLOAD_DOCUMENT: dict[str, Any] = {
    "requestBody": {
        "content": {
            "multipart/form-data": {
                "encoding": {
                    "file": {
                        "contentType": f"{XLSX}, {XLS}",
                        "headers": {
                            "Content-Disposition": {
                                "description": "the file's name ends in .xlsx or .xls",
                                "schema": {
                                    "type": "string",
                                    "pattern": r'filename="[^"]*\.[Xx][Ll][Ss][Xx]?"',
                                    "example": 'form-data; name="file"; filename="import.xlsx"',
                                },
                            }
                        },
                    }
                }
            }
        }
    }
}
MAX_EXPORT = 50_000
MAX_IMPORT = 20_000
INLINE_ROWS = 200
MAX_FILE = 10 * 1024 * 1024
#: What reading one import may cost, whatever its file declares: rows (the header and MAX_IMPORT rows of data),
#: columns holding a value, cells (``<c>`` elements, empty ones too) and the bytes its archive unpacks to.
MAX_ROWS = MAX_IMPORT + 1
MAX_COLUMNS = 64
MAX_CELLS = 500_000
MAX_UNPACKED = 64 * 1024 * 1024
#: Spreadsheets read at once per server process (``read_rows``: each in a process of its own, at most
#: ``PARSER_MEMORY`` bytes of address space, ``PARSER_CPU_S`` seconds of processor time); more wait.
PARSERS = 2
PARSER_MEMORY = 2 * 1024 * 1024 * 1024
PARSER_CPU_S = 120
_PARSER: concurrent.futures.ProcessPoolExecutor | None = None
_JOB_TTL = timedelta(hours=2)
# Background imports run as tasks of this process; kept here so that they are not garbage-collected mid-way.
_TASKS: set[asyncio.Task[None]] = set()


@dataclass(frozen=True)
class Column:
    """One spreadsheet column: the row field (snake case, as the answer schema names it) and its header."""

    field: str
    zh: str
    en: str
    #: Exported from this field instead (a name the list adds, e.g. ``mechanism_name`` for ``mechanism_id``).
    shown: str | None = None

    @property
    def header(self) -> str:
        return self.en if current_language() == "en" else self.zh


class CoverQuery(Schema):
    is_covered: int = Field(default=0, ge=0, le=1, description="1: rows matching an existing key update it")


class JobQuery(Schema):
    job_id: str = Field(min_length=1, max_length=64)


class RowError(Schema):
    row: int
    message: str


class ImportReport(Schema):
    job_id: str
    total: int
    done: int = 0
    created: int = 0
    updated: int = 0
    failed: int = 0
    finished: bool = False
    errors: list[RowError] = Field(default_factory=list)


class ImportPlan(Protocol):
    """What a resource does with its spreadsheet's rows around saving them (see the module's notes)."""

    async def prepare(self, ctx: Ctx, values: dict[str, Any]) -> dict[str, Any]:
        """The row as ``submit`` takes it (camelCase keys); a ServiceError refuses the row with its message."""

    async def saved(self, ctx: Ctx, row: dict[str, Any], created: bool) -> None:
        """After the row was saved (``row`` as ``submit`` answers it), before its transaction commits."""


#: Makes the plan of one import, in the session that runs it (it may read what it needs once: names, labels).
PlanOf = Callable[["Ctx"], Awaitable[ImportPlan]]


def _cell(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        # A worksheet holds no control characters (openpyxl refuses them): a text saved with one exports without it.
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        return ILLEGAL_CHARACTERS_RE.sub("", value)
    return value


#: How a text a spreadsheet would evaluate begins (a formula, or DDE in older readers).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _row(sheet: Any, values: Sequence[Any]) -> list[Any]:
    """A row to append: a text beginning like a formula goes in as text (openpyxl writes ``=...`` as a formula
    otherwise), marked with Excel's quote prefix so that editing the cell keeps it text."""
    from openpyxl.cell import WriteOnlyCell

    out: list[Any] = []
    for value in values:
        value = _cell(value)
        if isinstance(value, str) and value.startswith(FORMULA_START):
            cell = WriteOnlyCell(sheet, value=value)
            cell.data_type = "s"
            cell.quotePrefix = True
            value = cell
        out.append(value)
    return out


def workbook(columns: Sequence[Column], rows: Sequence[dict[str, Any]]) -> bytes:
    """The one writer of every .xlsx the server answers (exports, reports, templates): no cell is a formula."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet()
    sheet.append(_row(sheet, [c.header for c in columns]))
    for row in rows:
        sheet.append(_row(sheet, [row.get(c.shown or c.field) for c in columns]))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def xlsx_response(data: bytes, filename: str) -> Response:
    from urllib.parse import quote

    return Response(
        data,
        media_type=XLSX,
        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(filename)}.xlsx"},
    )


def read_table(filename: str, data: bytes) -> list[list[Any]]:
    """The rows of the first sheet of an .xlsx or .xls file (400 for any other file, or one past a limit).

    Runs in a reader process (:func:`read_rows`). What the file says of itself (a sheet's ``<dimension>``, an
    .xls's row count) is not believed: rows and cells are counted as they are read, and reading stops with a 400
    naming the limit as soon as one is passed (``MAX_ROWS`` rows, ``MAX_COLUMNS`` columns, ``MAX_CELLS`` cells,
    ``MAX_UNPACKED`` bytes unpacked), so a small crafted file costs no more than a large honest one."""
    name = filename.lower()
    try:
        if name.endswith(".xlsx"):
            return _read_xlsx(data)
        if name.endswith(".xls"):
            return _read_xls(data)
    except ServiceError:
        raise
    except Exception as exc:  # a damaged or disguised file: the user's 400, whatever the reader raised
        raise ServiceError(t("import_unreadable")) from exc
    raise ServiceError(t("import_type"))


def _limit(key: str, limit: int) -> ServiceError:
    return ServiceError(t(key, field="file", limit=limit))


def _read_xlsx(data: bytes) -> list[list[Any]]:
    import zipfile

    from openpyxl.reader.excel import ExcelReader
    from openpyxl.styles.stylesheet import apply_stylesheet
    from openpyxl.worksheet._reader import WorkSheetParser

    with zipfile.ZipFile(io.BytesIO(data)) as archive:  # the sizes a reader would unpack (shared strings at once)
        if sum(info.file_size for info in archive.infolist()) > MAX_UNPACKED:
            raise _limit("import_unpacked", MAX_UNPACKED // (1024 * 1024))
    # openpyxl's load_workbook reads every sheet once for its size when it does not declare one (and its rows then
    # pad every row to the declared <dimension>: A1:XFD1048576 is a billion cells before the first row is seen).
    # The workbook's parts are read here as load_workbook reads them, and the first sheet's rows from its parser,
    # each cell counted.
    reader = ExcelReader(io.BytesIO(data), read_only=True, data_only=True)
    try:
        reader.read_manifest()
        reader.read_strings()
        reader.read_workbook()
        reader.read_theme()
        apply_stylesheet(reader.archive, reader.wb)  # which number formats are dates
        sheets = [
            rel.target
            for _, rel in reader.parser.find_sheets()
            if rel.target in reader.valid_files and "chartsheet" not in rel.Type
        ]
        if not sheets:
            raise ServiceError(t("import_empty"))
        table: list[list[Any]] = []
        rows = cells = 0
        with reader.archive.open(sheets[0]) as source:
            book = reader.wb
            parser = WorkSheetParser(
                source,
                reader.shared_strings,
                data_only=True,
                epoch=book.epoch,
                date_formats=book._date_formats,
                timedelta_formats=book._timedelta_formats,
            )
            for number, row in parser.parse():
                rows += 1
                cells += len(row)
                if number > MAX_ROWS or rows > MAX_ROWS:
                    raise _limit("import_rows", MAX_ROWS)
                if cells > MAX_CELLS:
                    raise _limit("import_cells", MAX_CELLS)
                values: list[Any] = []
                for cell in row:
                    if cell["value"] is None:
                        continue
                    column = cell["column"]
                    if column > MAX_COLUMNS:
                        raise _limit("import_columns", MAX_COLUMNS)
                    values.extend([None] * (column - len(values)))
                    values[column - 1] = cell["value"]
                if number <= len(table):  # a row given twice, or out of order: the first one counts
                    continue
                table.extend([] for _ in range(number - 1 - len(table)))
                table.append(values)
        return table
    finally:
        reader.archive.close()


def _read_xls(data: bytes) -> list[list[Any]]:
    import xlrd

    # ragged rows: xlrd otherwise pads every row to the widest one
    xbook = xlrd.open_workbook(file_contents=data, on_demand=True, ragged_rows=True)
    xsheet = xbook.sheet_by_index(0)
    if xsheet.nrows > MAX_ROWS:
        raise _limit("import_rows", MAX_ROWS)
    cells = 0
    table: list[list[Any]] = []
    for i in range(xsheet.nrows):
        width = xsheet.row_len(i)
        cells += width
        if cells > MAX_CELLS:
            raise _limit("import_cells", MAX_CELLS)
        values = xsheet.row_values(i)
        if width > MAX_COLUMNS and any(v not in (None, "") for v in values[MAX_COLUMNS:]):
            raise _limit("import_columns", MAX_COLUMNS)
        table.append(values[:MAX_COLUMNS])
    return table


def _limit_reader() -> None:
    """A reading process's address space and processor time are capped: a file that gets past the counts (a
    shared-strings table of millions of entries, say) ends its reader, not the machine."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (PARSER_MEMORY, PARSER_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (PARSER_CPU_S, PARSER_CPU_S + 1))


def _rows_in(language: str, filename: str, data: bytes, columns: Sequence[Column]) -> list[tuple[int, dict[str, Any]]]:
    set_language(language)
    return rows_of(columns, read_table(filename, data))


def _parser() -> concurrent.futures.ProcessPoolExecutor:
    global _PARSER
    if _PARSER is None:
        # forkserver: a reader is forked from a server process that imported this module once (no interpreter to
        # start per file, and nothing inherited from the server's threads); each reader reads one file, so that its
        # processor time is the file's
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        _PARSER = concurrent.futures.ProcessPoolExecutor(
            PARSERS, mp_context=context, initializer=_limit_reader, max_tasks_per_child=1
        )
    return _PARSER


async def read_rows(filename: str, data: bytes, columns: Sequence[Column]) -> list[tuple[int, dict[str, Any]]]:
    """The data rows of an uploaded spreadsheet (:func:`read_table`, :func:`rows_of`), read off the event loop in
    one of ``PARSERS`` processes (more imports at once wait their turn): the API keeps answering while a file is
    read. Not a thread: reading is Python code holding the interpreter's lock, and the event loop then waited for
    it at every step of every other request (a health call took over 200 ms while a 20,000-row file was read;
    ``bench/import_flood.py``). Messages are in the caller's language."""
    global _PARSER
    pool = _parser()
    language = current_language()

    def submit() -> concurrent.futures.Future[list[tuple[int, dict[str, Any]]]]:
        return pool.submit(_rows_in, language, filename, data, tuple(columns))

    try:
        # submitted from a thread: submitting may start the fork server (it imports this module) and a reader,
        # and waits for them
        job = await asyncio.to_thread(submit)
        return await asyncio.wrap_future(job)
    except concurrent.futures.process.BrokenProcessPool as exc:  # a reader died (one of its caps): a new pool next
        if _PARSER is pool:
            _PARSER = None
        raise ServiceError(t("import_unreadable")) from exc


def _text(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return value.strip()
    return value


def rows_of(columns: Sequence[Column], table: list[list[Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Data rows as (spreadsheet row number, {camelCase field: value}); headers match a column's zh or en header
    or its field name. An empty row is skipped; a file without a known header is refused."""
    if not table:
        raise ServiceError(t("import_empty"))
    known: dict[str, Column] = {}
    for c in columns:
        for name in (c.zh, c.en, c.field, snake_to_camel(c.field)):
            known[name.strip().lower()] = c
    header = [known.get(str(h or "").strip().lower()) for h in table[0]]
    if not any(header):
        raise ServiceError(t("import_header", columns=", ".join(c.header for c in columns)))
    out = []
    for number, raw in enumerate(table[1:], start=2):
        values = {
            snake_to_camel(col.field): _text(v)
            for col, v in zip(header, raw, strict=False)
            if col and v not in (None, "")
        }
        if values:
            out.append((number, values))
    if len(out) > MAX_IMPORT:
        raise ServiceError(t("too_many", field="file", limit=MAX_IMPORT))
    return out


async def _find(ctx: Ctx, key: Sequence[str], values: dict[str, Any]) -> int | None:
    res = ctx.resource
    wanted = {k: values.get(snake_to_camel(k)) for k in key}
    if any(v in (None, "") for v in wanted.values()):
        return None
    stmt = ctx.scope.select(res.entity).where(*(getattr(res.entity, k) == v for k, v in wanted.items()))
    row = (await ctx.session.execute(stmt.limit(1))).scalar_one_or_none()
    return getattr(row, "id", None)


async def import_rows(
    ctx: Ctx,
    key: Sequence[str],
    rows: list[tuple[int, dict[str, Any]]],
    covered: bool,
    report: ImportReport,
    kv: KV | None,
    plan_of: PlanOf | None = None,
) -> None:
    """Save the rows one by one as ``submit`` would (each in its own transaction; through the plan, if any),
    filling ``report``; with ``kv`` the report is stored after every 50 rows, for the progress call."""
    body_model = crud.update_schema(ctx.resource.input)
    plan = await plan_of(ctx) if plan_of is not None else None
    for number, given in rows:
        try:
            values = await plan.prepare(ctx, given) if plan is not None else given
            ident = await _find(ctx, key, values)
            if ident is not None and not covered:
                field = snake_to_camel(key[-1])
                raise ServiceError(t("duplicate", field=field, value=values.get(field)))
            body = body_model.model_validate({**values, "id": ident} if ident is not None else values)
            row = await crud.submit(ctx, body, "update" if ident is not None else "create")
            if plan is not None:
                await plan.saved(ctx, row, ident is None)
            await ctx.session.commit()  # a row is its own unit of work: a refused row leaves the others saved
            if ident is None:
                report.created += 1
            else:
                report.updated += 1
        except ValidationError as exc:
            await ctx.session.rollback()
            report.errors.append(RowError(row=number, message=crud.validation_text(exc)))
        except ServiceError as exc:
            await ctx.session.rollback()
            report.errors.append(RowError(row=number, message=exc.msg))
        report.done += 1
        report.failed = len(report.errors)
        if kv is not None and report.done % 50 == 0:
            await _store(kv, ctx, report)
    report.finished = True
    if kv is not None:
        await _store(kv, ctx, report)


def _job_key(ctx: Ctx, job_id: str) -> str:
    # The caller's tenant and user are part of the key: nobody else reads the report.
    return f"import:{ctx.scope.tenant_id}:{ctx.principal.user_id}:{job_id}"


async def _store(kv: KV, ctx: Ctx, report: ImportReport) -> None:
    await kv.set(_job_key(ctx, report.job_id), report.model_dump_json(), _JOB_TTL)
    await kv.session.commit()


async def start_import(
    ctx: Ctx,
    services: Services,
    key: Sequence[str],
    columns: Sequence[Column],
    upload: UploadFile,
    covered: bool,
    plan_of: PlanOf | None = None,
) -> ImportReport:
    data = await upload.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise ServiceError(t("body_too_large", limit=MAX_FILE // 1024))
    rows = await read_rows(upload.filename or "", data, columns)
    report = ImportReport(job_id=uuid.uuid4().hex, total=len(rows))
    if len(rows) <= INLINE_ROWS:
        await import_rows(ctx, key, rows, covered, report, None, plan_of)
        return report
    # A large file: answer at once and go on in the background with a session of its own.
    db = services.db
    await _store(KV(ctx.session), ctx, report)

    async def run() -> None:
        async with db.sessionmaker() as session:
            job = await type(ctx).build(session, ctx.principal, ctx.resource, {"tenantId": ctx.scope.tenant_id})
            kv = KV(session)
            try:
                await import_rows(job, key, rows, covered, report, kv, plan_of)
            except Exception as exc:  # the report says so; the log has the trace
                import logging

                logging.getLogger("liftdesk").exception("import %s failed", report.job_id)
                await session.rollback()
                report.errors.append(RowError(row=0, message=str(exc)[:200]))
                report.finished = True
                await _store(kv, job, report)

    task = asyncio.get_running_loop().create_task(run())
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)
    return report


async def import_progress(ctx: Ctx, job_id: str) -> ImportReport:
    text = await KV(ctx.session).get(_job_key(ctx, job_id))
    if text is None:
        raise ServiceError(t("not_found"))
    return ImportReport.model_validate(json.loads(text))


async def export_rows(ctx: Ctx) -> list[dict[str, Any]]:
    """The resource's list as its page call gives it (filters, scope, order, view fields), at most MAX_EXPORT."""
    return await crud.all_rows(ctx, PageQuery(current=1, size=MAX_EXPORT, ascs="", descs=""), limit=MAX_EXPORT)


def declare_exporter(res: Resource, path: str, columns: Sequence[Column], filename: str, summary: str) -> None:
    async def export(ctx: Ctx) -> Response:
        rows = await export_rows(ctx)
        return xlsx_response(workbook(columns, rows), filename)

    export.__name__ = f"export_{res.name}"
    res.action("GET", path, summary=summary, kind="export", raw=True)(export)


def declare_importer(
    res: Resource,
    path: str,
    template_path: str,
    progress_path: str,
    columns: Sequence[Column],
    key: Sequence[str],
    filename: str,
    summary: str,
    plan_of: PlanOf | None = None,
    template_summary: str | None = None,
    progress_summary: str | None = None,
) -> None:
    """The import call, its template and its progress (see the module's text); ``plan_of``: the rows go through
    its plan (:class:`ImportPlan`)."""

    async def import_rows_of(ctx: Ctx, query: CoverQuery, upload: UploadFile, services: Services) -> ImportReport:
        return await start_import(ctx, services, key, columns, upload, bool(query.is_covered), plan_of)

    async def template(ctx: Ctx) -> Response:
        return xlsx_response(workbook(columns, []), f"{filename}-template")

    async def progress(ctx: Ctx, query: JobQuery) -> ImportReport:
        return await import_progress(ctx, query.job_id)

    import_rows_of.__name__ = f"import_{res.name}"
    template.__name__ = f"import_template_{res.name}"
    progress.__name__ = f"import_progress_{res.name}"
    res.action(
        "POST",
        path,
        summary=summary,
        kind="import",
        permission="add",
        query=CoverQuery,
        answer=ImportReport,
        openapi=UPLOAD_DOCUMENT,
    )(import_rows_of)
    res.action(
        "GET",
        template_path,
        summary=template_summary or f"{summary}: the template (its header row)",
        kind="export",
        raw=True,
    )(template)
    res.action(
        "GET",
        progress_path,
        summary=progress_summary
        or f"{summary}: progress and report of a large import (jobId from the import's answer)",
        kind="read",
        permission="add",
        query=JobQuery,
        answer=ImportReport,
    )(progress)
