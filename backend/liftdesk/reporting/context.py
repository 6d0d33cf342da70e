"""The reporting context: the home page, reports, the alarm center, drivers' behaviour (``core.registry.Context``)."""

from __future__ import annotations

from liftdesk.core.registry import Context
from liftdesk.reporting import api as api  # declares the actions on the resources
from liftdesk.reporting import resources

CONTEXT = Context(name="reporting", resources=resources.RESOURCES)
