"""Address lookup: the embedded offline geocoder, an online provider on a real local HTTP server (and its failure),
the cache in the shared key-value store, and positions that name no place."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from liftdesk.core.config import Settings
from liftdesk.core.geocode import cache_key, lookup
from liftdesk.core.kv import KV
from tests.conftest import Api

PATH = "/api/blade-fics-report/fics/common/getAddress"


async def test_offline_names_the_nearest_place(api: Api) -> None:
    r = await api.get(PATH, params={"location": "121.4737,31.2304"})
    assert r["code"] == 200, r
    place = r["data"]
    assert place["source"] == "offline" and place["name"] == "Shanghai" and place["countryCode"] == "CN"
    assert place["formattedAddress"].startswith("Shanghai") and place["distanceKm"] < 5
    assert (place["lat"], place["lon"]) == (31.2304, 121.4737)
    async with api.db.sessionmaker() as s:
        assert json.loads(await KV(s).get(cache_key(31.2304, 121.4737)) or "{}")["name"] == "Shanghai"


async def test_a_position_near_no_place_answers_its_coordinates(api: Api) -> None:
    r = await api.get(PATH, params={"location": "-150,0"})
    assert r["code"] == 200, r
    assert r["data"]["source"] == "coordinates" and r["data"]["formattedAddress"] == "0.00000, -150.00000"


@pytest.mark.parametrize("location", ["abc", "31.2304,121.4737", "121.4,", "181,10", ""])
async def test_a_bad_location_is_400_naming_it(api: Api, location: str) -> None:
    r = await api.get(PATH, params={"location": location}, headers={"Accept-Language": "en"})
    assert r["code"] == 400 and "location" in r["msg"], r


class _Provider(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []
    status = 200

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        body = json.dumps({"regeocode": {"formatted_address": "上海市黄浦区人民大道200号"}}).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def provider() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Provider)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Provider.hits, _Provider.status = [], 200
    try:
        yield f"http://127.0.0.1:{server.server_port}/v3/geocode/regeo?location={{lon}},{{lat}}"
    finally:
        server.shutdown()
        server.server_close()


async def test_an_online_provider_is_asked_once_per_place(api: Api, provider: str) -> None:
    settings = Settings(geocoder_url=provider, geocoder_field="regeocode.formatted_address", geocoder_timeout_s=2)
    lat, lon = 31.2311 + len(api.backend) * 1e-3, 121.4751  # a place of its own per database
    async with api.db.sessionmaker() as s:
        first = await lookup(KV(s), settings, lat, lon)
        await s.commit()
        again = await lookup(KV(s), settings, lat + 2e-5, lon)  # the same place to 4 decimals: the cache
        await s.commit()
    assert first.source == "online" and first.formatted_address == "上海市黄浦区人民大道200号"
    assert again.formatted_address == first.formatted_address and again.lat == lat + 2e-5
    assert len(_Provider.hits) == 1 and f"location={lon:.6f},{lat:.6f}" in _Provider.hits[0]


async def test_a_failing_provider_falls_back_to_the_offline_geocoder(api: Api, provider: str) -> None:
    _Provider.status = 500
    settings = Settings(geocoder_url=provider, geocoder_field="regeocode.formatted_address", geocoder_timeout_s=2)
    async with api.db.sessionmaker() as s:
        place = await lookup(KV(s), settings, 39.9042 + len(api.backend) * 1e-3, 116.4074)
    assert place.source == "offline" and place.country_code == "CN" and len(_Provider.hits) == 1
    # a provider that cannot be reached at all: the same
    unreachable = Settings(geocoder_url="http://127.0.0.1:9/{lat},{lon}", geocoder_timeout_s=1)
    async with api.db.sessionmaker() as s:
        place = await lookup(KV(s), unreachable, 22.5431 + len(api.backend) * 1e-3, 114.0579)
    assert place.source == "offline" and place.name
