"""The JT/T 808 decoders under test: the pure-Python ones and the compiled fast path (``codecs/jt808/speedups.py``).

A test module that declares ``decoders = each_implementation()`` runs every one of its tests once with each (the
codec's ``decode_message``/``parse_packet`` then run that implementation, and ``speedups.ACTIVE`` is it). The
compiled one is required: when it is not built the run fails, unless ``LIFTDESK_PURE_PYTHON=1`` says that only
the pure-Python path is wanted (a machine without a C compiler).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from liftdesk.telemetry.codecs.jt808 import speedups
from liftdesk.telemetry.codecs.jt808.speedups import Decoders

PURE_ONLY = os.environ.get("LIFTDESK_PURE_PYTHON", "").strip().lower() in ("1", "true", "yes")


def compiled() -> Decoders:
    """The compiled decoders; fails the test when they are not built (skips it under ``LIFTDESK_PURE_PYTHON=1``)."""
    if speedups.COMPILED is None:
        if PURE_ONLY:
            pytest.skip("LIFTDESK_PURE_PYTHON=1: the compiled decoders are not used")
        pytest.fail(f"the compiled JT/T 808 decoders are not built ({speedups.UNAVAILABLE}): run `make install`")
    return speedups.COMPILED


def each_implementation() -> Callable[..., Iterator[Decoders]]:
    """A module-scoped autouse fixture (hypothesis refuses function-scoped ones) running the module once per
    implementation."""

    @pytest.fixture(scope="module", autouse=True, params=["python", "compiled"])
    def decoders(request: Any) -> Iterator[Decoders]:
        chosen = speedups.PURE if request.param == "python" else compiled()
        previous = speedups.use(chosen)
        try:
            yield chosen
        finally:
            speedups.use(previous)

    return decoders
