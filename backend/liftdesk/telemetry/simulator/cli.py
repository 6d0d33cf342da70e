"""``liftdesk simulate``: a fleet of simulated forklifts against the JT/T 808 gateway.

Wiring into ``liftdesk.cli``::

    from liftdesk.telemetry.simulator.cli import cmd_simulate, configure_parser

    p = sub.add_parser("simulate", help="run simulated forklifts against the JT/T 808 gateway")
    configure_parser(p)
    p.set_defaults(func=cmd_simulate)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
from datetime import datetime

from .fleet import Fleet
from .schedule import LOCAL_TZ
from .specs import DeviceSpec, demo_specs

log = logging.getLogger("liftdesk.simulator")


def configure_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--vehicles",
        "-n",
        type=int,
        default=None,
        help="number of vehicles (default: LIFTDESK_SIMULATOR_VEHICLES, else 20)",
    )
    p.add_argument("--host", default="127.0.0.1", help="gateway host (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="gateway port (default: LIFTDESK_GATEWAY_PORT, else 7808)")
    p.add_argument("--seed", type=int, default=1, help="what the fleet is and does (default 1)")
    p.add_argument("--first", type=int, default=1, help="index of the first terminal number (default 1)")
    p.add_argument("--speedup", type=float, default=1.0, help="simulated seconds per wall second (default 1)")
    p.add_argument(
        "--interval", type=float, default=10.0, help="position report interval in simulated seconds (default 10)"
    )
    p.add_argument(
        "--start", default=None, help="simulated start time, ISO 8601 (default now; without a zone: China time)"
    )
    p.add_argument("--duration", type=float, default=None, help="stop after this many wall-clock seconds")
    p.add_argument("--list", action="store_true", help="print the vehicles as JSON lines and exit")


def _defaults() -> tuple[int, int]:
    try:
        from liftdesk.core.config import get_settings

        settings = get_settings()
        return settings.simulator_vehicles, settings.gateway_port
    except Exception:  # settings are a convenience here; the simulator does not need them
        return 20, 7808


def spec_record(spec: DeviceSpec) -> dict[str, object]:
    """What the back office needs to know of a simulated vehicle (to create it before the terminal registers)."""
    return {
        "device_number": spec.device,
        "protocol": f"jt808-{int(spec.version)}",
        "car_no": spec.name,
        "car_type": int(spec.vehicle_type),
        "type_label": spec.profile.label,
        "rated_load_kg": spec.rated_load_kg,
        "frame_number": spec.frame_number,
        "battery": spec.battery_chemistry.value if spec.battery_chemistry else None,
        "shift_pattern": spec.shift_pattern.value,
        "base_lat": spec.base_lat,
        "base_lon": spec.base_lon,
    }


def _parse_start(text: str | None) -> datetime | None:
    if not text:
        return None
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=LOCAL_TZ)


async def simulate(
    specs: list[DeviceSpec],
    host: str,
    port: int,
    *,
    speedup: float = 1.0,
    report_interval_s: float = 10.0,
    start: datetime | None = None,
    duration_s: float | None = None,
) -> Fleet:
    """Run until SIGINT/SIGTERM (or ``duration_s``); returns the fleet with its statistics."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    if duration_s is not None:
        loop.call_later(duration_s, stop.set)
    fleet = Fleet(host, port, specs, speedup, report_interval_s, start=start)
    log.info("simulating %d vehicles against %s:%d (speedup %g)", len(specs), host, port, speedup)
    try:
        await fleet.run(stop, status_interval_s=30.0)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
    log.info("%s", fleet.summary())
    return fleet


def cmd_simulate(args: argparse.Namespace) -> int:
    vehicles, port = _defaults()
    n = vehicles if args.vehicles is None else args.vehicles
    specs = demo_specs(n, args.seed, first=args.first)
    if args.list:
        for spec in specs:
            sys.stdout.write(json.dumps(spec_record(spec), ensure_ascii=False) + "\n")
        return 0
    if args.speedup <= 0 or args.interval <= 0:
        sys.stderr.write("--speedup and --interval must be positive\n")
        return 2
    asyncio.run(
        simulate(
            specs,
            args.host,
            args.port or port,
            speedup=args.speedup,
            report_interval_s=args.interval,
            start=_parse_start(args.start),
            duration_s=args.duration,
        )
    )
    return 0
