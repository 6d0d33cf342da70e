"""Readers of a command's JSON payload: a field under one of its names, integers (decimal or ``0x`` hex, within
bounds), finite numbers, enum members by name; every error is a ValueError that names the field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def _get(payload: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if name in payload and payload[name] is not None:
            return payload[name]
    return default


def _int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{what}: expected an integer, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text, 16) if text.lower().startswith("0x") else int(text)
        except ValueError:
            raise ValueError(f"{what}: expected an integer, got {text!r}") from None
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise ValueError(f"{what}: expected an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{what}: {value} is outside {low}..{high}")
    return value


def _float(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{what}: expected a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{what}: expected a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{what}: expected a finite number, got {value!r}")
    return number


def _enum_int(value: Any, enum: Any, what: str) -> int:
    """An enum member by name (case-insensitive) or an integer value."""
    if isinstance(value, str) and not value.strip().lstrip("-").isdigit() and not value.lower().startswith("0x"):
        try:
            return int(enum[value.strip().upper()])
        except KeyError:
            names = ", ".join(m.name.lower() for m in enum)
            raise ValueError(f"{what}: {value!r} is not one of {names}") from None
    return _int(value, what)
