"""The system context: tenants, users, roles, menus, organisations, dictionaries, files, messages, logs, the code
generator (``core.registry.Context``). It owns who may do what, so it implements the access port."""

from __future__ import annotations

from liftdesk.core.registry import Context
from liftdesk.system import api as api  # declares the actions on the resources
from liftdesk.system import resources
from liftdesk.system.access import SystemAccess
from liftdesk.system.codegen import resources as codegen

CONTEXT = Context(
    name="system",
    resources=(*resources.RESOURCES, *codegen.RESOURCES),
    access=SystemAccess(),
)
