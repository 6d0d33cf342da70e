"""The reports' calls (imported by ``liftdesk.app.load_contexts``)."""

from liftdesk.reporting.api import alarms as alarms
from liftdesk.reporting.api import driver_behavior as driver_behavior
from liftdesk.reporting.api import efficiency as efficiency
from liftdesk.reporting.api import faults as faults
from liftdesk.reporting.api import handling as handling
from liftdesk.reporting.api import home as home
from liftdesk.reporting.api import statistics as statistics

__all__ = ["alarms", "driver_behavior", "efficiency", "faults", "handling", "home", "statistics"]
