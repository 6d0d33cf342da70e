"""Schema conventions: camelCase keys, ids as strings, times as ``yyyy-MM-dd HH:mm:ss`` in the tenant zone.

Write ``XIn`` (what a client submits, with its rules) by hand; ``out_schema`` derives ``XOut`` from it and from
the model's mixins, so the audit and tenant columns are never written twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PlainSerializer,
    WithJsonSchema,
    create_model,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue

from liftdesk.core.config import get_settings
from liftdesk.core.db import AuditMixin, Base, StatusMixin, TenantMixin, TreeMixin
from liftdesk.core.ids import ID_PATTERN, MAX_ID, id_of, ids_pattern

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_YEAR = "(?:19[0-9]{2}|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])"
_MONTH_DAY = (
    "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
#: The JSON-schema pattern of a time as :func:`_to_time` reads it: ``yyyy-MM-dd HH:mm:ss`` (or without the seconds,
#: or a bare date), years 1900 to 9998 (its ISO forms and 29 February are accepted too, and not documented).
TIME_PATTERN = f"^{_YEAR}-{_MONTH_DAY}(?: (?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9])?)?$"


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
    WithJsonSchema({"type": "string", "pattern": ID_PATTERN}),
]
"""A 64-bit id: accepted as a string or a number, always written as a string (documented: 0 to 2^63-1 in
ASCII digits)."""

Time = Annotated[
    datetime,
    BeforeValidator(_to_time),
    PlainSerializer(format_time, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "example": "2025-01-31 08:00:00", "pattern": TIME_PATTERN}),
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


#: The most ids a stored id list (``role_id`` and friends, 1000 characters) holds.
MAX_ID_LIST = 50


def ids_documented(most: int, *, empty: bool = False) -> WithJsonSchema:
    """The document of comma-separated ids: one to ``most`` ids (or none when ``empty``). The field's own rule says
    whether none passes; use as ``Annotated[IdList, ids_documented(1000)]``."""
    return WithJsonSchema({"type": "string", "example": "1,2", "pattern": ids_pattern(most, empty=empty)})


IdList = Annotated[str, BeforeValidator(_to_id_list), ids_documented(MAX_ID_LIST, empty=True)]
"""Comma-separated ids (BladeX ``roleId``/``deptId``/``postId``), accepted as a string or an array, normalised to
``1,2``."""
IdListRequired = Annotated[IdList, ids_documented(MAX_ID_LIST)]
"""An :data:`IdList` that must name at least one id (the field refuses none)."""


def dictionary(code: str, *, biz: bool = False) -> Any:
    """A field whose values are the keys of dictionary ``code`` (business dictionary when ``biz``): published in
    the field's JSON schema (``x-dict`` / ``x-dict-biz``), so the web app's select and labels come from the server.
    Use as ``Annotated[int, Field(ge=0, le=8), dictionary("car_type")]``."""
    return Field(json_schema_extra={"x-dict-biz" if biz else "x-dict": code})


#: Whitespace as every party counts it: the stripping of :class:`Schema` (pydantic-core: Unicode White_Space), Python's
#: ``str.strip`` (also U+001C-U+001F) and the ``\s`` of the regular-expression dialects documents are read with
#: (ECMAScript's also U+FEFF). A character outside them is not whitespace to any of them.
SPACE_CHARS = (
    "\\u0009-\\u000d\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
#: The JSON-schema pattern (unanchored) of a text that is not blank: it holds a character that is not whitespace.
NOT_BLANK = f"[^{SPACE_CHARS}]"


def trimmed_pattern(min_length: int) -> str:
    """The JSON-schema pattern of a text that is at least ``min_length`` characters long once its surrounding
    whitespace is stripped (as :class:`Schema` strips it before checking the length): it holds two non-space
    characters that far apart (one, for 1)."""
    return NOT_BLANK if min_length <= 1 else f"{NOT_BLANK}[\\s\\S]{{{min_length - 2},}}{NOT_BLANK}"


def _document_trimming(properties: dict[str, Any]) -> None:
    """Text properties with a minimum length say that whitespace does not count toward it."""
    for spec in properties.values():
        for option in (spec, *spec.get("anyOf", ())):
            minimum = option.get("minLength")
            if option.get("type") == "string" and minimum and "pattern" not in option:
                option["pattern"] = trimmed_pattern(int(minimum))


class Schema(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        from_attributes=True,
        serialize_by_alias=True,
        str_strip_whitespace=True,
    )

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = super().__get_pydantic_json_schema__(core_schema, handler)
        if handler.mode == "validation" and cls.model_config.get("str_strip_whitespace"):
            _document_trimming(handler.resolve_ref_schema(schema).get("properties", {}))
        return schema


def documented(
    *, required: Sequence[str] = (), rules: Sequence[Mapping[str, Any]] = ()
) -> Callable[[dict[str, Any], type[BaseModel]], None]:
    """A model's ``json_schema_extra``: what its OpenAPI document says beyond its fields, for rules the operation
    checks itself, with its own messages. ``required``: fields (snake_case) the operation refuses to go without,
    though the model lets them default (their default is no value, and leaves the document); ``rules``: JSON-schema
    rules across fields (``anyOf`` / ``oneOf`` of ``required`` and property schemas, camelCase names), all of which
    hold. The document then says what the operation accepts; the model still validates as before."""

    def extend(schema: dict[str, Any], model: type[BaseModel]) -> None:
        properties: dict[str, Any] = schema.get("properties", {})
        names = [model.model_fields[f].alias or f for f in required]
        for name in names:
            spec = properties.get(name, {})
            spec.pop("default", None)
            options = [o for o in spec.get("anyOf", ()) if o.get("type") != "null"]
            if "anyOf" in spec and len(options) == 1:  # null is no value either
                del spec["anyOf"]
                spec.update(options[0])
            elif "anyOf" in spec:
                spec["anyOf"] = options
        if names:
            listed = schema.get("required", [])
            schema["required"] = [*listed, *(n for n in names if n not in listed)]
        if len(rules) == 1 and not set(rules[0]) & set(schema):
            schema.update(rules[0])
        elif rules:
            schema["allOf"] = [*schema.get("allOf", []), *rules]

    return extend


class DocumentedNotNull:
    """``Annotated`` metadata of an ``X | None`` that the document gives as ``X``: the value may be left out (and is
    then its default), and the operation refuses what ``X`` does not allow, null included, by its own rule."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        options = [o for o in schema.get("anyOf", ()) if o.get("type") != "null"]
        if len(options) == 1:
            rest = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**options[0], **rest}
        return schema


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
    answer: type[Schema] = create_model(name, __base__=bases, **fields)
    answer.model_config["json_schema_extra"] = None  # what ``documented`` says of a submission is not of answers
    return answer  # type: ignore[return-value]  # the plugin names the class after the variable


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
