"""The parameters a simulated terminal holds (0x8103 set, 0x8104/0x8106 query, 0x0104 reply)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from liftdesk.telemetry.codecs.jt808 import (
    PARAM_SPECS,
    FunctionSwitch,
    Jt808Version,
    ParamId,
    ParamItem,
    ParamValue,
    ParamValueError,
)

#: Parameters that must be at least 1 on a terminal (a zero interval would mean "never" or "flood").
_POSITIVE = frozenset(
    {
        ParamId.HEARTBEAT_INTERVAL,
        ParamId.TCP_REPLY_TIMEOUT,
        ParamId.REPORT_INTERVAL_SLEEP,
        ParamId.REPORT_INTERVAL_EMERGENCY,
        ParamId.REPORT_INTERVAL_DEFAULT,
    }
)

DEFAULT_SWITCHES = int(
    FunctionSwitch.FENCE | FunctionSwitch.CARD | FunctionSwitch.NETWORKING | FunctionSwitch.SEAT_BELT_DETECTION
)


def default_params(
    *,
    host: str,
    port: int,
    version: Jt808Version,
    report_interval_s: int = 10,
    province_id: int = 31,
    city_id: int = 115,
    plate: str = "",
) -> dict[int, ParamValue]:
    """Factory settings of a Liftdesk terminal (standard ids plus the vendor ones 0xF001-0xF00A)."""
    server = f"{host}:{port}" if version is Jt808Version.V2019 else host
    values: dict[int, ParamValue] = {
        ParamId.HEARTBEAT_INTERVAL: 30,
        ParamId.TCP_REPLY_TIMEOUT: 10,
        ParamId.TCP_RETRANSMISSIONS: 3,
        ParamId.MAIN_SERVER: server,
        ParamId.REPORT_STRATEGY: 0,
        ParamId.REPORT_SCHEME: 0,
        ParamId.REPORT_INTERVAL_SLEEP: max(60, report_interval_s),
        ParamId.REPORT_INTERVAL_EMERGENCY: max(1, min(5, report_interval_s)),
        ParamId.REPORT_INTERVAL_DEFAULT: max(1, report_interval_s),
        ParamId.MAX_SPEED: 12,
        ParamId.OVERSPEED_DURATION: 5,
        ParamId.COLLISION_ALARM: (15 << 8) | 5,
        ParamId.ODOMETER: 0,
        ParamId.PROVINCE_ID: province_id,
        ParamId.CITY_ID: city_id,
        ParamId.PLATE: plate,
        ParamId.PLATE_COLOR: 0,
        ParamId.LOCK_LEVEL: 0,
        ParamId.SPEED_LIMIT: 0,
        ParamId.COLLISION_THRESHOLD: 15,
        ParamId.COLLISION_LEVEL: 3,
        ParamId.OVERLOAD_THRESHOLD: 110,
        ParamId.SPEED_CALIBRATION: 1000,
        ParamId.WEIGHT_CALIBRATION: 1000,
        ParamId.FUNCTION_SWITCHES: DEFAULT_SWITCHES,
        ParamId.LOCAL_STORAGE_INTERVAL: 30,
        ParamId.LOGIN_LOCKOUT: 5,
    }
    if version is Jt808Version.V2013:
        values[ParamId.TCP_PORT] = port
    return {int(k): v for k, v in values.items()}


class TerminalParams:
    """Current parameter values; :meth:`apply` is all-or-nothing."""

    def __init__(self, defaults: Mapping[int, ParamValue]) -> None:
        self._defaults = dict(defaults)
        self.values: dict[int, ParamValue] = dict(defaults)

    def reset(self) -> None:
        self.values = dict(self._defaults)

    @staticmethod
    def check(item: ParamItem) -> None:
        """Raise :class:`ParamValueError` when the terminal would refuse the value."""
        spec = PARAM_SPECS.get(item.id)
        if spec is None:
            if not isinstance(item.value, bytes | str):
                raise ParamValueError(item.id, f"0x{item.id:04x}", "unknown parameter with a non-raw value")
            return
        spec.validate(item.value)
        if item.id in _POSITIVE and isinstance(item.value, int) and item.value < 1:
            raise ParamValueError(item.id, spec.name, "must be at least 1")

    def apply(self, items: Sequence[ParamItem]) -> list[str]:
        """Store all ``items`` or none; return the problems found (empty = stored)."""
        problems: list[str] = []
        for item in items:
            try:
                self.check(item)
            except ParamValueError as exc:
                problems.append(str(exc))
        if not problems:
            for item in items:
                self.values[item.id] = item.value
        return problems

    def query(self, ids: Iterable[int] | None = None) -> tuple[ParamItem, ...]:
        """All parameters (``ids`` None) or the listed ones the terminal has, as 0x0104 items."""
        if ids is None:
            return tuple(ParamItem(k, v) for k, v in sorted(self.values.items()))
        return tuple(ParamItem(i, self.values[i]) for i in ids if i in self.values)

    def get_int(self, param_id: int, default: int = 0) -> int:
        value = self.values.get(param_id, default)
        return value if isinstance(value, int) else default

    # Convenience views used by the model and the connection.
    @property
    def lock_level(self) -> int:
        return self.get_int(ParamId.LOCK_LEVEL)

    @property
    def speed_limit_kmh(self) -> int:
        return self.get_int(ParamId.SPEED_LIMIT)

    @property
    def max_speed_kmh(self) -> int:
        return self.get_int(ParamId.MAX_SPEED, 12)

    @property
    def overspeed_duration_s(self) -> int:
        return self.get_int(ParamId.OVERSPEED_DURATION, 5)

    @property
    def collision_threshold_g(self) -> float:
        return self.get_int(ParamId.COLLISION_THRESHOLD, 15) / 10

    @property
    def speed_factor(self) -> float:
        return self.get_int(ParamId.SPEED_CALIBRATION, 1000) / 1000

    @property
    def weight_factor(self) -> float:
        return self.get_int(ParamId.WEIGHT_CALIBRATION, 1000) / 1000

    @property
    def switches(self) -> FunctionSwitch:
        return FunctionSwitch(self.get_int(ParamId.FUNCTION_SWITCHES, DEFAULT_SWITCHES))

    @property
    def heartbeat_s(self) -> int:
        return max(1, self.get_int(ParamId.HEARTBEAT_INTERVAL, 30))

    @property
    def report_interval_s(self) -> int:
        return max(1, self.get_int(ParamId.REPORT_INTERVAL_DEFAULT, 10))

    @property
    def sleep_interval_s(self) -> int:
        return max(1, self.get_int(ParamId.REPORT_INTERVAL_SLEEP, 60))

    @property
    def emergency_interval_s(self) -> int:
        return max(1, self.get_int(ParamId.REPORT_INTERVAL_EMERGENCY, 5))

    @property
    def reply_timeout_s(self) -> int:
        return max(1, self.get_int(ParamId.TCP_REPLY_TIMEOUT, 10))
