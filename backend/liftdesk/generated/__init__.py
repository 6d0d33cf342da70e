"""Resources made by the code generator (``system/codegen``). A generated zip, unzipped at the repository's root,
puts a resource's declaration and schemas here (``<package>.py``, ``<package>_schemas.py``), its migration under
``migrations/versions`` and its web configuration under ``frontend/src/resources/generated``. :func:`load` imports
every declaration here, so their resources register as the contexts' do (``app.load_contexts``)."""

from __future__ import annotations

import importlib
import pkgutil


def load() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.endswith("_schemas"):
            importlib.import_module(f"{__name__}.{info.name}")
