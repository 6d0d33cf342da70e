"""Resources made by the code generator (``system/codegen``). A generated zip, unzipped at the repository's root,
puts a resource's declaration and schemas here (``<package>.py``, ``<package>_schemas.py``), its migration under
``migrations/versions`` and its web configuration under ``frontend/src/resources/generated``. :func:`context` imports
every declaration here and gives their resources (each module's ``RESOURCES``) as a context of their own, built into
the registry after the others (``liftdesk.app.CONTEXTS``)."""

from __future__ import annotations

import importlib
import pkgutil

from liftdesk.core.registry import Context
from liftdesk.core.resource import Resource


def context() -> Context:
    resources: list[Resource] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.endswith("_schemas"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            resources.extend(getattr(module, "RESOURCES", ()))
    return Context(name="generated", resources=tuple(resources))
