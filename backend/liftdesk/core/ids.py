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
