"""Message-level entry points: bytes → :class:`Message` and body objects → frames.

Typical gateway loop::

    splitter = FrameSplitter()
    assembler = SubpackageAssembler()
    for frame in splitter.feed(chunk):
        try:
            packet = assembler.add(decode_packet(frame))
            if packet is None:
                continue                      # waiting for more sub-packages
            message = parse_packet(packet)
        except Jt808Error:
            log and drop the frame
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from . import speedups
from .drivers import CardList, parse_card_list
from .errors import BodyError
from .location import Location
from .packet import MAX_BODY, Header, Jt808Version, Packet, encode_frame, encode_frames
from .platform import (
    AlarmConfirmation,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    PlatformGeneralReply,
    QueryAllParams,
    QueryParams,
    RegistrationReply,
    ResendRequest,
    SetCircleAreas,
    SetParams,
    SetPolygonArea,
    SetRectangleAreas,
    TerminalControl,
    TextMessage,
    UpgradePackage,
    VehicleControl,
    parse_alarm_confirmation,
    parse_delete_circle_areas,
    parse_delete_polygon_areas,
    parse_delete_rectangle_areas,
    parse_platform_general_reply,
    parse_query_params,
    parse_registration_reply,
    parse_resend_request,
    parse_set_circle_areas,
    parse_set_params,
    parse_set_polygon_area,
    parse_set_rectangle_areas,
    parse_terminal_control,
    parse_text_message,
    parse_upgrade_package,
    parse_vehicle_control,
)
from .terminal import (
    Authentication,
    CanData,
    DriverIdentity,
    GeneralReply,
    Heartbeat,
    LocationBatch,
    LocationQueryReply,
    Logout,
    ParamQueryReply,
    PassThrough,
    Registration,
    TerminalAttributes,
    UpgradeResult,
    VehicleControlReply,
    parse_authentication,
    parse_can_data,
    parse_driver_identity,
    parse_general_reply,
    parse_param_query_reply,
    parse_pass_through,
    parse_registration,
    parse_terminal_attributes,
    parse_upgrade_result,
)


@dataclass(frozen=True, slots=True)
class RawBody:
    """A body the codec does not interpret: unknown message id, encrypted, or one sub-package."""

    msg_id: int
    data: bytes

    def encode(self, version: Jt808Version = Jt808Version.V2013) -> bytes:
        return self.data


Body = (
    GeneralReply
    | Heartbeat
    | Logout
    | Registration
    | Authentication
    | ParamQueryReply
    | TerminalAttributes
    | UpgradeResult
    | Location
    | LocationQueryReply
    | VehicleControlReply
    | DriverIdentity
    | LocationBatch
    | CanData
    | PassThrough
    | PlatformGeneralReply
    | RegistrationReply
    | ResendRequest
    | AlarmConfirmation
    | SetParams
    | QueryAllParams
    | QueryParams
    | TerminalControl
    | VehicleControl
    | SetCircleAreas
    | SetRectangleAreas
    | SetPolygonArea
    | DeleteCircleAreas
    | DeleteRectangleAreas
    | DeletePolygonAreas
    | UpgradePackage
    | TextMessage
    | CardList
    | RawBody
)


@dataclass(frozen=True, slots=True)
class Message:
    header: Header
    body: Body


_Parser = Callable[[bytes, Jt808Version, bool], Body]


def _plain(parse: Callable[[bytes, Jt808Version], Body]) -> _Parser:
    def run(body: bytes, version: Jt808Version, liftdesk: bool) -> Body:
        return parse(body, version)

    return run


def _empty(factory: Callable[[], Body]) -> _Parser:
    def run(body: bytes, version: Jt808Version, liftdesk: bool) -> Body:
        return factory()

    return run


def _location(body: bytes, version: Jt808Version, liftdesk: bool) -> Body:
    return speedups.ACTIVE.decode_location(body, liftdesk=liftdesk)


def _with_serial(factory: Callable[[int, Location], Body]) -> _Parser:
    def run(body: bytes, version: Jt808Version, liftdesk: bool) -> Body:
        if len(body) < 2:
            raise ValueError("body shorter than the reply serial")
        return factory(int.from_bytes(body[:2], "big"), speedups.ACTIVE.decode_location(body[2:], liftdesk=liftdesk))

    return run


def _batch(body: bytes, version: Jt808Version, liftdesk: bool) -> Body:
    return speedups.ACTIVE.parse_location_batch(body, version, liftdesk=liftdesk)


def _pass_through(body: bytes, version: Jt808Version, liftdesk: bool) -> Body:
    return parse_pass_through(body, version, liftdesk=liftdesk)


#: Body parser per message id (terminal and platform messages).
PARSERS: dict[int, _Parser] = {
    0x0001: _plain(parse_general_reply),
    0x0002: _empty(Heartbeat),
    0x0003: _empty(Logout),
    0x0100: _plain(parse_registration),
    0x0101: _empty(Logout),  # 2011 terminals deregister with 0x0101
    0x0102: _plain(parse_authentication),
    0x0104: _plain(parse_param_query_reply),
    0x0107: _plain(parse_terminal_attributes),
    0x0108: _plain(parse_upgrade_result),
    0x0200: _location,
    0x0201: _with_serial(LocationQueryReply),
    0x0500: _with_serial(VehicleControlReply),
    0x0702: _plain(parse_driver_identity),
    0x0704: _batch,
    0x0705: _plain(parse_can_data),
    0x0900: _pass_through,
    0x8001: _plain(parse_platform_general_reply),
    0x8003: _plain(parse_resend_request),
    0x8100: _plain(parse_registration_reply),
    0x8103: _plain(parse_set_params),
    0x8104: _empty(QueryAllParams),
    0x8105: _plain(parse_terminal_control),
    0x8106: _plain(parse_query_params),
    0x8108: _plain(parse_upgrade_package),
    0x8203: _plain(parse_alarm_confirmation),
    0x8300: _plain(parse_text_message),
    0x8500: _plain(parse_vehicle_control),
    0x8600: _plain(parse_set_circle_areas),
    0x8601: _plain(parse_delete_circle_areas),
    0x8602: _plain(parse_set_rectangle_areas),
    0x8603: _plain(parse_delete_rectangle_areas),
    0x8604: _plain(parse_set_polygon_area),
    0x8605: _plain(parse_delete_polygon_areas),
    0x8F01: _plain(parse_card_list),  # Liftdesk vendor message: the card list (drivers.py)
}

_MALFORMED = (ValueError, IndexError, struct.error, UnicodeError, OverflowError)


def parse_body(msg_id: int, body: bytes, version: Jt808Version = Jt808Version.V2013, *, liftdesk: bool = True) -> Body:
    """Parse a complete (reassembled, unencrypted) body; unknown ids give :class:`RawBody`.

    ``liftdesk`` enables the Liftdesk vendor extension (items 0xE0-0xFF, pass-through 0xF0/0xF1);
    turn it off for terminals of other makers, whose vendor items then stay raw.
    Raises :class:`BodyError` when a known body is malformed.
    """
    parser = PARSERS.get(msg_id)
    if parser is None:
        return RawBody(msg_id, body)
    try:
        return parser(body, version, liftdesk)
    except _MALFORMED as exc:
        raise BodyError(msg_id, str(exc) or type(exc).__name__) from exc


def parse_packet(packet: Packet, *, liftdesk: bool = True) -> Message:
    """Packet → Message.  Encrypted bodies and single sub-packages are returned as RawBody."""
    header = packet.header
    if header.encryption or header.subpackage is not None:
        return Message(header, RawBody(header.msg_id, packet.body))
    return Message(header, parse_body(header.msg_id, packet.body, header.version, liftdesk=liftdesk))


def decode_message(frame: bytes, *, liftdesk: bool = True) -> Message:
    """One frame → Message (no sub-package reassembly; see :class:`SubpackageAssembler`)."""
    return parse_packet(speedups.ACTIVE.decode_packet(frame), liftdesk=liftdesk)


def encode_message(
    body: Body,
    *,
    terminal: str,
    serial: int,
    version: Jt808Version = Jt808Version.V2013,
    protocol_version: int = 1,
    max_body: int = MAX_BODY,
) -> list[bytes]:
    """Body object → wire frames (one, or several sub-packages with consecutive serials)."""
    return encode_frames(
        body.msg_id,
        body.encode(version),
        terminal=terminal,
        serial=serial,
        version=version,
        protocol_version=protocol_version,
        max_body=max_body,
    )


def encode_single(
    body: Body,
    *,
    terminal: str,
    serial: int,
    version: Jt808Version = Jt808Version.V2013,
    protocol_version: int = 1,
) -> bytes:
    """Like :func:`encode_message` for bodies that must fit one frame (raises EncodeError otherwise)."""
    return encode_frame(
        body.msg_id,
        body.encode(version),
        terminal=terminal,
        serial=serial,
        version=version,
        protocol_version=protocol_version,
    )


__all__ = [
    "PARSERS",
    "Body",
    "Message",
    "RawBody",
    "decode_message",
    "encode_message",
    "encode_single",
    "parse_body",
    "parse_packet",
]
