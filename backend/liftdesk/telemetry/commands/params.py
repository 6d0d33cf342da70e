"""Terminal parameters in a command's JSON: parameter ids and names → the codec's ids, JSON values → wire values
(the codec's parameter table checks them), the 0x8103 set and 0x8104 / 0x8106 query builders, and decoded
parameters back to JSON (:func:`params_json`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from liftdesk.telemetry.codecs.jt808 import (
    PARAM_SPECS,
    ParamId,
    ParamItem,
    ParamType,
    ParamValue,
    QueryAllParams,
    QueryParams,
    SetParams,
)
from liftdesk.telemetry.commands.fields import _get, _int


def param_id(key: str | int) -> int:
    """A parameter id from ``0x0029``, ``41``, ``report_interval_default`` or ``REPORT_INTERVAL_DEFAULT``."""
    if isinstance(key, int) and not isinstance(key, bool):
        pid = key
    elif isinstance(key, str) and key.strip():
        text = key.strip()
        if text.lower().startswith("0x") or text.isdigit():
            pid = _int(text, f"parameter {key!r}")
        else:
            try:
                pid = int(ParamId[text.upper()])
            except KeyError:
                raise ValueError(f"parameter {key!r}: unknown parameter name") from None
    else:
        raise ValueError(f"parameter {key!r}: not a parameter id or name")
    if not 0 <= pid <= 0xFFFFFFFF:
        raise ValueError(f"parameter {key!r}: id outside 0..0xffffffff")
    return pid


def param_value(pid: int, value: Any) -> ParamValue:
    """A JSON value → the parameter's wire type (from the codec's table), validated; errors name the parameter."""
    spec = PARAM_SPECS.get(pid)
    label = f"parameter 0x{pid:04x}" + (f" ({spec.name})" if spec else "")
    if spec is None:
        if isinstance(value, str):
            return value
        if isinstance(value, Mapping) and isinstance(value.get("hex"), str):
            try:
                return bytes.fromhex(value["hex"])
            except ValueError:
                raise ValueError(f"{label}: {value['hex']!r} is not hex") from None
        raise ValueError(f"{label}: unknown parameter, give a string or {{'hex': ...}} so its width is explicit")
    converted: ParamValue
    if spec.type is ParamType.STRING:
        if not isinstance(value, str):
            raise ValueError(f"{label}: expected a string, got {value!r}")
        converted = value
    elif spec.type is ParamType.BYTES:
        if not isinstance(value, str):
            raise ValueError(f"{label}: expected a hex string, got {value!r}")
        try:
            converted = bytes.fromhex(value)
        except ValueError:
            raise ValueError(f"{label}: {value!r} is not hex") from None
    else:
        converted = _int(value, label)
    spec.encode(converted)  # ParamValueError (a ValueError) names the parameter and the rule it broke
    return converted


def build_set_params(payload: Mapping[str, Any]) -> SetParams:
    """0x8103 ``{"params": {"heartbeat_interval": 30, "0x0029": 10, "lock_level": 1}}``."""
    params = _get(payload, "params")
    if not isinstance(params, Mapping) or not params:
        raise ValueError("params: a non-empty object of parameter → value is required")
    if len(params) > 0xFF:
        raise ValueError("params: at most 255 parameters per command")
    items = []
    for key, value in params.items():
        pid = param_id(key)
        items.append(ParamItem(pid, param_value(pid, value)))
    return SetParams(tuple(items))


def build_query_params(payload: Mapping[str, Any]) -> QueryParams | QueryAllParams:
    """0x8106 ``{"ids": ["heartbeat_interval", "0x0029"]}``; no ids → 0x8104 (all parameters)."""
    ids = _get(payload, "ids", "params", default=[])
    if not isinstance(ids, list):
        raise ValueError("ids: a list of parameter ids or names is required")
    if not ids:
        return QueryAllParams()
    if len(ids) > 0xFF:
        raise ValueError("ids: at most 255 parameters per query")
    return QueryParams(tuple(param_id(i) for i in ids))


def params_json(params: Mapping[int, ParamValue]) -> list[dict[str, Any]]:
    """Decoded parameters → JSON: ``[{"id": "0x0001", "name": "heartbeat_interval", "value": 30}, ...]``
    (bytes values as hex)."""
    out = []
    for pid, value in params.items():
        spec = PARAM_SPECS.get(pid)
        out.append(
            {
                "id": f"0x{pid:04x}",
                "name": spec.name if spec else None,
                "value": value.hex() if isinstance(value, bytes) else value,
            }
        )
    return out
