"""From a code generation record to the files of a resource: declaration, schemas, migration and web configuration.

Pure functions over the record (``CodeIn``) and the migration it follows; ``resources`` zips what they return.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic.alias_generators import to_camel

from liftdesk.system.codegen import templates as tpl
from liftdesk.system.codegen.schemas import CodeField, CodeIn

#: The SQLAlchemy column type, the Python type and the migration's column of each field type.
_SQL = {
    "string": "String",
    "text": "Text",
    "int": "Integer",
    "long": "BigInteger",
    "double": "Float",
    "datetime": "DateTime",
}
_PY = {"string": "str", "text": "str", "int": "int", "long": "int", "double": "float", "datetime": "datetime"}
_INT_LIMITS = {"int": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}
DEFAULT_LENGTH = 255
#: Where the generated files go, from the repository's root.
BACKEND = "backend/liftdesk"
WEB_DIR = "frontend/src/resources/generated"


@dataclass(frozen=True)
class Generated:
    path: str
    text: str


def revision_of(table: str) -> str:
    """The migration's revision id: ``gen_<table>``, within Alembic's 32 characters."""
    rev = f"gen_{table}"
    return rev if len(rev) <= 32 else f"gen_{table[:19]}_{hashlib.sha1(table.encode()).hexdigest()[:8]}"


def api_prefix(code: CodeIn) -> str:
    """``/api/<service>/<entity path>``: the table's name without its prefix, in camelCase (BladeX's paths)."""
    name = code.table_name
    if code.table_prefix and name.startswith(code.table_prefix):
        name = name[len(code.table_prefix) :]
    return f"/api/{code.service_name}/{to_camel(name)}"


def web_name_of(package: str) -> str:
    """The web configuration's file name: the package in camelCase (``demo_gadget`` → ``demoGadget``)."""
    first, *rest = package.split("_")
    return first + "".join(p[:1].upper() + p[1:] for p in rest)


def _length(f: CodeField) -> int:
    return f.max_length or DEFAULT_LENGTH


def _model_column(f: CodeField) -> str:
    kind = _SQL[f.type]
    py = _PY[f.type] if f.required else f"{_PY[f.type]} | None"
    args = f"String({_length(f)})" if f.type == "string" else f"{kind}()"
    return f"    {f.column}: Mapped[{py}] = mapped_column({args})"


def _schema_field(f: CodeField) -> str:
    """``name: Annotated[type, Field(rules, description)] = default``, the rules as hand-written schemas state them."""
    rules: list[str] = []
    if f.type == "string":
        rules += (["min_length=1"] if f.required else []) + [f"max_length={_length(f)}"]
    elif f.type == "text":
        rules += (["min_length=1"] if f.required else []) + ["max_length=65535"]
    elif f.type in _INT_LIMITS:
        low, high = _INT_LIMITS[f.type]
        rules += [f"ge={low}", f"le={high}"]
    elif f.type == "double":
        rules.append("allow_inf_nan=False")
    rules.append(f"description={json.dumps(f.name, ensure_ascii=False)}")
    base = "Time" if f.type == "datetime" else _PY[f.type]
    kind = base if f.required else f"{base} | None"
    extra = f", dictionary({json.dumps(f.dict_code)})" if f.dict_code else ""
    default = "" if f.required else " = None"
    line = f"    {f.column}: Annotated[{kind}, Field({', '.join(rules)}){extra}]{default}"
    if len(line) <= 120:
        return line
    # one part a line (the trailing comma keeps them so through a formatter)
    parts = [kind, f"Field({', '.join(rules)})", *([extra.removeprefix(", ")] if extra else [])]
    return f"    {f.column}: Annotated[\n" + "".join(f"        {p},\n" for p in parts) + f"    ]{default}"


def _migration_column(f: CodeField) -> str:
    kind = f"sa.String(length={_length(f)})" if f.type == "string" else f"sa.{_SQL[f.type]}()"
    return f"    sa.Column('{f.column}', {kind}, nullable={not f.required}),"


def _ts(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _web_column(f: CodeField) -> str:
    parts = [f"prop: {_ts(to_camel(f.column))}", f"label: {_ts(f.name)}"]
    if f.type == "text":
        parts.append("type: 'textarea'")
    if f.type == "datetime":
        parts.append("type: 'datetime'")
    if f.in_search:
        parts.append("search: true")
    if not f.in_list:
        parts.append("hideInTable: true")
    if not f.in_form:
        parts.append("hideInForm: true")
    return "    { " + ", ".join(parts) + " },"


def _title(code: CodeIn) -> str:
    """The record's name as written into comments: a Python docstring (no quote, backslash or line break can end or
    bend it) and a TypeScript block comment (``*/`` would end it: the generated page would run what follows)."""
    text = re.sub(r'["\\`\r\n\u2028\u2029]', " ", code.code_name)
    return text.replace("*/", "* /")


def generate(code: CodeIn, record: int, heads: Sequence[str]) -> list[Generated]:
    """The four files of ``code`` (record id ``record``), its migration following the migrations ``heads``."""
    entity, package, table = code.entity_name, code.package_name, code.table_name
    prefix, revision, fields = api_prefix(code), revision_of(table), code.fields
    web_name = web_name_of(package)
    down = repr(heads[0]) if len(heads) == 1 else repr(tuple(sorted(heads))) if heads else "None"
    common = {
        "title": _title(code),
        "table": table,
        "prefix": prefix,
        "record": str(record),
        "package": package,
        "entity": entity,
        "revision": revision,
        "web_name": web_name,
    }
    sql_types = sorted({"String", *(_SQL[f.type] for f in fields if f.type != "string")})
    label = next(f.column for f in fields if f.type == "string")
    declaration = tpl.DECLARATION.substitute(
        common,
        datetime_import="\nfrom datetime import datetime\n" if any(f.type == "datetime" for f in fields) else "",
        sa_imports=", ".join(sql_types),
        columns="\n".join(_model_column(f) for f in fields),
        constant=package.upper(),
        label=label,
    )
    schema_imports = ["Id", "Schema"]
    if any(f.dict_code for f in fields):
        schema_imports.append("dictionary")
    if any(f.type == "datetime" for f in fields):
        schema_imports.append("Time")
    schemas = tpl.SCHEMAS.substitute(
        common,
        schema_imports=", ".join(sorted(schema_imports, key=lambda n: (n.islower(), n))),
        fields="\n".join(_schema_field(f) for f in fields),
    )
    migration = tpl.MIGRATION.substitute(
        common,
        down=down,
        down_text=", ".join(heads) or "-",
        columns="\n".join(_migration_column(f) for f in fields),
    )
    web = tpl.WEB.substitute(common, title_ts=_ts(code.code_name), columns="\n".join(_web_column(f) for f in fields))
    return [
        Generated(f"{BACKEND}/generated/{package}.py", declaration),
        Generated(f"{BACKEND}/generated/{package}_schemas.py", schemas),
        Generated(f"{BACKEND}/migrations/versions/{revision}.py", migration),
        Generated(f"{WEB_DIR}/{web_name}.ts", web),
    ]


def zip_of(files: Sequence[Generated]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for f in files:
            archive.writestr(f.path, f.text)
    return buffer.getvalue()
