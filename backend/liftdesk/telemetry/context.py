"""The telemetry context: terminals, the pipeline, the live state, commands (``core.registry.Context``)."""

from __future__ import annotations

from liftdesk.core.registry import Context
from liftdesk.telemetry import api as api  # declares the actions on the resources
from liftdesk.telemetry import resources, subscriptions

CONTEXT = Context(
    name="telemetry",
    resources=resources.RESOURCES,
    subscriptions=subscriptions.SUBSCRIPTIONS,
    provides=subscriptions.PROVIDES,
)
