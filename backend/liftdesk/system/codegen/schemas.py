"""What a code generation record holds and what its calls take (``resources``)."""

from __future__ import annotations

import keyword
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, field_validator

from liftdesk.core.i18n import t
from liftdesk.core.ids import ID_PATTERN, ids_pattern
from liftdesk.core.schemas import Id, Schema, documented, out_schema
from liftdesk.system.codegen import models as m

#: The column types a generated field may have (``generate`` maps each to a column, a schema type and a web input).
FIELD_TYPES = ("string", "text", "int", "long", "double", "datetime")
FieldType = Literal["string", "text", "int", "long", "double", "datetime"]
#: Columns every generated table has already (``BaseEntity`` and ``TenantMixin``), and names SQLAlchemy's declarative
#: classes keep for themselves.
RESERVED_COLUMNS = frozenset(
    {
        "id",
        "tenant_id",
        "create_user",
        "create_dept",
        "create_time",
        "update_user",
        "update_time",
        "status",
        "is_deleted",
        "metadata",
        "registry",
    }
)
#: Names the generated modules use themselves: an entity may not be called so.
RESERVED_ENTITIES = frozenset({"Base", "BaseEntity", "TenantMixin", "Resource", "Schema", "Id", "Time", "Field"})

SNAKE = r"^[a-z][a-z0-9_]*$"
Snake = Annotated[str, Field(min_length=1, max_length=48, pattern=SNAKE)]


class CodeField(Schema):
    """One field of the generated entity: its column, label, type and rules, and where the web page shows it."""

    column: Annotated[
        str,
        Field(
            min_length=1,
            max_length=48,
            pattern=SNAKE,
            description="column (snake_case; not a Python keyword nor a column every table has)",
            json_schema_extra={"not": {"enum": sorted(RESERVED_COLUMNS | set(keyword.kwlist))}},
        ),
    ]
    name: Annotated[str, Field(min_length=1, max_length=64, description="label shown to users")]
    type: FieldType = "string"
    required: bool = False
    max_length: Annotated[int | None, Field(ge=1, le=4000, description="longest text (string fields)")] = None
    dict_code: Annotated[str | None, Field(max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_]*$")] = None
    in_list: bool = True
    in_search: bool = False
    in_form: bool = True

    @field_validator("column")
    @classmethod
    def _column(cls, value: str) -> str:
        if value in RESERVED_COLUMNS or keyword.iskeyword(value):
            raise ValueError(t("codegen_reserved", name=value))
        return value


class CodeIn(Schema):
    id: Id | None = None
    code_name: Annotated[str, Field(min_length=1, max_length=64, pattern=r'^[^"\\`\r\n]*$')]
    service_name: Annotated[str, Field(min_length=1, max_length=48, pattern=r"^[a-z][a-z0-9-]*$")]
    table_name: Snake
    table_prefix: Annotated[str | None, Field(max_length=32, pattern=r"^[a-z][a-z0-9_]*_$")] = None
    entity_name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=48,
            pattern=r"^[A-Z][A-Za-z0-9]*$",
            json_schema_extra={"not": {"enum": sorted(RESERVED_ENTITIES | set(keyword.kwlist))}},
        ),
    ]
    package_name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=48,
            pattern=SNAKE,
            description="module and resource name (not a Python keyword, not ending in _schemas)",
            json_schema_extra={"not": {"anyOf": [{"enum": sorted(keyword.kwlist)}, {"pattern": "_schemas$"}]}},
        ),
    ]
    fields: Annotated[list[CodeField], Field(min_length=1, max_length=100)]
    remark: Annotated[str | None, Field(max_length=255)] = None

    @field_validator("package_name")
    @classmethod
    def _package(cls, value: str) -> str:
        if keyword.iskeyword(value) or value.endswith("_schemas"):
            raise ValueError(t("codegen_reserved", name=value))
        return value

    @field_validator("entity_name")
    @classmethod
    def _entity(cls, value: str) -> str:
        if value in RESERVED_ENTITIES or keyword.iskeyword(value):
            raise ValueError(t("codegen_reserved", name=value))
        return value


CodeOut = out_schema("CodeOut", CodeIn, m.Code)


class ReportFileIn(Schema):
    id: Id | None = None
    name: Annotated[str, Field(min_length=1, max_length=100)]
    content: str | None = None


class ReportFileBrief(Schema):
    name: str
    content: str | None = None


ReportFileOut = out_schema("ReportFileOut", ReportFileBrief, m.ReportFile)


class GenQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("ids",)))

    ids: str = Field(
        default="",
        description="comma-separated ids of code generation records",
        json_schema_extra={"pattern": ids_pattern(1000)},
    )
    system: str | None = Field(
        default=None,
        max_length=32,
        description="the web app BladeX's generator writes for (saber, element): the zip always holds Liftdesk's own",
    )


class CopyQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("id",)))

    id: str = Field(default="", description="the record to copy", json_schema_extra={"pattern": ID_PATTERN})
