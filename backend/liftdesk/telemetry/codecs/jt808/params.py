"""Terminal parameters (0x8103 set, 0x8104/0x8106 query, 0x0104 reply): a typed id table.

Each item on the wire is {id DWORD, length BYTE, value}.  The table gives every known id a
name, a wire type and, where the standard or our extension fixes one, a range.  Encoding
validates against the table and raises :class:`ParamValueError` naming the parameter;
decoding is lenient (a value whose length does not fit the table comes back as ``bytes``).

Standard ids follow JT/T 808-2019 table 12.  Ids 0xF001-0xF00A are Liftdesk's own vendor
parameters (``docs/protocol.md``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum, IntFlag

from ._wire import U32, decode_str
from .errors import EncodeError, ParamValueError

ParamValue = int | str | bytes


class ParamType(Enum):
    BYTE = 1
    WORD = 2
    DWORD = 4
    STRING = 0
    BYTES = -1


class ParamId(IntEnum):
    """Parameter ids with a spec in :data:`PARAM_SPECS`."""

    HEARTBEAT_INTERVAL = 0x0001
    TCP_REPLY_TIMEOUT = 0x0002
    TCP_RETRANSMISSIONS = 0x0003
    UDP_REPLY_TIMEOUT = 0x0004
    UDP_RETRANSMISSIONS = 0x0005
    SMS_REPLY_TIMEOUT = 0x0006
    SMS_RETRANSMISSIONS = 0x0007
    MAIN_APN = 0x0010
    MAIN_APN_USER = 0x0011
    MAIN_APN_PASSWORD = 0x0012
    MAIN_SERVER = 0x0013
    BACKUP_APN = 0x0014
    BACKUP_APN_USER = 0x0015
    BACKUP_APN_PASSWORD = 0x0016
    BACKUP_SERVER = 0x0017
    TCP_PORT = 0x0018
    UDP_PORT = 0x0019
    IC_AUTH_SERVER = 0x001A
    IC_AUTH_TCP_PORT = 0x001B
    IC_AUTH_UDP_PORT = 0x001C
    IC_AUTH_BACKUP_SERVER = 0x001D
    REPORT_STRATEGY = 0x0020
    REPORT_SCHEME = 0x0021
    REPORT_INTERVAL_NO_DRIVER = 0x0022
    REPORT_INTERVAL_SLEEP = 0x0027
    REPORT_INTERVAL_EMERGENCY = 0x0028
    REPORT_INTERVAL_DEFAULT = 0x0029
    REPORT_DISTANCE_DEFAULT = 0x002C
    REPORT_DISTANCE_NO_DRIVER = 0x002D
    REPORT_DISTANCE_SLEEP = 0x002E
    REPORT_DISTANCE_EMERGENCY = 0x002F
    CORNER_ANGLE = 0x0030
    FENCE_RADIUS = 0x0031
    PLATFORM_PHONE = 0x0040
    RESET_PHONE = 0x0041
    FACTORY_RESET_PHONE = 0x0042
    PLATFORM_SMS_PHONE = 0x0043
    ALARM_SMS_PHONE = 0x0044
    ANSWER_STRATEGY = 0x0045
    MAX_CALL_DURATION = 0x0046
    MONTHLY_CALL_DURATION = 0x0047
    MONITOR_PHONE = 0x0048
    PRIVILEGED_SMS_PHONE = 0x0049
    ALARM_MASK = 0x0050
    ALARM_SMS_SWITCH = 0x0051
    ALARM_PHOTO_SWITCH = 0x0052
    ALARM_PHOTO_STORE = 0x0053
    KEY_ALARMS = 0x0054
    MAX_SPEED = 0x0055
    OVERSPEED_DURATION = 0x0056
    CONTINUOUS_DRIVING_LIMIT = 0x0057
    DAILY_DRIVING_LIMIT = 0x0058
    MIN_REST = 0x0059
    MAX_PARKING = 0x005A
    OVERSPEED_WARNING_DELTA = 0x005B
    FATIGUE_WARNING_DELTA = 0x005C
    COLLISION_ALARM = 0x005D
    ROLLOVER_ANGLE = 0x005E
    TIMED_PHOTO = 0x0064
    DISTANCE_PHOTO = 0x0065
    IMAGE_QUALITY = 0x0070
    BRIGHTNESS = 0x0071
    CONTRAST = 0x0072
    SATURATION = 0x0073
    CHROMA = 0x0074
    ODOMETER = 0x0080
    PROVINCE_ID = 0x0081
    CITY_ID = 0x0082
    PLATE = 0x0083
    PLATE_COLOR = 0x0084
    GNSS_MODE = 0x0090
    GNSS_BAUD_RATE = 0x0091
    GNSS_OUTPUT_FREQUENCY = 0x0092
    GNSS_SAMPLE_INTERVAL = 0x0093
    GNSS_UPLOAD_MODE = 0x0094
    GNSS_UPLOAD_SETTING = 0x0095
    CAN1_SAMPLE_INTERVAL = 0x0100
    CAN1_UPLOAD_INTERVAL = 0x0101
    CAN2_SAMPLE_INTERVAL = 0x0102
    CAN2_UPLOAD_INTERVAL = 0x0103
    CAN_ID_SAMPLING = 0x0110
    # Liftdesk vendor parameters (docs/protocol.md)
    LOCK_LEVEL = 0xF001
    SPEED_LIMIT = 0xF002
    COLLISION_THRESHOLD = 0xF003
    COLLISION_LEVEL = 0xF004
    OVERLOAD_THRESHOLD = 0xF005
    SPEED_CALIBRATION = 0xF006
    WEIGHT_CALIBRATION = 0xF007
    FUNCTION_SWITCHES = 0xF008
    LOCAL_STORAGE_INTERVAL = 0xF009
    LOGIN_LOCKOUT = 0xF00A


class FunctionSwitch(IntFlag):
    """Bits of the Liftdesk parameter 0xF008 (1 = function enabled)."""

    FENCE = 1 << 0
    AUTHORIZATION = 1 << 1
    SPOT_CHECK = 1 << 2
    CARD = 1 << 3
    NETWORKING = 1 << 4
    SEAT_BELT_DETECTION = 1 << 5
    DMS = 1 << 6


_FUNCTION_SWITCH_MASK = int(
    FunctionSwitch.FENCE
    | FunctionSwitch.AUTHORIZATION
    | FunctionSwitch.SPOT_CHECK
    | FunctionSwitch.CARD
    | FunctionSwitch.NETWORKING
    | FunctionSwitch.SEAT_BELT_DETECTION
    | FunctionSwitch.DMS
)

_INT_BITS = {ParamType.BYTE: 8, ParamType.WORD: 16, ParamType.DWORD: 32}


@dataclass(frozen=True, slots=True)
class ParamSpec:
    id: int
    name: str
    type: ParamType
    unit: str = ""
    minimum: int | None = None
    maximum: int | None = None
    #: Fixed byte length for BYTES parameters.
    length: int | None = None
    vendor: bool = False
    description: str = ""

    def validate(self, value: ParamValue) -> ParamValue:
        """Return ``value`` if it fits, else raise :class:`ParamValueError` naming the parameter."""
        if self.type in _INT_BITS:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ParamValueError(self.id, self.name, f"expected an integer, got {value!r}")
            low = 0 if self.minimum is None else self.minimum
            high = (1 << _INT_BITS[self.type]) - 1 if self.maximum is None else self.maximum
            if not low <= value <= high:
                unit = f" {self.unit}" if self.unit else ""
                raise ParamValueError(self.id, self.name, f"{value}{unit} is outside {low}..{high}{unit}")
            if self.id == ParamId.FUNCTION_SWITCHES and value & ~_FUNCTION_SWITCH_MASK:
                raise ParamValueError(self.id, self.name, f"undefined switch bits in 0x{value:x}")
            return value
        if self.type is ParamType.STRING:
            if not isinstance(value, str):
                raise ParamValueError(self.id, self.name, f"expected a string, got {value!r}")
            return value
        if not isinstance(value, bytes):
            raise ParamValueError(self.id, self.name, f"expected bytes, got {value!r}")
        if self.length is not None and len(value) != self.length:
            raise ParamValueError(self.id, self.name, f"expected {self.length} bytes, got {len(value)}")
        return value

    def encode(self, value: ParamValue) -> bytes:
        value = self.validate(value)
        if isinstance(value, int):
            return value.to_bytes(self.type.value, "big")
        if isinstance(value, str):
            try:
                raw = value.encode("gbk")
            except UnicodeEncodeError as exc:
                raise ParamValueError(self.id, self.name, f"{value!r} cannot be encoded in GBK") from exc
        else:
            raw = value
        if len(raw) > 0xFF:
            raise ParamValueError(self.id, self.name, f"value of {len(raw)} bytes exceeds 255")
        return raw

    def decode(self, raw: bytes) -> ParamValue:
        if self.type in _INT_BITS:
            return int.from_bytes(raw, "big") if len(raw) == self.type.value else raw
        if self.type is ParamType.STRING:
            return decode_str(raw)
        return raw


def _spec(
    pid: ParamId,
    ptype: ParamType,
    unit: str = "",
    minimum: int | None = None,
    maximum: int | None = None,
    description: str = "",
    length: int | None = None,
) -> ParamSpec:
    return ParamSpec(
        int(pid),
        pid.name.lower(),
        ptype,
        unit,
        minimum,
        maximum,
        length,
        vendor=pid >= 0xF000,
        description=description,
    )


_B, _W, _D, _S, _X = ParamType.BYTE, ParamType.WORD, ParamType.DWORD, ParamType.STRING, ParamType.BYTES
P = ParamId

#: Every parameter the codec knows, by id.
PARAM_SPECS: Mapping[int, ParamSpec] = {
    s.id: s
    for s in (
        _spec(P.HEARTBEAT_INTERVAL, _D, "s", description="heartbeat interval"),
        _spec(P.TCP_REPLY_TIMEOUT, _D, "s", description="TCP reply timeout (terminal side)"),
        _spec(P.TCP_RETRANSMISSIONS, _D, description="TCP retransmissions"),
        _spec(P.UDP_REPLY_TIMEOUT, _D, "s"),
        _spec(P.UDP_RETRANSMISSIONS, _D),
        _spec(P.SMS_REPLY_TIMEOUT, _D, "s"),
        _spec(P.SMS_RETRANSMISSIONS, _D),
        _spec(P.MAIN_APN, _S),
        _spec(P.MAIN_APN_USER, _S),
        _spec(P.MAIN_APN_PASSWORD, _S),
        _spec(P.MAIN_SERVER, _S, description="IP or domain; 2019: host:port;host:port"),
        _spec(P.BACKUP_APN, _S),
        _spec(P.BACKUP_APN_USER, _S),
        _spec(P.BACKUP_APN_PASSWORD, _S),
        _spec(P.BACKUP_SERVER, _S, description="IP or domain; 2019: host:port;host:port"),
        _spec(P.TCP_PORT, _D, minimum=0, maximum=0xFFFF, description="server TCP port (2013)"),
        _spec(P.UDP_PORT, _D, minimum=0, maximum=0xFFFF, description="server UDP port (2013)"),
        _spec(P.IC_AUTH_SERVER, _S),
        _spec(P.IC_AUTH_TCP_PORT, _D, minimum=0, maximum=0xFFFF),
        _spec(P.IC_AUTH_UDP_PORT, _D, minimum=0, maximum=0xFFFF),
        _spec(P.IC_AUTH_BACKUP_SERVER, _S),
        _spec(P.REPORT_STRATEGY, _D, minimum=0, maximum=2, description="0 timed, 1 by distance, 2 both"),
        _spec(P.REPORT_SCHEME, _D, minimum=0, maximum=1, description="0 by ACC, 1 by login and ACC"),
        _spec(P.REPORT_INTERVAL_NO_DRIVER, _D, "s"),
        _spec(P.REPORT_INTERVAL_SLEEP, _D, "s"),
        _spec(P.REPORT_INTERVAL_EMERGENCY, _D, "s"),
        _spec(P.REPORT_INTERVAL_DEFAULT, _D, "s", description="default position report interval"),
        _spec(P.REPORT_DISTANCE_DEFAULT, _D, "m"),
        _spec(P.REPORT_DISTANCE_NO_DRIVER, _D, "m"),
        _spec(P.REPORT_DISTANCE_SLEEP, _D, "m"),
        _spec(P.REPORT_DISTANCE_EMERGENCY, _D, "m"),
        _spec(P.CORNER_ANGLE, _D, "°", 0, 179, "corner re-report angle (< 180)"),
        _spec(P.FENCE_RADIUS, _W, "m", description="illegal displacement threshold"),
        _spec(P.PLATFORM_PHONE, _S),
        _spec(P.RESET_PHONE, _S),
        _spec(P.FACTORY_RESET_PHONE, _S),
        _spec(P.PLATFORM_SMS_PHONE, _S),
        _spec(P.ALARM_SMS_PHONE, _S),
        _spec(P.ANSWER_STRATEGY, _D, minimum=0, maximum=1),
        _spec(P.MAX_CALL_DURATION, _D, "s"),
        _spec(P.MONTHLY_CALL_DURATION, _D, "s"),
        _spec(P.MONITOR_PHONE, _S),
        _spec(P.PRIVILEGED_SMS_PHONE, _S),
        _spec(P.ALARM_MASK, _D, description="alarm bits (0x0200 layout) to ignore"),
        _spec(P.ALARM_SMS_SWITCH, _D),
        _spec(P.ALARM_PHOTO_SWITCH, _D),
        _spec(P.ALARM_PHOTO_STORE, _D),
        _spec(P.KEY_ALARMS, _D),
        _spec(P.MAX_SPEED, _D, "km/h"),
        _spec(P.OVERSPEED_DURATION, _D, "s"),
        _spec(P.CONTINUOUS_DRIVING_LIMIT, _D, "s"),
        _spec(P.DAILY_DRIVING_LIMIT, _D, "s"),
        _spec(P.MIN_REST, _D, "s"),
        _spec(P.MAX_PARKING, _D, "s"),
        _spec(P.OVERSPEED_WARNING_DELTA, _W, "0.1 km/h"),
        _spec(P.FATIGUE_WARNING_DELTA, _W, "s"),
        _spec(P.COLLISION_ALARM, _W, description="bits 0-7 duration (4 ms), 8-15 acceleration (0.1 g, 0-79)"),
        _spec(P.ROLLOVER_ANGLE, _W, "°", 0, 180),
        _spec(P.TIMED_PHOTO, _D),
        _spec(P.DISTANCE_PHOTO, _D),
        _spec(P.IMAGE_QUALITY, _D, minimum=1, maximum=10),
        _spec(P.BRIGHTNESS, _D, minimum=0, maximum=255),
        _spec(P.CONTRAST, _D, minimum=0, maximum=127),
        _spec(P.SATURATION, _D, minimum=0, maximum=127),
        _spec(P.CHROMA, _D, minimum=0, maximum=255),
        _spec(P.ODOMETER, _D, "0.1 km"),
        _spec(P.PROVINCE_ID, _W),
        _spec(P.CITY_ID, _W),
        _spec(P.PLATE, _S),
        _spec(P.PLATE_COLOR, _B),
        _spec(P.GNSS_MODE, _B, description="bit 0 GPS, 1 BeiDou, 2 GLONASS, 3 Galileo"),
        _spec(P.GNSS_BAUD_RATE, _B, minimum=0, maximum=5),
        _spec(P.GNSS_OUTPUT_FREQUENCY, _B, minimum=0, maximum=4),
        _spec(P.GNSS_SAMPLE_INTERVAL, _D, "s"),
        _spec(P.GNSS_UPLOAD_MODE, _B),
        _spec(P.GNSS_UPLOAD_SETTING, _D),
        _spec(P.CAN1_SAMPLE_INTERVAL, _D, "ms"),
        _spec(P.CAN1_UPLOAD_INTERVAL, _W, "s"),
        _spec(P.CAN2_SAMPLE_INTERVAL, _D, "ms"),
        _spec(P.CAN2_UPLOAD_INTERVAL, _W, "s"),
        _spec(P.CAN_ID_SAMPLING, _X, length=8, description="per-CAN-id sampling setting"),
        # Liftdesk vendor parameters
        _spec(P.LOCK_LEVEL, _B, "", 0, 2, "0 unlocked, 1 soft lock, 2 full lock"),
        _spec(P.SPEED_LIMIT, _B, "km/h", 0, 30, "speed limit, 0 = none"),
        _spec(P.COLLISION_THRESHOLD, _W, "0.1 g", 0, 200, "impact alarm threshold, 0-20 g"),
        _spec(P.COLLISION_LEVEL, _B, "", 1, 5, "impact sensitivity level"),
        _spec(P.OVERLOAD_THRESHOLD, _W, "", 0, 600, "overload threshold (unit as the original product)"),
        _spec(P.SPEED_CALIBRATION, _W, "0.001", 500, 2000, "speed correction factor (1000 = 1.000)"),
        _spec(P.WEIGHT_CALIBRATION, _W, "0.001", 500, 2000, "load correction factor (1000 = 1.000)"),
        _spec(P.FUNCTION_SWITCHES, _D, "", 0, _FUNCTION_SWITCH_MASK, "FunctionSwitch bits"),
        _spec(P.LOCAL_STORAGE_INTERVAL, _D, "s", 1, 86_400, "interval of records kept on the device"),
        _spec(P.LOGIN_LOCKOUT, _W, "min", 0, 1440, "wait after three failed driver logins"),
    )
}


@dataclass(frozen=True, slots=True)
class ParamItem:
    id: int
    value: ParamValue


def encode_param(param_id: int, value: ParamValue) -> bytes:
    """One parameter value → bytes, validated against :data:`PARAM_SPECS`.

    Ids the table does not know accept ``bytes`` (sent as is) or ``str`` (GBK).
    """
    spec = PARAM_SPECS.get(param_id)
    if spec is not None:
        return spec.encode(value)
    name = f"0x{param_id:04x}"
    if not isinstance(param_id, int) or not 0 <= param_id <= 0xFFFFFFFF:
        raise EncodeError(f"parameter id {param_id!r} is not a DWORD")
    if isinstance(value, str):
        return ParamSpec(param_id, name, ParamType.STRING).encode(value)
    if isinstance(value, bytes):
        return ParamSpec(param_id, name, ParamType.BYTES).encode(value)
    raise ParamValueError(param_id, name, "unknown parameter: pass bytes or str so its width is explicit")


def decode_param(param_id: int, raw: bytes) -> ParamValue:
    spec = PARAM_SPECS.get(param_id)
    return raw if spec is None else spec.decode(raw)


def encode_param_items(params: Mapping[int, ParamValue] | Iterable[ParamItem]) -> bytes:
    """Count BYTE + items, the shared tail of 0x8103 and 0x0104."""
    pairs = (
        [(int(k), v) for k, v in params.items()] if isinstance(params, Mapping) else [(p.id, p.value) for p in params]
    )
    if len(pairs) > 0xFF:
        raise EncodeError(f"{len(pairs)} parameters do not fit one message (max 255)")
    out = bytearray((len(pairs),))
    for param_id, value in pairs:
        raw = encode_param(param_id, value)
        out += U32.pack(param_id) + bytes((len(raw),)) + raw
    return bytes(out)


def decode_param_items(body: bytes, offset: int) -> tuple[ParamItem, ...]:
    """Inverse of :func:`encode_param_items` from ``offset``; raises on truncation."""
    count = body[offset]
    offset += 1
    items = []
    for _ in range(count):
        param_id = U32.unpack_from(body, offset)[0]
        length = body[offset + 4]
        start = offset + 5
        offset = start + length
        if offset > len(body):
            raise ValueError(f"parameter 0x{param_id:04x} is truncated")
        items.append(ParamItem(param_id, decode_param(param_id, body[start:offset])))
    if offset != len(body):
        raise ValueError(f"{len(body) - offset} bytes after the last parameter")
    return tuple(items)
