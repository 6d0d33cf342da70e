"""``python -m liftdesk.telemetry.simulator --vehicles 5`` (same options as ``liftdesk simulate``)."""

from __future__ import annotations

import argparse
import logging

from .cli import cmd_simulate, configure_parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog="python -m liftdesk.telemetry.simulator", description="Simulated forklifts")
    configure_parser(parser)
    return cmd_simulate(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
