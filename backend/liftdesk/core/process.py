"""Process-wide settings of a long-running server process."""

from __future__ import annotations

import asyncio
import gc
import logging
import resource
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: Collections of the youngest generation every 50,000 allocations instead of 700, the older ones as usual.
GC_THRESHOLDS = (50_000, 20, 10)


def tune_gc() -> None:
    """Call once start-up is done. Everything allocated so far (modules, the ORM's and the web framework's
    structures: hundreds of thousands of objects that live as long as the process) moves to the permanent
    generation, so collections stop scanning it again and again; the young generation is collected less often.

    Measured with ``bench/ingest.py``: a terminal position costs the gateway and pipeline about a third less CPU
    (the garbage collector had been the largest single item in the profile, charged to whichever line allocated).
    Reference cycles are still collected, only less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def raise_open_files() -> int:
    """Raise this process's limit of open files to the hard limit (one socket per terminal: 10,000 terminals need
    more than the usual soft limit of 1,024); returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as exc:
            logging.getLogger("liftdesk").warning("open files: could not raise the limit to %d (%s)", hard, exc)
    return soft


def loop_factory(choice: str = "auto") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop a server process runs on: uvloop where it is installed (``auto``, or ``uvloop``), else
    asyncio's own (``asyncio``, or uvloop missing). None: asyncio's default."""
    if choice not in ("auto", "uvloop", "asyncio"):
        raise ValueError(f"event loop: {choice!r} is not one of auto, uvloop, asyncio")
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            logging.getLogger("liftdesk").warning("event loop: uvloop is not installed; asyncio's loop runs")
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], choice: str = "auto") -> T:
    """``asyncio.run(main)`` on the loop :func:`loop_factory` picks."""
    with asyncio.Runner(loop_factory=loop_factory(choice)) as runner:
        return runner.run(main)
