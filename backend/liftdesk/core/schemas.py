"""Schema conventions: camelCase keys, ids as strings, times as ``yyyy-MM-dd HH:mm:ss`` in the tenant zone.

Write ``XIn`` (what a client submits, with its rules) by hand; ``out_schema`` derives ``XOut`` from it and from
the model's mixins, so the audit and tenant columns are never written twice.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    create_model,
)
from pydantic.alias_generators import to_camel

from liftdesk.core.config import get_settings
from liftdesk.core.db import AuditMixin, Base, StatusMixin, TenantMixin, TreeMixin
from liftdesk.core.ids import MAX_ID, id_of

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def tenant_zone() -> timezone:
    return timezone(timedelta(minutes=get_settings().tz_offset_minutes))


def _to_id(value: Any) -> Any:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError("not an id")
    if isinstance(value, int):
        if not 0 <= value <= MAX_ID:
            raise ValueError("not an id")
        return value
    if isinstance(value, str) and (ident := id_of(value)) is not None:
        return ident
    raise ValueError("not an id")


def _to_time(value: Any) -> Any:
    """Accept text ``yyyy-MM-dd HH:mm:ss`` (tenant zone), ``yyyy-MM-dd`` or ISO; return naive UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        # Datetimes come from our own storage: naive means UTC already.
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, str):
        text = value.strip()
        for fmt in (TIME_FORMAT, "%Y-%m-%d %H:%M", "%Y-%m-%d"):
            try:
                dt = datetime.strptime(text, fmt)
                break
            except ValueError:
                continue
        else:
            try:
                dt = datetime.fromisoformat(text)
            except ValueError as exc:
                raise ValueError("expected yyyy-MM-dd HH:mm:ss") from exc
    else:
        raise ValueError("expected yyyy-MM-dd HH:mm:ss")
    if not 1900 <= dt.year <= 9998:  # a zone shift of year 1 or 9999 overflows; no fleet record lies there
        raise ValueError("expected a year from 1900 to 9998")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tenant_zone())
    return dt.astimezone(UTC).replace(tzinfo=None)


def format_time(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC).astimezone(tenant_zone()).strftime(TIME_FORMAT)


Id = Annotated[
    int,
    BeforeValidator(_to_id),
    PlainSerializer(lambda v: str(v), return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "pattern": "^-?[0-9]+$"}),
]
"""A 64-bit id: accepted as a string or a number, always written as a string."""

Time = Annotated[
    datetime,
    BeforeValidator(_to_time),
    PlainSerializer(format_time, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "example": "2025-01-31 08:00:00"}),
]


def _to_id_list(value: Any) -> Any:
    if value is None or value == "":
        return ""
    if isinstance(value, list):
        return ",".join(str(_to_id(v)) for v in value if v not in (None, ""))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",") if p.strip()]
        return ",".join(str(_to_id(p)) for p in parts)
    raise ValueError("expected comma-separated ids")


IdList = Annotated[str, BeforeValidator(_to_id_list), WithJsonSchema({"type": "string", "example": "1,2"})]
"""Comma-separated ids (BladeX ``roleId``/``deptId``/``postId``), accepted as a string or an array."""


def dictionary(code: str, *, biz: bool = False) -> Any:
    """A field whose values are the keys of dictionary ``code`` (business dictionary when ``biz``): published in
    the field's JSON schema (``x-dict`` / ``x-dict-biz``), so the web app's select and labels come from the server.
    Use as ``Annotated[int, Field(ge=0, le=8), dictionary("car_type")]``."""
    return Field(json_schema_extra={"x-dict-biz" if biz else "x-dict": code})


class Schema(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        from_attributes=True,
        serialize_by_alias=True,
        str_strip_whitespace=True,
    )


class IdIn(Schema):
    id: Id | None = None


def out_schema(name: str, base: type[BaseModel], model: type[Base], **extra: Any) -> type[Schema]:
    """Derive the answer schema: the submitted fields plus id, tenant, tree, status and audit columns."""
    fields: dict[str, Any] = {"id": (Id, ...)}
    if issubclass(model, TenantMixin):
        fields["tenant_id"] = (str | None, None)
    if issubclass(model, TreeMixin):
        fields["parent_id"] = (Id | None, None)
    if issubclass(model, StatusMixin):
        fields["status"] = (int | None, None)
    if issubclass(model, AuditMixin):
        fields.update(
            create_user=(Id | None, None),
            create_dept=(Id | None, None),
            create_time=(Time | None, None),
            update_user=(Id | None, None),
            update_time=(Time | None, None),
        )
    for key, spec in extra.items():
        fields[key] = spec
    bases: Any = (base, Schema)
    return create_model(name, __base__=bases, **fields)  # type: ignore[no-any-return]


class TreeNode(Schema):
    id: Id
    parent_id: Id | None = None
    title: str
    key: str
    value: str
    has_children: bool = False
    children: list[TreeNode] = Field(default_factory=list)


class Brief(Schema):
    id: Id
    label: str
