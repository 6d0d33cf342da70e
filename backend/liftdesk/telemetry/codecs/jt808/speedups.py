"""Which decoders the codec runs for the hot messages: the compiled fast path (``_speedups``, built from
``_speedups.pyx`` by ``make install``) when it imports, else the pure-Python ones.

Both give the same results (the property and captured-frame tests run each over the same frames):

* :func:`~.packet.decode_packet` — unescape, checksum and header of every frame;
* :func:`~.location.decode_location` — 0x0200 with its additional items (the vendor items included);
* :func:`~.terminal.parse_location_batch` — 0x0704.

``LIFTDESK_PURE_PYTHON=1`` in the environment makes the codec ignore the compiled module (and ``setup.py`` skip
building it). :data:`ACTIVE` is the one in use; :func:`use` switches (the tests run both).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .location import Location, decode_location
from .packet import Jt808Version, Packet, decode_packet
from .terminal import LocationBatch, parse_location_batch

log = logging.getLogger(__name__)


class LocationDecoder(Protocol):
    def __call__(self, body: bytes, *, liftdesk: bool = True) -> Location: ...


class BatchParser(Protocol):
    def __call__(
        self, body: bytes, version: Jt808Version = Jt808Version.V2013, *, liftdesk: bool = True
    ) -> LocationBatch: ...


@dataclass(frozen=True, slots=True)
class Decoders:
    """One implementation of the hot decoders."""

    name: str
    decode_packet: Callable[[bytes], Packet]
    decode_location: LocationDecoder
    parse_location_batch: BatchParser


PURE = Decoders("python", decode_packet, decode_location, parse_location_batch)


def _compiled() -> tuple[Decoders | None, str | None]:
    if os.environ.get("LIFTDESK_PURE_PYTHON", "").strip().lower() in ("1", "true", "yes"):
        return None, "LIFTDESK_PURE_PYTHON is set"
    try:
        from . import _speedups as module
    except ImportError as exc:  # not built (no compiler at install), or built for classes that changed since
        log.info("JT/T 808 decoders: pure Python (%s)", exc)
        return None, str(exc)
    return Decoders("compiled", module.decode_packet, module.decode_location, module.parse_location_batch), None


#: The compiled decoders, None when they are not built (or turned off: :data:`UNAVAILABLE` says why).
COMPILED, UNAVAILABLE = _compiled()
#: Every implementation present, the reference (pure Python) first.
AVAILABLE = (PURE,) if COMPILED is None else (PURE, COMPILED)
#: The decoders the codec runs.
ACTIVE = COMPILED or PURE


def use(decoders: Decoders) -> Decoders:
    """Make ``decoders`` the ones the codec runs; returns those it ran before."""
    global ACTIVE
    previous, ACTIVE = ACTIVE, decoders
    return previous
