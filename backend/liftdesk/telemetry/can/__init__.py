"""CAN frames decoded: the SAE J1939-71 parameters the monitor charts use, from the small DBC file next to this
module (``j1939.dbc``), decoded with ``cantools``.

Only 29-bit (extended) frames are J1939; a frame is matched by its PGN (parameter group number), whatever its
source address and priority. A parameter a sender marks "not available" or "error" (J1939-71 §5.1.4: the raw value
above the valid range, e.g. 0xFB-0xFF of a byte, 0xFB00-0xFFFF of a word) is left out. The groups and parameters:

=========  ======  ==========================================================  ==============================
group      PGN     parameter (SPN)                                             column of ``fics_can_sample``
=========  ======  ==========================================================  ==============================
EEC1       61444   engine speed (190), 0.125 rpm/bit                           ``engine_rpm``
EEC2       61443   accelerator pedal position 1 (91), 0.4 %/bit                ``pedal_pct``
EEC2       61443   engine percent load at current speed (92), 1 %/bit          ``load_pct``
LFE1       65266   engine fuel rate (183), 0.05 L/h/bit                        ``fuel_lph``
EGF1       61450   engine inlet air mass flow rate (132), 0.05 kg/h/bit        ``air_kgh``
AT1IMG     64948   aftertreatment 1 DPF differential pressure (3251), 0.1 kPa  ``dpf_dp_kpa``
AT1S       64891   aftertreatment 1 DPF soot load percent (3719), 1 %/bit      ``soot_pct``
AT1T1I     65110   aftertreatment 1 DEF tank volume (1761), 0.4 %/bit          ``def_pct``
=========  ======  ==========================================================  ==============================
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

import cantools
from cantools.database.can import Database, Message
from cantools.j1939 import pgn_from_frame_id as _pgn_from_frame_id

from liftdesk.telemetry.messages import CanFrame

DBC = Path(__file__).with_name("j1939.dbc")

#: (group, signal of the DBC) → the column of ``fics_can_sample`` it is kept in.
SIGNALS: dict[tuple[str, str], str] = {
    ("EEC1", "EngSpeed"): "engine_rpm",
    ("EEC2", "AccelPedalPos1"): "pedal_pct",
    ("EEC2", "EngPercentLoadAtCurSpeed"): "load_pct",
    ("LFE1", "EngFuelRate"): "fuel_lph",
    ("EGF1", "EngInletAirMassFlowRate"): "air_kgh",
    ("AT1IMG", "Aftertreatment1DPFDiffPressure"): "dpf_dp_kpa",
    ("AT1S", "Aftertreatment1DPFSootLoadPercent"): "soot_pct",
    ("AT1T1I", "Aftertreatment1DEFTankVolume"): "def_pct",
}
#: Every column a sample can hold.
COLUMNS: tuple[str, ...] = tuple(dict.fromkeys(SIGNALS.values()))


def pgn_from_frame_id(frame_id: int) -> int:
    """The PGN of a 29-bit id (the destination address of a PDU1 group left out)."""
    pgn = _pgn_from_frame_id(frame_id)  # type: ignore[no-untyped-call]
    assert isinstance(pgn, int)
    return pgn


@cache
def database() -> Database:
    db = cantools.database.load_file(str(DBC), database_format="dbc")
    assert isinstance(db, Database)
    return db


@cache
def by_pgn() -> dict[int, Message]:
    return {pgn_from_frame_id(m.frame_id): m for m in database().messages}


def _valid(raw: int, length: int) -> bool:
    """Below J1939's reserved range: a byte 0-250 (0xFA), a word 0-64255 (0xFAFF)."""
    if length == 8:
        return raw <= 0xFA
    if length == 16:
        return raw <= 0xFAFF
    return raw < (1 << length) - 2


def decode(frame: CanFrame) -> dict[str, float]:
    """The columns one frame gives (none: not J1939, a group not in the table, every parameter not available)."""
    if not frame.extended or len(frame.data) < 8:
        return {}
    message = by_pgn().get(pgn_from_frame_id(frame.can_id & 0x1FFFFFFF))
    if message is None:
        return {}
    raw = message.decode(frame.data, decode_choices=False, scaling=False)
    assert isinstance(raw, dict)
    out: dict[str, float] = {}
    for signal in message.signals:
        column = SIGNALS.get((message.name, signal.name))
        value = raw.get(signal.name)
        if column is None or not isinstance(value, int) or not _valid(value, signal.length):
            continue
        out[column] = round(value * float(signal.scale) + float(signal.offset), 4)
    return out


def decode_all(frames: Iterable[CanFrame]) -> dict[str, float]:
    """What a set of frames sent together says (a later frame of the same group wins)."""
    out: dict[str, float] = {}
    for frame in frames:
        out.update(decode(frame))
    return out


def encode(group: str, values: dict[str, float], source: int = 0) -> CanFrame:
    """A frame of ``group`` from the DBC's signal values (those not given: "not available", all ones), sent by
    ``source`` with the group's default priority (the simulator's terminals; the decoding test)."""
    message = database().get_message_by_name(group)
    data = bytearray(b"\xff" * 8)
    for signal in message.signals:
        if signal.name not in values:
            continue
        raw = round((values[signal.name] - float(signal.offset)) / float(signal.scale))
        raw = max(0, min(raw, (0xFA if signal.length == 8 else 0xFAFF)))
        start = signal.start // 8
        data[start : start + signal.length // 8] = raw.to_bytes(signal.length // 8, "little")
    return CanFrame(can_id=(message.frame_id & ~0xFF) | (source & 0xFF), data=bytes(data))
