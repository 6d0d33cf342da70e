"""A JT/T 808 gateway and its pipeline alone in a process, for tests that kill it (``test_gateway_load.py``).

``python gateway_process.py DATABASE_URL PORT`` serves terminals on 127.0.0.1:PORT (0: a free port) and prints the
port once it accepts connections; it runs until it is killed. It is wired like the gateway of ``liftdesk serve``
(``app.Runtime``), but alone, so that a SIGKILL takes down exactly the gateway, the pipeline and whatever they hold
in memory, and nothing of the test process.

Authentication is strict: a terminal gets in only with the code this platform issued and stored, so a terminal
that re-authenticates with a new process after the kill shows that the code outlived the killed one.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from liftdesk.core.bus import LocalBus
from liftdesk.core.db import Database
from liftdesk.telemetry.commands import CommandService
from liftdesk.telemetry.gateway.server import Gateway
from liftdesk.telemetry.pipeline import Pipeline
from liftdesk.telemetry.terminals import TerminalService


async def serve(url: str, port: int) -> None:
    db = Database(url=url)
    bus = LocalBus()
    pipeline = Pipeline(db, bus)
    commands = CommandService(db, bus)
    terminals = TerminalService(db, strict_auth=True)
    gateway = Gateway(db, pipeline, terminals, commands, host="127.0.0.1", port=port, idle_timeout_s=300)
    await pipeline.start()
    await gateway.start()
    print(gateway.port, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(sys.argv[1], int(sys.argv[2])))
