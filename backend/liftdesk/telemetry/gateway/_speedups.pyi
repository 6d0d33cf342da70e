# The compiled location_to_fix (_speedups.pyx): the signature of mapping.location_to_fix.
from datetime import datetime

from liftdesk.telemetry.codecs.jt808 import Location
from liftdesk.telemetry.messages import Fix

def location_to_fix(loc: Location, received_at: datetime) -> Fix: ...
