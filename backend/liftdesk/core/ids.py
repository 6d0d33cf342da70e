"""64-bit time-ordered ids (snowflake layout: 41 bits of milliseconds, 10 bits of worker, 12 bits of sequence)."""

from __future__ import annotations

import os
import threading
import time

_EPOCH_MS = 1_288_834_974_657  # Twitter's epoch keeps ids 19 digits long, as BladeX's are
_lock = threading.Lock()
_state = {"last": 0, "seq": 0}
_WORKER = (int(os.environ.get("LIFTDESK_WORKER_ID", "0")) or (os.getpid() % 1024)) & 0x3FF


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
