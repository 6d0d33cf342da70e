"""Reverse geocoding: the name of the place at a position, for people reading a vehicle's card or its stops.

One port, two adapters, as the other ports of ``core``:

* **embedded default, offline**: ``rgeocoder`` (a compiled k-d tree over GeoNames' places of more than 1,000
  people, shipped in its wheel: no network, nothing downloaded at run time). It answers the nearest place (name, first
  and second administrative division, country); a nearest place further than :data:`MAX_KM` (the open sea, a desert)
  names nothing, and the answer is the coordinates. Names are GeoNames' ASCII names ("Shanghai").
* **online, configurable**: ``LIFTDESK_GEOCODER_URL`` is a URL template with ``{lat}`` and ``{lon}`` (Nominatim's
  ``.../reverse?format=jsonv2&lat={lat}&lon={lon}``, AMap's ``.../v3/geocode/regeo?key=K&location={lon},{lat}``,
  any service answering JSON) and ``LIFTDESK_GEOCODER_FIELD`` the dotted path of the address in its answer
  (``display_name``; AMap: ``regeocode.formatted_address``). A provider that fails, times out
  (``LIFTDESK_GEOCODER_TIMEOUT_S``) or answers no address falls back to the offline one.

Answers are cached in the shared key-value store (``core.kv``) by the position rounded to 4 decimals (about 11 m),
for :data:`CACHE_TTL`: every process and restart shares them, and a provider is asked once per place. A lookup
never fails: at worst it answers the coordinates (``source`` ``coordinates``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import urllib.request
from datetime import timedelta
from typing import Any, Literal

from pydantic import Field

from liftdesk.core.config import Settings
from liftdesk.core.kv import KV
from liftdesk.core.schemas import Schema

log = logging.getLogger("liftdesk.geocode")
#: A nearest place further than this names nothing: the coordinates are the answer.
MAX_KM = 50.0
CACHE_TTL = timedelta(days=30)
Source = Literal["offline", "online", "coordinates"]


class Place(Schema):
    """What is at a position: ``formattedAddress`` is always set (at worst the coordinates, ``lat, lon``)."""

    formatted_address: str
    name: str = Field(default="", description="the nearest place (offline) or empty")
    admin1: str = Field(default="", description="its province or state")
    admin2: str = Field(default="", description="its city or county")
    country_code: str = ""
    distance_km: float | None = Field(default=None, description="from the position to the nearest place (offline)")
    lat: float
    lon: float
    source: Source


def coordinates(lat: float, lon: float) -> Place:
    return Place(formatted_address=f"{lat:.5f}, {lon:.5f}", lat=lat, lon=lon, source="coordinates")


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 6371.0088 * 2 * math.asin(min(1.0, math.sqrt(a)))


class _Offline:
    """The embedded geocoder, loaded once (in a worker thread: reading its table takes a moment)."""

    def __init__(self) -> None:
        self._geocoder: Any = None
        self._lock = asyncio.Lock()

    async def nearest(self, lat: float, lon: float) -> Place:
        async with self._lock:
            if self._geocoder is None:
                self._geocoder = await asyncio.to_thread(_load)
        found = self._geocoder.nearest(lat, lon)
        km = _km(lat, lon, found.lat, found.lon)
        if km > MAX_KM:
            return coordinates(lat, lon)
        parts = list(dict.fromkeys(p for p in (found.name, found.admin2, found.admin1, found.cc) if p))
        return Place(
            formatted_address=", ".join(parts),
            name=found.name,
            admin1=found.admin1,
            admin2=found.admin2,
            country_code=found.cc,
            distance_km=round(km, 2),
            lat=lat,
            lon=lon,
            source="offline",
        )


def _load() -> Any:
    from rgeocoder import ReverseGeocoder

    return ReverseGeocoder(lazy=False)


OFFLINE = _Offline()


def _dig(answer: Any, path: str) -> str | None:
    for part in path.split("."):
        if isinstance(answer, dict):
            answer = answer.get(part)
        elif isinstance(answer, list) and part.isdigit() and int(part) < len(answer):
            answer = answer[int(part)]
        else:
            return None
    # AMap answers "[]" for no address (the old client's own test)
    return answer.strip() if isinstance(answer, str) and answer.strip() not in ("", "[]") else None


def _fetch(url: str, timeout: float) -> Any:
    request = urllib.request.Request(url, headers={"User-Agent": "Liftdesk reverse geocoding", "Accept": "*/*"})
    with urllib.request.urlopen(request, timeout=timeout) as reply:
        return json.loads(reply.read(1024 * 1024))


async def online(settings: Settings, lat: float, lon: float) -> Place | None:
    """The configured provider's address, or None (none configured, a failure, no address)."""
    if not settings.geocoder_url:
        return None
    url = settings.geocoder_url.replace("{lat}", f"{lat:.6f}").replace("{lon}", f"{lon:.6f}")
    try:
        answer = await asyncio.to_thread(_fetch, url, settings.geocoder_timeout_s)
    except Exception as exc:  # any failure of the provider: the offline answer instead
        log.warning("reverse geocoding provider failed: %s", exc)
        return None
    text = _dig(answer, settings.geocoder_field)
    if text is None:
        return None
    return Place(formatted_address=text[:500], lat=lat, lon=lon, source="online")


def cache_key(lat: float, lon: float) -> str:
    return f"geocode:{lat:.4f},{lon:.4f}"


async def lookup(kv: KV, settings: Settings, lat: float, lon: float) -> Place:
    """The place at (``lat``, ``lon``): cached, else the online provider's, else the offline one's, else the
    coordinates. Never raises for a position on the globe."""
    key = cache_key(lat, lon)
    cached = await kv.get(key)
    if cached is not None:
        try:
            return Place.model_validate_json(cached).model_copy(update={"lat": lat, "lon": lon})
        except ValueError:
            pass
    place = await online(settings, lat, lon)
    if place is None:
        try:
            place = await OFFLINE.nearest(lat, lon)
        except Exception:  # the embedded table missing or damaged: the coordinates, and the log says why
            log.exception("offline reverse geocoding failed")
            place = coordinates(lat, lon)
    await kv.claim(key, place.model_dump_json(), CACHE_TTL)
    return place
