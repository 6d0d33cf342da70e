"""The fleet's reads on a generated history: each list call, the home page and a one-vehicle week of track through the
real app, against the bare SQL of the same query, with the SQL statements per call and the track's points sent.

Run: ``make bench`` (or ``.venv/bin/python bench/fleet.py [--vehicles N] [--days D] [--runs R]``;
``BENCH_FULL=1`` for the issue's full size).

The history (issue 13 part 6: 2,000 vehicles x 30 days at one report per 10 s, on PostgreSQL) is generated inside
PostgreSQL (``INSERT ... SELECT ... generate_series``) into the tables the app reads, in a scratch database that is
dropped at the end. The full size is 2,000 x 30 x 8,640 = 518 M positions: at the rate measured on this 2-core machine
(about 280 k positions/s, 167 bytes a row with its key) that is half an hour and ~87 GB, more than its disk holds. So by
default the history is complete in everything but the positions:

* 2,000 vehicles (each with its terminal) spread over the seeded organisations and vehicle types, and their live
  states (70 % online, in every state; some offline for days, never heard from, with a wrong clock, a battery alarm
  open or fault codes active);
* 30 days of alarms (6 a vehicle a day: collision, speeding, overload, fault codes, battery, fences, ...) and the
  30 days of daily aggregates, whose alarm counts are those of the alarms;
* positions at one per 10 s for the last 24 h of every vehicle (what the home page's online trend reads) and for the
  last 7 days of the one vehicle whose week of track is played back;

``BENCH_FULL=1`` generates the positions of all 30 days of every vehicle instead. What was generated is printed.

Each call runs through the real ASGI app (``httpx.AsyncClient`` on ``ASGITransport``, signed in as the demo
administrator admin / admin of tenant 000000), and its bare SQL (written by hand: the same result, the same page, in
the fewest statements, on one asyncpg connection) runs in the same run; each is timed as the median of R runs after a
warm-up, and ``ratio = app / bare SQL`` is printed against the aim 1.5. The SQL statements a call sends are counted
with a ``before_cursor_execute`` event on the app's engine (the token's check included; the API log's batched
inserts, which carry earlier calls' log lines, left out); the paged lists run at page sizes 10 and 100 and both counts
are printed: equal counts mean no query per row (no N+1). The line "fixed cost of a signed-in call" is what the
smallest call (one dictionary read) costs on top of its SQL: for calls whose SQL takes a millisecond it, not the query,
makes the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from sqlalchemy import event, text, update
from sqlalchemy.ext.asyncio import create_async_engine

from liftdesk.app import create_app
from liftdesk.core.config import Settings
from liftdesk.core.db import Database, utcnow
from liftdesk.core.report import today
from liftdesk.core.schemas import tenant_zone
from liftdesk.migrate import upgrade
from liftdesk.reporting.alarm_schemas import OWN_LISTS
from liftdesk.reporting.home import utc_of
from liftdesk.reporting.home_schemas import BATTERY_KINDS, LOW_SOC_PCT, OFFLINE_ANOMALY_DAYS
from liftdesk.system.models import User
from liftdesk.system.seed import seed
from liftdesk.telemetry.store import PartitionKeeper

PG = os.environ.get("LIFTDESK_TEST_PG", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
FULL = os.environ.get("BENCH_FULL", "") not in ("", "0")
AIM = 1.5
TENANT = "000000"
BASE_ID = 1_900_000_000_000_000  # vehicle, terminal ids: BASE_ID + i; event ids above EVENT_ID
EVENT_ID = 1_910_000_000_000_000
EVENTS_PER_DAY = 6
TRACK_DAYS = 7
FICS = "/api/blade-fics-report/fics"
#: The API log (``core/audit.py``) writes the log lines of calls in batches, whichever call is running then: not
#: counted as a call's statements.
API_LOG = "INSERT INTO blade_log_api"
BASIC = "Basic " + base64.b64encode(b"saber:saber_secret").decode()
#: The alarm kinds generated, in turn (the kinds the pipeline raises), and the daily column each one counts in.
KINDS = (
    "collision",
    "speeding",
    "overload",
    "fault",
    "speeding",
    "battery_low_voltage",
    "fence_out",
    "collision",
    "battery_over_temperature",
    "dms_fatigue",
)
DAILY_OF = (
    "CASE WHEN kind = 'collision' THEN 'collision_n' WHEN kind = 'speeding' THEN 'speeding_n' "
    "WHEN kind = 'overload' THEN 'overload_n' WHEN kind = 'fault' THEN 'fault_n' "
    "WHEN kind LIKE 'battery%' THEN 'battery_n' WHEN kind LIKE 'fence%' THEN 'fence_n' ELSE 'other_n' END"
)


# --------------------------------------------------------------------------- the scratch database


async def fresh_database() -> tuple[str, str]:
    name = f"liftdesk_bench_{uuid.uuid4().hex[:8]}"
    admin = create_async_engine(PG, isolation_level="AUTOCOMMIT")
    async with admin.connect() as c:
        await c.execute(text(f'CREATE DATABASE "{name}"'))
    await admin.dispose()
    url = PG.rsplit("/", 1)[0] + "/" + name
    await upgrade(url)
    db = Database(url=url)
    async with db.sessionmaker() as s:
        await seed(s)
        await s.execute(update(User).values(password_must_change=0))  # admin / admin, as the tests sign in
        await s.commit()
    await db.dispose()
    return url, name


async def drop_database(name: str) -> None:
    admin = create_async_engine(PG, isolation_level="AUTOCOMMIT")
    async with admin.connect() as c:
        await c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    await admin.dispose()


def pg_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


# --------------------------------------------------------------------------- the history


class History:
    """What was generated (the times are naive UTC, as stored)."""

    def __init__(self, vehicles: int, days: int) -> None:
        self.vehicles = vehicles
        self.days = days
        self.now = utcnow().replace(microsecond=0)
        self.now -= timedelta(seconds=self.now.second % 10)
        self.today = today()
        self.first_day = self.today - timedelta(days=days - 1)
        self.track_car = BASE_ID + 1
        self.counts: dict[str, int] = {}


async def partitions(url: str, start: datetime, end: datetime) -> None:
    """The months of the positions and the events the history needs (as ``store.PartitionKeeper`` makes them)."""
    db = Database(url=url)
    async with db.sessionmaker() as s:
        for table in ("fics_position", "fics_event"):
            keeper = PartitionKeeper(table)
            month = date(start.year, start.month, 1)
            while month <= end.date():
                await keeper.ensure(s, TENANT, month)
                month = date(month.year + (month.month == 12), month.month % 12 + 1, 1)
        await s.commit()
    await db.dispose()


POSITIONS = """
INSERT INTO fics_position (tenant_id, vehicle_id, device_time, server_time, lat, lon, speed, direction, altitude,
                           alarm, status, mileage_km, load_kg)
SELECT '000000', $1::bigint + i, t, t + interval '1 second',
       31.20 + (i % 50) * 0.004 + 0.0015 * sin(k / 90.0) + 0.00004 * sin(k * 1.7),
       121.40 + (i / 50) * 0.004 + 0.0015 * cos(k / 70.0) + 0.00004 * cos(k * 2.3),
       CASE WHEN (k / 60) % 5 = 0 OR (k / 360) % 6 = 5 THEN 0.0 ELSE 6.0 + (k + i) % 9 END,
       (k * 7 + i) % 360, 5, 0,
       CASE WHEN (k / 360) % 6 = 5 THEN 2 ELSE 3 END,
       k * 0.0125 + i,
       CASE WHEN (k / 30) % 3 = 0 THEN 1200.0 + (i % 7) * 100 ELSE 0.0 END
FROM generate_series($2::int, $3::int) AS i,
     generate_series(0, $5::int - 1) AS k,
     LATERAL (SELECT $4::timestamp + k * interval '10 seconds' AS t) AS at
WHERE t < $6::timestamp
"""


async def generate(url: str, h: History) -> None:
    start = datetime.combine(h.first_day, datetime.min.time()) - timedelta(days=1)
    await partitions(url, start, h.now + timedelta(days=1))
    conn = await asyncpg.connect(pg_dsn(url))
    try:
        depts = [
            r["id"] for r in await conn.fetch("SELECT id FROM blade_dept WHERE tenant_id = $1 ORDER BY id", TENANT)
        ]
        types = sorted(
            int(r["dict_key"])
            for r in await conn.fetch("SELECT dict_key FROM blade_dict WHERE code = 'car_type' AND parent_id <> 0")
        )
        n = h.vehicles
        t = time.perf_counter()
        await conn.execute(
            """
            INSERT INTO fics_car_info (id, tenant_id, car_no, frame_number, device_number, sim_number, brand,
                model_number, mechanism_id, car_type, car_status, rated_load_kg, speed_limit_kmh,
                overload_threshold_kg, registrant, create_dept, create_time, update_time, status, is_deleted)
            SELECT $1::bigint + i, '000000', 'FB-' || lpad(i::text, 5, '0'), 'LFB' || lpad(i::text, 14, '0'),
                   '0177' || lpad(i::text, 8, '0'), '1440' || lpad(i::text, 7, '0'), 'Liftdesk Bench', 'CPD30',
                   ($2::bigint[])[1 + i % cardinality($2::bigint[])], ($3::int[])[1 + i % cardinality($3::int[])],
                   0, 3000, 10, 3000, 'bench', ($2::bigint[])[1 + i % cardinality($2::bigint[])],
                   $4::timestamp - interval '60 days' + i * interval '1 minute', $4::timestamp, 1, 0
            FROM generate_series(1, $5::int) AS i
            """,
            BASE_ID,
            depts,
            types,
            h.now,
            n,
        )
        await conn.execute(
            """
            INSERT INTO fics_terminal (id, tenant_id, device_number, vehicle_id, protocol, protocol_version,
                online, last_seen, registered_at, auth_code)
            SELECT $1::bigint + i, '000000', '0177' || lpad(i::text, 8, '0'), $1::bigint + i,
                   CASE WHEN i % 10 = 0 THEN 'mqtt' ELSE 'jt808' END, '2019', i % 10 < 7,
                   CASE WHEN i % 97 = 0 THEN NULL ELSE $2::timestamp - (CASE WHEN i % 10 < 7 THEN 0
                        ELSE i % 20 END) * interval '1 day' END,
                   $2::timestamp - interval '60 days', 'A' || i
            FROM generate_series(1, $3::int) AS i
            """,
            BASE_ID,
            h.now,
            n,
        )
        # The live states: every vehicle but one in 97 (never heard from); 70 % online in each state; the offline
        # ones silent 0-19 days (7 or more: their offline alarm open); a battery alarm open on one in 13, fault codes
        # on one in 11, a wrong clock on one in 101.
        await conn.execute(
            """
            INSERT INTO fics_car_state (vehicle_id, tenant_id, mechanism_id, device_number, device_time, server_time,
                lat, lon, speed, direction, alarm, status, acc, state, state_since, mileage_km, load_kg, soc_pct,
                lock_level, speed_limit_kmh, online, last_seen, driver_name, open_events, extra, clock_fault_time)
            SELECT v.id, '000000', v.mechanism_id, v.device_number, seen, seen, 31.2 + (i % 50) * 0.004,
                   121.4 + (i / 50) * 0.004, CASE WHEN st = 'moving' THEN 8.0 ELSE 0.0 END, i % 360, 0,
                   CASE WHEN st = 'off' THEN 2 ELSE 3 END, st <> 'off', st, seen - interval '20 minutes', i * 3.5,
                   CASE WHEN st = 'loaded' THEN 1500.0 ELSE 0.0 END,
                   CASE WHEN v.car_type IN (1, 2) THEN (i * 7) % 100 ELSE NULL END, 0, 10, on_, seen,
                   '司机' || i,
                   NULLIF(concat_ws(',',
                       CASE WHEN NOT on_ AND days >= 7 THEN '"offline": {"id": 0, "begin": "'
                            || to_char(seen, 'YYYY-MM-DD"T"HH24:MI:SS') || '", "max": 0}' END,
                       CASE WHEN i % 13 = 0 THEN '"battery_low_voltage": {"id": 0, "begin": "'
                            || to_char(seen - interval '2 hours', 'YYYY-MM-DD"T"HH24:MI:SS') || '", "max": -44.0}' END,
                       CASE WHEN i % 29 = 0 THEN '"speeding": {"id": 0, "begin": "'
                            || to_char(seen - interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS') || '", "max": 14.0}' END
                   ), ''),
                   CASE WHEN i % 11 = 0 THEN '{"faults": ["BMS-CELL_OVER_VOLTAGE", "ECU-P0' || (100 + i % 5) || '"]}'
                        END,
                   CASE WHEN i % 101 = 0 THEN seen + interval '400 days' END
            FROM generate_series(1, $2::int) AS i
            JOIN fics_car_info v ON v.id = $1::bigint + i
            CROSS JOIN LATERAL (SELECT i % 10 < 7 AS on_, CASE WHEN i % 10 < 7 THEN 0 ELSE i % 20 END AS days) AS o
            CROSS JOIN LATERAL (SELECT $3::timestamp - days * interval '1 day' AS seen,
                                       CASE WHEN NOT on_ THEN 'off'
                                            ELSE (ARRAY['off', 'idle', 'moving', 'loaded'])[1 + i % 4] END AS st) AS s
            WHERE i % 97 <> 0
            """,
            BASE_ID,
            n,
            h.now,
        )
        await conn.execute(
            "UPDATE fics_car_state SET open_events = '{' || open_events || '}' WHERE open_events IS NOT NULL"
        )
        h.counts["vehicles, terminals"] = n
        h.counts["live states"] = int(await conn.fetchval("SELECT count(*) FROM fics_car_state"))
        # The alarms: EVENTS_PER_DAY a vehicle a day, the kinds in turn, every 4 hours from local midnight.
        first_utc = utc_of(h.first_day)
        await conn.execute(
            f"""
            INSERT INTO fics_event (id, tenant_id, vehicle_id, mechanism_id, kind, level, begin_time, end_time,
                value, max_value, limit_value, lat, lon, driver_name, detail, create_time)
            SELECT $1::bigint + (i::bigint * $3 + d) * $4 + k, '000000', v.id, v.mechanism_id, kind,
                   1 + (i + k) % 5, b, b + ((i + d + k) % 120 + 5) * interval '1 second',
                   CASE kind WHEN 'collision' THEN 2.5 + (i % 10) * 0.3 WHEN 'speeding' THEN 11.0
                        WHEN 'overload' THEN 3300.0 WHEN 'battery_low_voltage' THEN -44.0 ELSE NULL END,
                   CASE kind WHEN 'collision' THEN 2.5 + (i % 10) * 0.3 WHEN 'speeding' THEN 14.0
                        WHEN 'overload' THEN 3600.0 WHEN 'battery_low_voltage' THEN -43.0 ELSE NULL END,
                   CASE kind WHEN 'collision' THEN 2.0 WHEN 'speeding' THEN 10.0 WHEN 'overload' THEN 3000.0
                        WHEN 'battery_low_voltage' THEN -45.0 ELSE NULL END,
                   31.2 + (i % 50) * 0.004, 121.4 + (i / 50) * 0.004, '司机' || i,
                   CASE kind WHEN 'collision' THEN '{{"direction": ' || (i * 37) % 360 || '}}'
                        WHEN 'fault' THEN '{{"code": "' || (ARRAY['BMS-CELL_OVER_VOLTAGE', 'BMS-SOC_LOW', 'ECU-P0100',
                             'ECU-P0101', 'MCU-OVER_TEMP', 'HYD-PRESSURE'])[1 + (i + d) % 6] || '"}}' END,
                   b
            FROM generate_series(1, $2::int) AS i
            JOIN fics_car_info v ON v.id = $5::bigint + i
            CROSS JOIN generate_series(0, $3::int - 1) AS d
            CROSS JOIN generate_series(0, $4::int - 1) AS k
            CROSS JOIN LATERAL (SELECT $6::timestamp + d * interval '1 day' + k * interval '4 hours'
                                       + ((i * 37) % 3600) * interval '1 second' AS b,
                                       (ARRAY{list(KINDS)!r})[1 + (i + d + k) % {len(KINDS)}] AS kind) AS e
            WHERE b < $7::timestamp
            """,
            EVENT_ID,
            n,
            h.days,
            EVENTS_PER_DAY,
            BASE_ID,
            first_utc,
            h.now,
        )
        h.counts["alarms"] = int(await conn.fetchval("SELECT count(*) FROM fics_event"))
        # The daily aggregates: hours of use, distance, and the alarm counts of the alarms above.
        sums = [
            f"count(*) FILTER (WHERE {DAILY_OF} = '{c}')"
            for c in ("collision_n", "speeding_n", "overload_n", "fence_n", "battery_n", "fault_n", "other_n")
        ]
        offset_s = int((tenant_zone().utcoffset(None) or timedelta()).total_seconds())  # local day → UTC
        await conn.execute(
            f"""
            INSERT INTO fics_car_daily (vehicle_id, day, tenant_id, mechanism_id, boot_s, move_s, load_s, move_load_s,
                lift_s, work_s, distance_km, collision_n, speeding_n, overload_n, fence_n, battery_n, fault_n, other_n)
            SELECT v.id, day, '000000', v.mechanism_id, boot, boot * 0.4, boot * 0.3, boot * 0.2, boot * 0.1,
                   boot * 0.6, boot / 3600.0 * 4.5, {", ".join(f"coalesce(a.c{j}, 0)" for j in range(7))}
            FROM generate_series(1, $1::int) AS i
            JOIN fics_car_info v ON v.id = $2::bigint + i
            CROSS JOIN generate_series($3::date, $4::date, interval '1 day') AS g(dayt)
            CROSS JOIN LATERAL (SELECT dayt::date AS day,
                                       ((i * 31 + extract(doy FROM dayt)::int * 17) % 100) * 288.0 AS boot) AS x
            LEFT JOIN LATERAL (
                SELECT {", ".join(f"{s} AS c{j}" for j, s in enumerate(sums))}
                FROM fics_event e
                WHERE e.tenant_id = '000000' AND e.vehicle_id = v.id
                  AND e.begin_time >= dayt - interval '{offset_s} seconds'
                  AND e.begin_time < dayt + interval '1 day' - interval '{offset_s} seconds'
            ) AS a ON true
            """,
            n,
            BASE_ID,
            h.first_day,
            h.today,
        )
        h.counts["daily aggregates"] = int(await conn.fetchval("SELECT count(*) FROM fics_car_daily"))
        print(f"vehicles, live states, alarms and daily aggregates generated in {time.perf_counter() - t:.0f} s")
        # The positions, one per 10 s: in chunks of vehicles (one statement each, its own transaction).
        t = time.perf_counter()
        span_days = h.days if FULL else 1
        since = h.now - timedelta(days=span_days)
        chunk = 100
        for first in range(1, n + 1, chunk):
            last = min(n, first + chunk - 1)
            await conn.execute(POSITIONS, BASE_ID, first, last, since, span_days * 8640, h.now)
        if not FULL:  # the played-back vehicle's week (its last day is in already)
            week = h.now - timedelta(days=TRACK_DAYS)
            await conn.execute(POSITIONS, BASE_ID, 1, 1, week, (TRACK_DAYS - 1) * 8640, since)
        h.counts["positions"] = int(await conn.fetchval("SELECT count(*) FROM fics_position"))
        rate = h.counts["positions"] / (time.perf_counter() - t)
        print(f"positions generated in {time.perf_counter() - t:.0f} s ({rate:,.0f}/s)")
        t = time.perf_counter()
        await conn.execute("ANALYZE")
        print(f"ANALYZE in {time.perf_counter() - t:.0f} s")
        size = await conn.fetchval("SELECT pg_size_pretty(pg_database_size(current_database()))")
        h.counts["database size"] = size
    finally:
        await conn.close()


# --------------------------------------------------------------------------- the bare SQL of each call

VEHICLE_PAGE = """
SELECT v.*, d.dept_name AS mechanism_name, ct.dict_value AS car_type_name, cs.dict_value AS car_status_name,
       coalesce(s.online, false) AS online, coalesce(s.acc, false) AS power_on,
       coalesce(s.lock_level, 0) > 0 AS locked, s.mileage_km AS mileage, s.speed, s.lat, s.lon,
       s.device_time AS gps_time, s.state,
       round((SELECT coalesce(sum(ds.boot_s), 0) FROM fics_car_daily ds
              WHERE ds.vehicle_id = v.id AND ds.tenant_id = v.tenant_id)::numeric / 3600, 2) AS working_hours,
       count(*) OVER () AS total
FROM fics_car_info v
LEFT JOIN blade_dept d ON d.id = v.mechanism_id AND d.tenant_id = v.tenant_id
LEFT JOIN blade_dict ct ON ct.code = 'car_type' AND ct.parent_id <> 0 AND ct.is_deleted = 0
                       AND ct.dict_key = v.car_type::text
LEFT JOIN blade_dict cs ON cs.code = 'car_status' AND cs.parent_id <> 0 AND cs.is_deleted = 0
                       AND cs.dict_key = v.car_status::text
LEFT JOIN fics_car_state s ON s.vehicle_id = v.id AND s.tenant_id = v.tenant_id
WHERE v.tenant_id = $1 AND v.is_deleted = 0
ORDER BY v.create_time DESC, v.id
LIMIT $2
"""

ALARM_WHERE = """
e.begin_time >= $2 AND e.begin_time < $3 AND e.tenant_id = $1 AND v.tenant_id = $1 AND v.is_deleted = 0 {kinds}
"""
ALARM_TOTALS = """
SELECT count(e.id), count(DISTINCT e.vehicle_id), sum(extract(epoch FROM coalesce(e.end_time, $4) - e.begin_time))
FROM fics_event e JOIN fics_car_info v ON v.id = e.vehicle_id AND v.tenant_id = e.tenant_id
WHERE {where}
"""
ALARM_PAGE = """
SELECT e.*, v.car_no, v.device_number, v.mechanism_id AS car_mechanism, v.model_number, d.dept_name,
       ct.dict_value AS car_type_name, s.open_events
FROM fics_event e JOIN fics_car_info v ON v.id = e.vehicle_id AND v.tenant_id = e.tenant_id
LEFT JOIN blade_dept d ON d.id = v.mechanism_id AND d.tenant_id = v.tenant_id
LEFT JOIN blade_dict ct ON ct.code = 'car_type' AND ct.parent_id <> 0 AND ct.is_deleted = 0
                       AND ct.dict_key = v.car_type::text
LEFT JOIN fics_car_state s ON e.end_time IS NULL AND s.vehicle_id = e.vehicle_id AND s.tenant_id = e.tenant_id
WHERE {where}
ORDER BY e.begin_time DESC, e.id DESC
LIMIT $4
"""

#: The abnormal vehicles (``reporting.alarms.abnormal``): the conditions and their "since" in SQL.
ABNORMAL_PAGE = """
WITH a AS (
  SELECT v.id, v.car_no, v.device_number, v.mechanism_id, v.car_type, s.last_seen, coalesce(s.online, false) AS online,
         (s.vehicle_id IS NULL OR s.last_seen IS NULL) AND v.device_number <> ''
             AND v.create_time <= $2::timestamp - interval '{days} days' AS never_reported,
         coalesce(s.open_events::jsonb ? 'offline', false) AS offline,
         s.clock_fault_time IS NOT NULL AS clock_fault,
         coalesce(s.open_events LIKE '%"battery\\_%', false) AS battery,
         coalesce(jsonb_array_length(s.extra::jsonb -> 'faults') > 0, false) AS fault,
         LEAST(CASE WHEN (s.vehicle_id IS NULL OR s.last_seen IS NULL) THEN v.create_time END,
               (s.open_events::jsonb -> 'offline' ->> 'begin')::timestamp,
               CASE WHEN s.clock_fault_time IS NOT NULL THEN s.server_time END,
               (SELECT min((j.value ->> 'begin')::timestamp) FROM jsonb_each(s.open_events::jsonb) j
                WHERE j.key LIKE 'battery\\_%'),
               CASE WHEN jsonb_array_length(s.extra::jsonb -> 'faults') > 0 THEN s.device_time END) AS since
  FROM fics_car_info v
  LEFT JOIN fics_car_state s ON s.vehicle_id = v.id AND s.tenant_id = v.tenant_id
  WHERE v.tenant_id = $1 AND v.is_deleted = 0
    AND (s.open_events LIKE '%"offline"%' OR s.open_events LIKE '%"battery\\_%' OR s.clock_fault_time IS NOT NULL
         OR s.extra LIKE '%"faults"%'
         OR ((s.vehicle_id IS NULL OR s.last_seen IS NULL) AND v.device_number IS NOT NULL AND v.device_number <> ''
             AND v.create_time <= $2::timestamp - interval '{days} days'))
)
SELECT a.*, d.dept_name, ct.dict_value AS car_type_name, count(*) OVER () AS total
FROM a
LEFT JOIN blade_dept d ON d.id = a.mechanism_id
LEFT JOIN blade_dict ct ON ct.code = 'car_type' AND ct.parent_id <> 0 AND ct.is_deleted = 0
                       AND ct.dict_key = a.car_type::text
WHERE a.never_reported OR a.offline OR a.clock_fault OR a.battery OR a.fault
ORDER BY a.since NULLS LAST, a.car_no, a.id
LIMIT $3
""".replace("{days}", str(OFFLINE_ANOMALY_DAYS))

FAULTS = """
SELECT e.vehicle_id, e.begin_time, e.detail::jsonb ->> 'code' AS code, v.car_no, v.device_number, v.mechanism_id
FROM fics_event e JOIN fics_car_info v ON v.id = e.vehicle_id AND v.tenant_id = e.tenant_id
WHERE e.kind = 'fault' AND e.begin_time >= $2 AND e.begin_time < $3 AND e.tenant_id = $1 AND v.tenant_id = $1
  AND v.is_deleted = 0
"""
ACTIVE = """
SELECT s.vehicle_id, jsonb_array_elements_text(s.extra::jsonb -> 'faults') AS code
FROM fics_car_info v JOIN fics_car_state s ON s.vehicle_id = v.id AND s.tenant_id = v.tenant_id
WHERE v.tenant_id = $1 AND v.is_deleted = 0 AND s.extra LIKE '%"faults"%'
"""
FAULT_CARS = f"""
WITH f AS ({FAULTS}), act AS ({ACTIVE})
SELECT f.vehicle_id, f.car_no, f.device_number, d.dept_name, count(*) AS n,
       string_agg(DISTINCT f.code, ', ' ORDER BY f.code) AS codes, max(f.begin_time) AS last_time,
       (SELECT string_agg(act.code, ', ') FROM act WHERE act.vehicle_id = f.vehicle_id) AS active,
       count(*) OVER () AS total
FROM f LEFT JOIN blade_dept d ON d.id = f.mechanism_id
GROUP BY f.vehicle_id, f.car_no, f.device_number, d.dept_name
ORDER BY max(f.begin_time) DESC, f.vehicle_id DESC
LIMIT $4
"""
FAULT_TYPES = f"""
WITH f AS ({FAULTS}), act AS ({ACTIVE})
SELECT f.code, CASE WHEN position('-' IN f.code) > 1 THEN split_part(f.code, '-', 1) ELSE 'other' END AS fault_type,
       count(*) AS n, count(DISTINCT f.vehicle_id) AS cars, max(f.begin_time) AS last_time,
       (SELECT count(*) FROM act WHERE act.code = f.code) AS active_cars, count(*) OVER () AS total
FROM f GROUP BY f.code
ORDER BY count(*) DESC, f.code
LIMIT $4
"""

STATE_ON = "LEFT JOIN fics_car_state s ON s.vehicle_id = v.id AND s.tenant_id = v.tenant_id"
VEHICLES = "v.tenant_id = $1 AND v.is_deleted = 0"
HAS_TERMINAL = "(v.device_number IS NOT NULL AND v.device_number <> '')"
POWERED = "(s.online AND s.state <> 'off')"
IN_ALARM = "(s.open_events IS NOT NULL AND s.open_events NOT IN ('', '{}'))"
OFF = f"({HAS_TERMINAL} AND (s.online IS NULL OR NOT s.online))"
DAILY = (
    "FROM fics_car_daily ds JOIN fics_car_info v ON v.id = ds.vehicle_id AND v.tenant_id = ds.tenant_id "
    "WHERE ds.day = ANY($2::date[]) AND ds.tenant_id = $1 AND " + VEHICLES
)
ALARM_COLUMNS = ("collision_n", "speeding_n", "overload_n", "fence_n", "fault_n", "battery_n", "other_n")

HOME_SQL: dict[str, list[str]] = {
    "getCarHomeOnlineStatic": [
        f"""SELECT count(v.id), count(*) FILTER (WHERE s.online), count(*) FILTER (WHERE {POWERED}),
                   count(*) FILTER (WHERE {POWERED} AND s.state = 'idle'),
                   count(*) FILTER (WHERE {POWERED} AND s.state = 'moving'),
                   count(*) FILTER (WHERE {POWERED} AND s.state = 'loaded'), count(*) FILTER (WHERE {IN_ALARM}),
                   count(*) FILTER (WHERE {HAS_TERMINAL}), count(*) FILTER (WHERE {OFF})
            FROM fics_car_info v {STATE_ON} WHERE {VEHICLES}"""
    ],
    "getCarHomeOpenSum": [
        f"""SELECT count(DISTINCT ds.vehicle_id) FILTER (WHERE ds.boot_s > 0),
                   count(DISTINCT ds.vehicle_id) FILTER (WHERE ds.work_s > 0), coalesce(sum(ds.boot_s), 0),
                   coalesce(sum(ds.work_s), 0), coalesce(sum(ds.move_s), 0), coalesce(sum(ds.load_s), 0),
                   coalesce(sum(greatest(ds.boot_s - ds.work_s, 0)), 0), coalesce(sum(ds.distance_km), 0) {DAILY}"""
    ],
    "getFleetEquipmentOonLineTrends": [],  # built per run (one probe per hour)
    "getOfflineAnalysisFleetEquipment": [
        f"""SELECT count(*) FILTER (WHERE {HAS_TERMINAL}), count(v.id),
                   count(*) FILTER (WHERE {HAS_TERMINAL} AND s.online),
                   count(*) FILTER (WHERE {OFF} AND s.last_seen IS NULL),
                   count(*) FILTER (WHERE {OFF} AND s.last_seen >= $2::timestamp - interval '1 day'),
                   count(*) FILTER (WHERE {OFF} AND s.last_seen < $2::timestamp - interval '1 day'
                                    AND s.last_seen >= $2::timestamp - interval '{OFFLINE_ANOMALY_DAYS} days'),
                   count(*) FILTER (WHERE {OFF}
                                    AND s.last_seen < $2::timestamp - interval '{OFFLINE_ANOMALY_DAYS} days')
            FROM fics_car_info v {STATE_ON} WHERE {VEHICLES}"""
    ],
    "getTerminalOffListInfo": [
        f"""SELECT v.id, v.car_no, v.device_number, v.mechanism_id, d.dept_name, v.car_type, ct.dict_value,
                   s.last_seen, count(*) OVER () AS total
            FROM fics_car_info v {STATE_ON}
            LEFT JOIN blade_dept d ON d.id = v.mechanism_id
            LEFT JOIN blade_dict ct ON ct.code = 'car_type' AND ct.parent_id <> 0 AND ct.is_deleted = 0
                                   AND ct.dict_key = v.car_type::text
            WHERE {VEHICLES} AND {OFF}
            ORDER BY s.last_seen IS NULL, s.last_seen, v.car_no LIMIT $2"""
    ],
    "getTerminalSelectInfo": [
        f"""SELECT count(v.id), count(*) FILTER (WHERE s.online),
                   count(*) FILTER (WHERE s.last_seen IS NULL OR s.vehicle_id IS NULL)
            FROM fics_car_info v {STATE_ON} WHERE {VEHICLES} AND {HAS_TERMINAL}""",
        f"""SELECT coalesce(t.protocol, 'none') AS p, count(v.id), count(*) FILTER (WHERE s.online)
            FROM fics_car_info v {STATE_ON}
            LEFT JOIN fics_terminal t ON t.device_number = v.device_number AND t.tenant_id = $1
            WHERE {VEHICLES} AND {HAS_TERMINAL} GROUP BY p ORDER BY count(v.id) DESC, p""",
    ],
    "getCarDictionariesList": [
        "SELECT dict_key, dict_value FROM blade_dict WHERE code = 'car_type' AND parent_id <> 0 AND is_deleted = 0 "
        "ORDER BY sort, dict_key"
    ],
    "getCarVehicleAssetClassification": [
        f"""SELECT v.car_type, ct.dict_value, count(v.id), count(*) FILTER (WHERE s.online),
                   count(*) FILTER (WHERE {POWERED})
            FROM fics_car_info v {STATE_ON}
            LEFT JOIN blade_dict ct ON ct.code = 'car_type' AND ct.parent_id <> 0 AND ct.is_deleted = 0
                                   AND ct.dict_key = v.car_type::text
            WHERE {VEHICLES} GROUP BY v.car_type, ct.dict_value ORDER BY count(v.id) DESC, v.car_type"""
    ],
    "getCarHomeCodeOnLineList": [
        f"""SELECT v.mechanism_id, d.dept_name, count(v.id), count(*) FILTER (WHERE s.online),
                   count(*) FILTER (WHERE {POWERED})
            FROM fics_car_info v {STATE_ON} LEFT JOIN blade_dept d ON d.id = v.mechanism_id
            WHERE {VEHICLES} GROUP BY v.mechanism_id, d.dept_name ORDER BY count(v.id) DESC, d.dept_name"""
    ],
    "getCarHomeWarringStatic": [
        "SELECT "
        + ", ".join(f"coalesce(sum(ds.{c}), 0)" for c in ALARM_COLUMNS)
        + ", count(DISTINCT ds.vehicle_id) FILTER (WHERE "
        + " OR ".join(f"ds.{c} > 0" for c in ALARM_COLUMNS)
        + f") {DAILY}",
        f"SELECT count(*) FILTER (WHERE {IN_ALARM}) FROM fics_car_info v {STATE_ON} WHERE {VEHICLES}",
    ],
    "getCarHomeBatteryWarringStatic": [
        f"SELECT coalesce(sum(ds.battery_n), 0) {DAILY}",
        f"""SELECT e.kind, count(e.id) FROM fics_event e
            JOIN fics_car_info v ON v.id = e.vehicle_id AND v.tenant_id = e.tenant_id
            WHERE e.begin_time >= $2 AND e.begin_time < $3 AND e.tenant_id = $1 AND {VEHICLES}
              AND e.kind = ANY($4::text[]) GROUP BY e.kind""",
        f"""SELECT count(*) FILTER (WHERE s.open_events LIKE '%"battery\\_%'), count(s.soc_pct),
                   count(*) FILTER (WHERE s.soc_pct < {LOW_SOC_PCT})
            FROM fics_car_info v JOIN fics_car_state s ON s.vehicle_id = v.id AND s.tenant_id = v.tenant_id
            WHERE {VEHICLES}""",
    ],
    "getCarHomeCarWarringStaticList": [
        f"""SELECT e.id, e.vehicle_id, v.car_no, d.dept_name, e.kind, e.level, e.begin_time, e.end_time, e.value,
                   e.limit_value, e.driver_name
            FROM fics_event e JOIN fics_car_info v ON v.id = e.vehicle_id AND v.tenant_id = e.tenant_id
            LEFT JOIN blade_dept d ON d.id = v.mechanism_id
            WHERE e.begin_time >= $2 AND e.begin_time < $3 AND e.tenant_id = $1 AND {VEHICLES}
            ORDER BY e.begin_time DESC, e.id DESC LIMIT 10"""
    ],
}
HOME_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "getCarHomeOnlineStatic": ("GET", {}),
    "getCarHomeOpenSum": ("GET", {}),
    "getFleetEquipmentOonLineTrends": ("POST", {}),
    "getOfflineAnalysisFleetEquipment": ("POST", {}),
    "getTerminalOffListInfo": ("POST", {"current": 1, "size": 10}),
    "getTerminalSelectInfo": ("GET", {}),
    "getCarDictionariesList": ("GET", {}),
    "getCarVehicleAssetClassification": ("GET", {}),
    "getCarHomeCodeOnLineList": ("GET", {}),
    "getCarHomeWarringStatic": ("GET", {}),
    "getCarHomeBatteryWarringStatic": ("GET", {}),
    "getCarHomeCarWarringStaticList": ("GET", {}),
}

TRACK_COLUMNS = "device_time, lat, lon, speed, direction, altitude, status, mileage_km, load_kg, alarm, extra"
CAR_AND_STATE = """
SELECT v.*, s.* FROM fics_car_info v LEFT JOIN fics_car_state s ON s.vehicle_id = v.id AND s.tenant_id = v.tenant_id
WHERE v.tenant_id = $1 AND v.is_deleted = 0 AND v.id = $2
"""
TRACK_SQL = {
    "positionTrailing": f"""SELECT {TRACK_COLUMNS} FROM fics_position WHERE tenant_id = $1 AND vehicle_id = $2
        AND device_time >= $3 AND device_time <= $4 AND status & 2 <> 0 ORDER BY device_time LIMIT 150001""",
    "phaseData": f"""SELECT {TRACK_COLUMNS} FROM fics_position WHERE tenant_id = $1 AND vehicle_id = $2
        AND device_time >= $3 AND device_time <= $4 ORDER BY device_time LIMIT 150001""",
    "alarmStatics": """SELECT kind, count(*) FROM fics_event WHERE tenant_id = $1 AND vehicle_id = $2
        AND begin_time >= $3 AND begin_time <= $4 GROUP BY kind ORDER BY count(*) DESC, kind""",
    "alarmDetail": """SELECT * FROM fics_event WHERE tenant_id = $1 AND vehicle_id = $2
        AND begin_time >= $3 AND begin_time <= $4 ORDER BY begin_time, id LIMIT 2000""",
}


# --------------------------------------------------------------------------- measuring


def md5(s: str) -> str:
    return hashlib.md5(s.encode()).hexdigest()


class Bench:
    def __init__(self, client: httpx.AsyncClient, db: Database, conn: asyncpg.Connection, runs: int) -> None:
        self.client = client
        self.db = db
        self.conn = conn
        self.runs = runs
        self.headers: dict[str, str] = {}
        self.statements: list[str] = []
        self.rows: list[tuple[str, float, float, str, str]] = []

        def count(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
            if not statement.lstrip().startswith(API_LOG):  # the API log's batch of earlier calls, not this call's
                self.statements.append(" ".join(statement.split()))

        event.listen(db.engine.sync_engine, "before_cursor_execute", count)

    async def sign_in(self) -> None:
        params = {"tenantId": TENANT, "username": "admin", "password": md5("admin"), "grant_type": "password"}
        params |= {"scope": "all", "type": "account"}
        r = await self.client.post(
            "/api/blade-auth/oauth/token", params=params, headers={"Authorization": BASIC, "Tenant-Id": TENANT}
        )
        assert r.status_code == 200, r.text
        self.headers = {"Blade-Auth": f"bearer {r.json()['access_token']}", "Authorization": BASIC}

    async def call(self, method: str, path: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "GET":
            r = await self.client.get(path, params=args, headers=self.headers)
        else:
            r = await self.client.post(path, json=args, headers=self.headers)
        body: dict[str, Any] = r.json()
        if r.status_code != 200 or body.get("code") != 200:
            raise SystemExit(f"{method} {path} {args}: {r.status_code} {str(body)[:300]}")
        return body

    async def statements_of(self, method: str, path: str, args: dict[str, Any]) -> list[str]:
        before = len(self.statements)
        await self.call(method, path, args)
        return self.statements[before:]

    async def medians(
        self, app: Callable[[], Awaitable[Any]], sql: Callable[[], Awaitable[Any]]
    ) -> tuple[float, float]:
        """The median times of ``app`` and ``sql``, run in turn (a change of the machine's load hits both)."""
        await app()  # warm-up
        await sql()
        times: tuple[list[float], list[float]] = ([], [])
        for _ in range(self.runs):
            for fn, into in ((app, times[0]), (sql, times[1])):
                t = time.perf_counter()
                await fn()
                into.append(time.perf_counter() - t)
        return statistics.median(times[0]), statistics.median(times[1])

    async def measure(
        self,
        name: str,
        method: str,
        path: str,
        args: dict[str, Any],
        bare: list[tuple[str, tuple[Any, ...]]],
        size_key: str | None = None,
        note: Callable[[dict[str, Any]], str] | str = "",
    ) -> dict[str, Any]:
        """App vs bare SQL, interleaved run by run; the statement counts (at page sizes 10 and 100 for a list)."""
        extra: list[str] = []
        if size_key is not None:
            s10 = await self.statements_of(method, path, {**args, size_key: 10})
            s100 = await self.statements_of(method, path, {**args, size_key: 100})
            counted = f"{len(s10):3d} / {len(s100):3d}" + ("" if len(s10) == len(s100) else "  differ!")
            if len(s10) != len(s100):  # what the larger page sent that the smaller did not
                extra = [q for q in s100 if q not in s10] or s100[len(s10) :]
        else:
            counted = f"{len(await self.statements_of(method, path, args)):3d}"

        async def app() -> dict[str, Any]:
            return await self.call(method, path, args)

        async def sql() -> None:
            for q, params in bare:
                await self.conn.fetch(q, *params)

        answer = await app()
        t_app, t_sql = await self.medians(app, sql)
        said = note(answer["data"]) if callable(note) else note
        self.rows.append((name, t_app, t_sql, counted, said))
        line = f"{name:44s} {t_app * 1000:9.1f} {t_sql * 1000:9.1f} {t_app / t_sql:7.2f}   {counted:12s} {said}"
        print(line, flush=True)
        for q in extra:
            print(f"    only at page size 100: {q[:150]}")
        return answer


def local(t: datetime) -> str:
    """A stored (naive UTC) time as the API takes it: the tenants' local time."""
    return (t + (tenant_zone().utcoffset(None) or timedelta())).strftime("%Y-%m-%d %H:%M:%S")


async def run_calls(b: Bench, h: History, size: int) -> None:
    t = TENANT
    print(
        f"\n{'call (page size ' + str(size) + ')':44s} {'app ms':>9s} {'SQL ms':>9s} {'ratio':>7s}   "
        f"{'statements (size 10 / 100)'}",
        flush=True,
    )
    await b.measure(
        "carInfo/page (vehicles)",
        "GET",
        f"{FICS}/carInfo/page",
        {"current": 1, "size": size},
        [(VEHICLE_PAGE, (t, size))],
        "size",
    )
    # The alarm lists: their default range, the last 7 days.
    start, end = utc_of(h.today - timedelta(days=6)), utc_of(h.today + timedelta(days=1))
    lists = {
        "getCarAlarmInfoList": "",
        "getCarCollisionList": "AND e.kind = 'collision'",
        "getCarSpeedingList": "AND e.kind = 'speeding'",
        "getCarOverloadList": "AND e.kind = 'overload'",
        "getCarWarningList": "AND e.kind NOT IN (" + ", ".join(f"'{k}'" for k in OWN_LISTS) + ")",
        "getCarFaultList": "AND e.kind = 'fault'",
    }
    for path, kinds in lists.items():
        where = ALARM_WHERE.format(kinds=kinds)
        now = utcnow()
        await b.measure(
            f"carInfo/{path}",
            "POST",
            f"{FICS}/carInfo/{path}",
            {"current": 1, "size": size},
            [
                (ALARM_TOTALS.format(where=where), (t, start, end, now)),
                (ALARM_PAGE.format(where=where), (t, start, end, size)),
            ],
            "size",
            lambda d: f"{d['total']:,} alarms in 7 days",
        )
    await b.measure(
        "abnormal/getCarAbnormalPage",
        "GET",
        f"{FICS}/abnormal/getCarAbnormalPage",
        {"current": 1, "size": size},
        [(ABNORMAL_PAGE, (t, utcnow(), size))],
        "size",
        lambda d: f"{d['total']:,} abnormal",
    )
    fault_args = (t, start, end, size)
    await b.measure(
        "faultCode/faultCarPage",
        "GET",
        f"{FICS}/faultCode/faultCarPage",
        {"current": 1, "size": size},
        [(FAULT_CARS, fault_args)],
        "size",
    )
    await b.measure(
        "faultCode/faultTypePage",
        "GET",
        f"{FICS}/faultCode/faultTypePage",
        {"current": 1, "size": size},
        [(FAULT_TYPES, fault_args)],
        "size",
    )


async def run_home(b: Bench, h: History) -> None:
    t = TENANT
    days = [h.today]
    day_start, day_end = utc_of(h.today), utc_of(h.today + timedelta(days=1))
    now = utcnow()
    hours = min(24, int((now - day_start).total_seconds() // 3600) + 1)
    probes = ", ".join(
        f"count(*) FILTER (WHERE EXISTS (SELECT FROM fics_position p WHERE p.tenant_id = $1 AND p.vehicle_id = v.id "
        f"AND p.device_time >= $2::timestamp + interval '{k} hours' "
        f"AND p.device_time < $2::timestamp + interval '{k + 1} hours'))"
        for k in range(hours)
    )
    trend = [
        (f"SELECT count(v.id) FROM fics_car_info v WHERE {VEHICLES}", (t,)),
        (f"SELECT {probes} FROM fics_car_info v WHERE {VEHICLES}", (t, day_start)),
    ]
    print(f"\n{'home page (carHome, today)':44s} {'app ms':>9s} {'SQL ms':>9s} {'ratio':>7s}   statements", flush=True)
    for name, (method, args) in HOME_CALLS.items():
        bare: list[tuple[str, tuple[Any, ...]]]
        if name == "getFleetEquipmentOonLineTrends":
            bare = trend
        else:
            bare = []
            for q in HOME_SQL[name]:
                if "$4::text[]" in q:
                    params: tuple[Any, ...] = (t, day_start, day_end, list(BATTERY_KINDS))
                elif "$3" in q:
                    params = (t, day_start, day_end)
                elif "$2::date[]" in q:
                    params = (t, days)
                elif name == "getTerminalOffListInfo":
                    params = (t, 10)
                elif name == "getOfflineAnalysisFleetEquipment":
                    params = (t, now)
                elif "$1" in q:
                    params = (t,)
                else:
                    params = ()
                bare.append((q, params))
        note = f"{hours} hours" if name == "getFleetEquipmentOonLineTrends" else ""
        await b.measure(f"carHome/{name}", method, f"{FICS}/carHome/{name}", args, bare, note=note)


async def run_track(b: Bench, h: History) -> None:
    t = TENANT
    begin, end = h.now - timedelta(days=TRACK_DAYS), h.now
    args = {"carId": str(h.track_car), "beginTime": local(begin), "endTime": local(end)}
    print(
        f"\n{'a week of one vehicle (positionTrailing)':44s} {'app ms':>9s} {'SQL ms':>9s} {'ratio':>7s}   statements"
    )
    for name, q in TRACK_SQL.items():
        bare = [(CAR_AND_STATE, (t, h.track_car)), (q, (t, h.track_car, begin, end))]
        got = await b.measure(f"positionTrailing/{name}", "GET", f"{FICS}/positionTrailing/{name}", args, bare)
        if name == "positionTrailing":
            d = got["data"]
            print(
                f"  points sent for the week: {d['count']:,} of {d['total']:,} positions stored "
                f"(simplified: {d['simplified']}, stops: {len(d['stops'])}, {d['distanceKm']:.1f} km)"
            )
        if name == "alarmStatics":
            print(f"  alarms in the week: {sum(int(x['count']) for x in got['data'])}")
    zoomed = {**args, "zoom": 15}
    got = await b.measure(
        "positionTrailing (zoom 15)",
        "GET",
        f"{FICS}/positionTrailing/positionTrailing",
        zoomed,
        [(CAR_AND_STATE, (t, h.track_car)), (TRACK_SQL["positionTrailing"], (t, h.track_car, begin, end))],
    )
    print(f"  points sent for the week at zoom 15: {got['data']['count']:,}")


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vehicles", type=int, default=2000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--runs", type=int, default=5, help="timed runs of each call (the median is printed)")
    args = ap.parse_args()
    started = time.perf_counter()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    url, name = await fresh_database()
    work = Path(tempfile.mkdtemp(prefix="liftdesk-bench-fleet-"))
    db: Database | None = None
    try:
        h = History(args.vehicles, args.days)
        print(
            f"generating {'the FULL history' if FULL else 'the history (positions: last day of all, a week of one)'}"
            f" of {args.vehicles:,} vehicles x {args.days} days on PostgreSQL ...",
            flush=True,
        )
        await generate(url, h)
        print("generated:")
        for k, v in h.counts.items():
            print(f"  {k:22s} {v:>14,}" if isinstance(v, int) else f"  {k:22s} {v:>14s}")
        span = (
            f"all {args.days} days of every vehicle"
            if FULL
            else f"the last 24 h of every vehicle, {TRACK_DAYS} days of one"
        )
        print(f"  positions: one per 10 s over {span}")
        settings = Settings(database_url=url, env="test", web_dir=work / "no-web", var_dir=work / "var")
        db = Database(settings, url=url)
        app = create_app(settings, db=db)
        conn = await asyncpg.connect(pg_dsn(url))
        try:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
                b = Bench(client, db, conn, args.runs)
                await b.sign_in()
                await run_calls(b, h, 10)
                await run_calls(b, h, 100)
                await run_home(b, h)
                await run_track(b, h)
        finally:
            await conn.close()
        over = [r for r in b.rows if r[1] / r[2] > AIM]
        ratios = [r[1] / r[2] for r in b.rows]
        print(
            f"\nratio app / bare SQL: median {statistics.median(ratios):.2f}, max {max(ratios):.2f} "
            f"(aim {AIM}: {len(b.rows) - len(over)} of {len(b.rows)} calls met)"
        )
        # What any signed-in call costs on top of its SQL (the token's check, the middleware, the envelope): the
        # app's time of the smallest call (one dictionary read) less its bare SQL.
        tiny = next(r for r in b.rows if r[0] == "carHome/getCarDictionariesList")
        floor = max(0.0, tiny[1] - tiny[2])
        print(f"fixed cost of a signed-in call (getCarDictionariesList less its SQL): {floor * 1000:.1f} ms")
        for r in over:
            net = (r[1] - floor) / r[2]
            less = f"{net:.2f}" if net >= 1.0 else "within it"
            print(
                f"  over the aim: {r[0]:40s} {r[1] / r[2]:7.2f} ({r[1] * 1000:.1f} ms against {r[2] * 1000:.1f} ms;"
                f" less the fixed cost {less})"
            )
        print(f"load average at the end: {os.getloadavg()[0]:.2f}; the whole run {time.perf_counter() - started:.0f} s")
    finally:
        if db is not None:
            await db.dispose()
        await drop_database(name)
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
