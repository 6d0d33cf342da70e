"""64-bit time-ordered ids (snowflake layout: 41 bits of milliseconds, 10 bits of worker, 12 bits of sequence)."""

from __future__ import annotations

import os
import threading
import time

_EPOCH_MS = 1_288_834_974_657  # Twitter's epoch keeps ids 19 digits long, as BladeX's are
_lock = threading.Lock()
_state = {"last": 0, "seq": 0}
_WORKER = (int(os.environ.get("LIFTDESK_WORKER_ID", "0")) or (os.getpid() % 1024)) & 0x3FF


MAX_ID = 2**63 - 1


def _at_most(limit: str) -> str:
    """A regular expression of the ASCII digit strings of at most ``len(limit)`` characters whose value is at most
    ``limit`` (leading zeros allowed, as ``int`` reads them)."""
    parts = [f"[0-9]{{1,{len(limit) - 1}}}"]
    for i, digit in enumerate(limit):
        if digit == "0":
            continue
        rest = len(limit) - i - 1
        below = "0" if digit == "1" else f"[0-{int(digit) - 1}]"
        parts.append(limit[:i] + below + (f"[0-9]{{{rest}}}" if rest else ""))
    parts.append(limit)
    return "(?:" + "|".join(parts) + ")"


#: What :func:`id_of` reads as an id, as a regular expression (unanchored): 1 to 19 ASCII digits up to ``MAX_ID``.
ID_RE = _at_most(str(MAX_ID))
#: The JSON-schema pattern of one id.
ID_PATTERN = f"^{ID_RE}$"


def ids_pattern(most: int, *, empty: bool = False) -> str:
    """The JSON-schema pattern of comma-separated ids (``1,2,3``): one to ``most`` of them, or none when ``empty``."""
    listed = f"{ID_RE}(?:,{ID_RE}){{0,{most - 1}}}"
    return f"^(?:{listed})?$" if empty else f"^{listed}$"


def id_of(text: object) -> int | None:
    """A stored id written as text: ASCII digits only (``str.isdigit`` also accepts '²' and other Unicode digits,
    which ``int`` refuses) within 64 bits; None for anything else."""
    raw = str(text).strip() if text is not None else ""
    if not raw or not raw.isascii() or not raw.isdigit() or len(raw) > 19:
        return None
    value = int(raw)
    return value if value <= MAX_ID else None


def ids_of(text: str | None) -> list[int]:
    """The valid ids of a comma-separated list (stored columns such as ``role_id``), others skipped."""
    return [i for i in (id_of(p) for p in (text or "").split(",")) if i is not None]


def next_id() -> int:
    with _lock:
        now = int(time.time() * 1000)
        if now < _state["last"]:
            now = _state["last"]
        if now == _state["last"]:
            _state["seq"] = (_state["seq"] + 1) & 0xFFF
            if _state["seq"] == 0:
                while now <= _state["last"]:
                    now = int(time.time() * 1000)
        else:
            _state["seq"] = 0
        _state["last"] = now
        return ((now - _EPOCH_MS) << 22) | (_WORKER << 12) | _state["seq"]
