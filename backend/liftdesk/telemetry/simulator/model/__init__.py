"""What one vehicle does, shift by shift: a deterministic model in simulated time (no I/O).

The vehicle powers on when a working window starts (driver card in at the start of a shift), works job
after job in the yard (travel, lift, carry, drop, wait for the next order), drives to its charger or
parking spot and powers off at breaks, and charges (electric) or refuels (combustion).  Now and then an
operator speeds, overloads, forgets the seat belt or bumps into a rack.  Terminal parameters act on it:
a lock level ≥ 1 holds it still, the vendor speed limit caps its speed, calibration factors scale what
the sensors report, the collision threshold filters impacts.

Now and then the truck's controller also reports a fault code (item 0xE7) for a while, and a flooded lead-acid
battery runs low on electrolyte until it is watered (the BMS "liquid low" flag); a few trucks start that way, so
a fresh demo shows battery and fault alarms at once.

Time is epoch seconds (float).  :meth:`ForkliftModel.advance` moves the model forward and stops early at
events worth an immediate report (ACC on/off, an impact); :meth:`ForkliftModel.location` is the 0x0200
body of the present moment.

:class:`ForkliftModel` is built in layers, each a module: :mod:`.state` (what the vehicle is, its drivers'
cards, its energy), :mod:`.reports` (what its terminal reports), :mod:`.planning` (its jobs) and :mod:`.driving`
(time, power and the steps of :mod:`.steps`); :mod:`.cadence` says when the terminal reports; a combustion
truck's engine controller (:mod:`.ecu`) gives the J1939 values of its CAN uploads.
"""

from .cadence import ReportSchedule
from .driving import ForkliftModel
from .ecu import EngineEcu
from .planning import ForkliftPlanner
from .reports import ForkliftReports
from .state import Driver, ForkliftState, card_serial
from .steps import Kind, Step

__all__ = [
    "Driver",
    "EngineEcu",
    "ForkliftModel",
    "ForkliftPlanner",
    "ForkliftReports",
    "ForkliftState",
    "Kind",
    "ReportSchedule",
    "Step",
    "card_serial",
]
