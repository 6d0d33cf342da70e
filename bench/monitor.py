"""实时监控 with 2,000 live vehicles: the longest main-thread task after the first paint, against 50 ms.

Run: ``make bench`` (or ``.venv/bin/python bench/monitor.py [--vehicles N] [--seconds S] [--profile out.cpuprofile]
[--cpu-slowdown 2]``: the last runs the page's main thread N times slower, for the margin a slower PC than this one
needs; on 2026-11-27 it met the limit at 1x and 2x, with one task of 50-61 ms per run at 3x).

What runs, all of it real:
  * ``liftdesk serve`` on a fresh SQLite file with its JT/T 808 gateway, serving the built web app (``frontend/dist``,
    built first when it is missing; ``LIFTDESK_WEB_DIR`` names another build);
  * the built-in simulator (``liftdesk simulate``) in a process of its own: N forklifts that register, authenticate
    and report every 10 s over TCP through the gateway and the pipeline onto the live feed (the demo fleet's
    vehicles are registered first, as ``make run`` does);
  * headless Debian Chromium at 1280×720 (``bench/monitor_longtasks.mjs``, playwright-core) opens 实时监控 as a fresh
    page load and records every long task (``PerformanceObserver`` 'longtask', buffered) from the first paint until
    S seconds after the whole fleet is on screen, while the feed streams (about N/10 vehicle updates a second).

It prints the vehicles shown, the number of long tasks, the longest, and ``ratio = longest / 50 ms`` against the
limit 1.0 (a frame budget of RAIL: a task over 50 ms delays input noticeably). On this 2-core machine the browser
shares the cores with the server and the simulator, as it would on a small control-room PC running both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FRONTEND = REPO / "frontend"
LIFTDESK = REPO / ".venv" / "bin" / "liftdesk"
LIMIT_MS = 50.0
BATCH = 250


def authenticated(log: Path) -> int:
    """How many terminal sessions the server has authenticated so far (from its log)."""
    return log.read_bytes().count(b": authenticated (")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def web_dir() -> Path:
    given = os.environ.get("LIFTDESK_WEB_DIR")
    if given:
        return Path(given)
    dist = FRONTEND / "dist"
    if not (dist / "index.html").exists():
        print("frontend/dist is missing: building the web app", flush=True)
        subprocess.run(["npm", "run", "build", "--silent"], cwd=FRONTEND, check=True)
    return dist


def prepare(url: str, vehicles: int) -> None:
    """Migrate, seed and register the demo fleet's first ``vehicles`` vehicles (what ``make run`` does)."""
    from liftdesk.cli import _seed
    from liftdesk.migrate import upgrade

    asyncio.run(upgrade(url))
    asyncio.run(_seed(url, vehicles))


def wait_health(base: str, server: subprocess.Popen[bytes], timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/api/health", timeout=2) as res:
                if res.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not answer /api/health")
        time.sleep(0.3)


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vehicles", type=int, default=2000)
    ap.add_argument("--seconds", type=int, default=30, help="how long the updates stream once the fleet is shown")
    ap.add_argument("--profile", help="also write a CPU profile of the page (CDP Profiler) here and summarise it")
    ap.add_argument(
        "--trace",
        help="also write a Chrome trace from the page load to --trace-seconds into the stream and summarise it",
    )
    ap.add_argument("--trace-seconds", type=int, default=8)
    ap.add_argument(
        "--cpu-slowdown",
        type=float,
        default=1.0,
        help="run the page's main thread this many times slower (as on a slower PC than this one)",
    )
    args = ap.parse_args()

    web = web_dir()
    work = Path(tempfile.mkdtemp(prefix="liftdesk-bench-monitor-"))
    url = f"sqlite+aiosqlite:///{work / 'monitor.db'}"
    port, gateway_port = free_port(), free_port()
    env = {
        **os.environ,
        "LIFTDESK_DATABASE_URL": url,
        "LIFTDESK_PORT": str(port),
        "LIFTDESK_GATEWAY_PORT": str(gateway_port),
        "LIFTDESK_SIMULATOR_VEHICLES": "0",  # the simulator runs in its own process (below)
        "LIFTDESK_WEB_DIR": str(web),
    }
    server = None
    simulators: list[subprocess.Popen[bytes]] = []
    logs = (work / "server.log").open("wb")
    try:
        started = time.monotonic()
        os.environ["LIFTDESK_DATABASE_URL"] = url
        prepare(url, args.vehicles)
        server = subprocess.Popen([str(LIFTDESK), "serve", "--no-migrate"], cwd=REPO, env=env, stdout=logs, stderr=logs)
        base = f"http://127.0.0.1:{port}"
        wait_health(base, server)
        # The terminals come in waves of BATCH, each once the previous one is authenticated: on SQLite the server's
        # connection pool does not take 2,000 registrations at once (they time out and retry for minutes).
        for first in range(1, args.vehicles + 1, BATCH):
            n = min(BATCH, args.vehicles - first + 1)
            cmd = [str(LIFTDESK), "simulate", "--vehicles", str(n), "--first", str(first), "--port", str(gateway_port)]
            simulators.append(subprocess.Popen(cmd, cwd=REPO, env=env, stdout=logs, stderr=logs))
            deadline = time.monotonic() + 120
            while authenticated(work / "server.log") < first + n - 1 and time.monotonic() < deadline:
                time.sleep(0.5)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"load average before the browser run: {load}", flush=True)
        print(
            f"server and {args.vehicles} simulated terminals ({len(simulators)} processes) up in "
            f"{time.monotonic() - started:.0f} s",
            flush=True,
        )
        node = ["node", str(HERE / "monitor_longtasks.mjs"), "--base", base, "--vehicles", str(args.vehicles)]
        node += ["--seconds", str(args.seconds)]
        if args.profile:
            node += ["--profile", args.profile]
        if args.cpu_slowdown > 1:
            node += ["--cpu-slowdown", str(args.cpu_slowdown)]
        if args.trace:
            node += ["--trace", args.trace, "--trace-seconds", str(args.trace_seconds)]
        out = subprocess.run(node, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
        result = None
        for line in out.stdout.splitlines():
            if line.startswith("RESULT "):
                result = json.loads(line[len("RESULT ") :])
            else:
                print(line, flush=True)
        if out.returncode != 0 or result is None:
            raise SystemExit(f"the browser run failed (exit {out.returncode}); server log: {work / 'server.log'}")
        longest = float(result["longestMs"])
        ratio = longest / LIMIT_MS
        r = result
        verdict = "met" if ratio <= 1.0 else "not met"
        print(f"vehicles shown on 实时监控:           {r['vehicles']:8d} (of {r['reporting']} reporting)")
        print(f"first paint:                        {r['firstPaintMs']:8.0f} ms; whole fleet at {r['shownMs']:.0f} ms")
        long = f"{r['longTasks']:8d} in {r['windowS']:.0f} s ({r['totalLongMs']:.0f} ms)"
        print(f"long tasks after the first paint:   {long}")
        print(
            f"longest task after the first paint: {longest:8.0f} ms; p95 {r['p95Ms']:.0f} ms; "
            f"{r['over100']} over 100 ms"
        )
        steady = f"{r['steadyLongestMs']:8.0f} ms ({r['steadyLongTasks']} long tasks)"
        print(f"longest once the fleet is shown:    {steady}")
        print(f"ratio longest / {LIMIT_MS:.0f} ms:             {ratio:8.2f}   (limit 1.0: {verdict})")
    finally:
        for sim in simulators:
            stop(sim)
        stop(server)
        logs.close()
        if os.environ.get("KEEP_BENCH") is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
