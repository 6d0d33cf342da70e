"""Terminal gateways: the JT/T 808 TCP server and the codec → canonical message mapping.

Composition (one process)::

    pipeline = Pipeline(db, bus)
    terminals = TerminalService(db)
    commands = CommandService(db, bus)
    await commands.start()
    gateway = Gateway(db, pipeline, terminals, commands, host, settings.gateway_port,
                      vendor_extension_makers=settings.vendor_extension_makers, attributes_max_age_s=DAY_S)
    gateway.follow(bus)  # close the connection of a terminal whose vehicle is deleted or renumbered
    await gateway.start()
    ...
    await gateway.stop(); await commands.stop(); await pipeline.stop()
"""

from liftdesk.telemetry.gateway.mapping import (
    battery_of,
    device_candidates,
    device_of,
    location_to_fix,
    naive_utc,
)
from liftdesk.telemetry.gateway.server import Gateway, GatewayStats, Session

__all__ = [
    "Gateway",
    "GatewayStats",
    "Session",
    "battery_of",
    "device_candidates",
    "device_of",
    "location_to_fix",
    "naive_utc",
]
