"""Addresses tenants type in (core/egress.py): with the default settings, object storage and SMS calls refuse every
endpoint that leads inside (loopback, cloud metadata, private ranges, their IPv6 forms), checked when called, after
resolving the name; ``allow_private_endpoints`` lifts the rule for the suites whose servers run on localhost."""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from moto.server import ThreadedMotoServer
from sqlalchemy import select

from liftdesk.core import egress
from liftdesk.core.config import Settings
from liftdesk.system import sms
from liftdesk.system.models import Attach
from tests.conftest import Api, app_settings
from tests.system.sms_servers import serve
from tests.system.test_files import OSS, _bucket, _config, _free_port, _new_tenant, _upload
from tests.system.test_map_setting import png
from tests.system.test_sms import SEND, _make
from tests.system.test_sms import _config as _sms_config

#: Each refused, with the address the message names (None: the name itself cannot be resolved, refused too).
INTERNAL = [
    "http://127.0.0.1:{port}",
    "http://localhost:{port}",
    "http://[::1]:{port}",
    "http://169.254.169.254",
    "http://10.20.30.40",
]


@contextmanager
def private_endpoints(api: Api, allowed: bool) -> Iterator[None]:
    settings = app_settings(api)
    before = settings.allow_private_endpoints
    settings.allow_private_endpoints = allowed
    try:
        yield
    finally:
        settings.allow_private_endpoints = before


def test_the_setting_is_off_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LIFTDESK_ALLOW_PRIVATE_ENDPOINTS", raising=False)
    assert Settings(_env_file=None).allow_private_endpoints is False  # type: ignore[call-arg]
    monkeypatch.setenv("LIFTDESK_ALLOW_PRIVATE_ENDPOINTS", "true")
    assert Settings(_env_file=None).allow_private_endpoints is True  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "169.254.169.254",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fd00::1",
        "ff02::1",
        "fec0::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "::ffff:10.0.0.1",
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo whose client is 127.0.0.1
    ],
)
def test_internal_addresses(address: str) -> None:
    assert egress.is_internal(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:2800:220:1:248:1893:25c8:1946"])
def test_public_addresses(address: str) -> None:
    assert not egress.is_internal(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:9/",
        "http://localhost:9/",
        "http://10.1.2.3/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://127.1/",  # the short form resolves to 127.0.0.1
        "http://2130706433/",  # so does the decimal one
        "http://0x7f000001/",
        "https://[fe80::1]/",
    ],
)
async def test_resolve_refuses_what_leads_inside(url: str) -> None:
    with pytest.raises(egress.EndpointRefused) as refused:
        await egress.resolve(url, "endpoint", allow_private=False)
    assert refused.value.msg.startswith("endpoint: "), refused.value.msg
    assert refused.value.code == 400


@pytest.mark.parametrize(
    "url",
    ["ftp://93.184.216.34/", "file:///etc/passwd", "gopher://93.184.216.34/", "http://u:p@93.184.216.34/", "http://"],
)
async def test_only_http_without_credentials(url: str) -> None:
    for allowed in (False, True):
        with pytest.raises(egress.EndpointRefused) as refused:
            await egress.resolve(url, "endpoint", allow_private=allowed)
        assert "http://" in refused.value.msg and refused.value.msg.startswith("endpoint: ")


async def test_a_public_address_is_pinned_and_the_setting_lifts_the_rule() -> None:
    target = await egress.resolve("https://93.184.216.34/x?y=1", "endpoint", allow_private=False)
    assert target.pinned() == "https://93.184.216.34:443/x?y=1" and target.host == "93.184.216.34"
    local = await egress.resolve("http://localhost:8080/p", "endpoint", allow_private=True)
    assert ipaddress.ip_address(local.address).is_loopback and local.netloc == "localhost:8080"
    assert local.pinned().endswith(":8080/p") and "localhost" not in local.pinned()
    v6 = await egress.resolve("http://[::1]:81/", "endpoint", allow_private=True)
    assert v6.pinned() == "http://[::1]:81/"


async def test_a_redirect_is_not_followed() -> None:
    """A provider answering 302 to another address: that address is never called."""
    hits: list[str] = []

    class Target(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    inside = ThreadingHTTPServer(("127.0.0.1", 0), Target)
    port = inside.server_address[1]

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{port}/stolen")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    outside = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (inside, outside)]
    for thread in threads:
        thread.start()
    try:
        with pytest.raises(sms.SmsError, match="HTTP 302"):
            await sms._post(f"http://127.0.0.1:{outside.server_address[1]}/", True, data={"a": "b"})
    finally:
        for server in (inside, outside):
            server.shutdown()
            server.server_close()
    assert hits == []


# ---------------------------------------------------------------- through the API, with the default settings


async def test_sms_refuses_internal_endpoints_by_default(api: Api) -> None:
    assert app_settings(api).allow_private_endpoints is False, "the suite's app runs with the default"
    with serve("aliyun", {"LTAI-test": "very-secret-key"}) as provider:
        port = provider.url.rsplit(":", 1)[1]
        for template in INTERNAL:
            endpoint = template.format(port=port)
            row = await _make(api, "000000", _sms_config(api, 3, endpoint))
            for lang, word in (("zh-CN", "内部网络"), ("en", "internal network")):
                headers = await api.headers(lang=lang)
                params = {"code": row["smsCode"], "phones": "13800138000", "params": '{"code": "1"}'}
                r = await api.client.post(SEND, params=params, headers=headers)
                body = r.json()
                assert r.status_code == 400 and body["code"] == 400, (endpoint, body)
                assert body["msg"].startswith("endpoint: ") and word in body["msg"], (endpoint, body)
        assert provider.sent == [] and provider.refused == [], "nothing reached the server"
        # The same configuration at 127.0.0.1 sends once the setting allows it: the refusal was the rule's.
        first = await _make(api, "000000", _sms_config(api, 3, provider.url))
        with private_endpoints(api, True):
            params = {"code": first["smsCode"], "phones": "13800138000", "params": '{"code": "1"}'}
            sent = await api.post(SEND, params=params)
        assert sent["code"] == 200, sent
        assert len(provider.sent) == 1


@pytest.fixture(scope="module")
def s3_local() -> Iterator[str]:
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


async def test_object_storage_refuses_internal_endpoints_by_default(api: Api, s3_local: str) -> None:
    assert app_settings(api).allow_private_endpoints is False
    tenant = await _new_tenant(api)
    bucket = f"egress-{api.unique('b')}".lower()[:40]
    client = _bucket(s3_local, bucket)
    port = s3_local.rsplit(":", 1)[1]
    ids = []
    for template in INTERNAL:
        endpoint = template.format(port=port)
        made = await api.post(f"{OSS}/submit", json=_config(endpoint, bucket, ossCode=api.unique("oss")), tenant=tenant)
        assert made["code"] == 200, made
        ids.append(made["data"]["id"])
        tested = await api.post(f"{OSS}/test", params={"id": made["data"]["id"]}, tenant=tenant)
        assert tested["_status"] == 400 and tested["msg"].startswith("endpoint: "), (endpoint, tested)
        assert "内部网络" in tested["msg"], (endpoint, tested)
    # enabled, the first (127.0.0.1, moto's real server): an upload is refused and leaves nothing behind
    assert (await api.post(f"{OSS}/enable", params={"id": ids[0]}, tenant=tenant))["code"] == 200
    up = await _upload(api, png(), tenant=tenant)
    assert up["_status"] == 400 and up["msg"].startswith("endpoint: "), up
    assert client.list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 0, "nothing reached the bucket"
    async with api.db.sessionmaker() as s:
        assert (await s.execute(select(Attach.id).where(Attach.tenant_id == tenant))).first() is None
    # the same configuration works once the setting allows internal addresses: the refusal was the rule's
    with private_endpoints(api, True):
        assert (await api.post(f"{OSS}/test", params={"id": ids[0]}, tenant=tenant))["data"] is True
        stored = await _upload(api, png(), tenant=tenant)
    assert stored["code"] == 200, stored
    assert client.list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 1
