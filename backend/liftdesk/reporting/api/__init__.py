"""The reports' calls (imported by ``liftdesk.app.load_contexts``)."""

from liftdesk.reporting.api import efficiency as efficiency

__all__ = ["efficiency"]
