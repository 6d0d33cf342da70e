"""The compiled fast path of the JT/T 808 decoders (``telemetry/codecs/jt808/_speedups.pyx``) and of the gateway's
mapping of a position to the pipeline's fix (``telemetry/gateway/_speedups.pyx``), built with Cython.

Everything else about the package is in ``pyproject.toml``. The extension is optional: when Cython is missing, the
C compiler fails or ``LIFTDESK_PURE_PYTHON=1`` is set while installing, the package installs without it, and the
codec runs its pure-Python decoders (``telemetry/codecs/jt808/speedups.py``).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

SPEEDUPS = [
    Extension(
        "liftdesk.telemetry.codecs.jt808._speedups",
        ["backend/liftdesk/telemetry/codecs/jt808/_speedups.pyx"],
        optional=True,  # a compiler error leaves the pure-Python path, with a warning
    ),
    Extension(
        "liftdesk.telemetry.gateway._speedups",
        ["backend/liftdesk/telemetry/gateway/_speedups.pyx"],
        optional=True,
    ),
]


def extensions() -> list[Extension]:
    if os.environ.get("LIFTDESK_PURE_PYTHON", "").strip().lower() in ("1", "true", "yes"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("setup.py: Cython is not installed; the JT/T 808 decoders stay pure Python", file=sys.stderr)
        return []
    try:
        return list(cythonize(SPEEDUPS, compiler_directives={"language_level": 3}, quiet=True))
    except Exception as exc:  # a Cython that cannot translate the module: install without it
        print(f"setup.py: Cython failed ({exc}); the JT/T 808 decoders stay pure Python", file=sys.stderr)
        return []


setup(ext_modules=extensions())
