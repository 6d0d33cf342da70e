"""The tenant's map (system/api/map_setting.py): basemap template and site plan, saved, read, validated, served,
and never seen or changed by another tenant."""

from __future__ import annotations

import hashlib
import struct
import zlib
from typing import Any

from tests.conftest import Api, Tenants, password_chosen

MAP = "/api/liftdesk/map"
TEMPLATE = "https://tiles.example.com/{z}/{x}/{y}.png"
CORNERS = {"planSouth": 31.20, "planWest": 121.40, "planNorth": 31.21, "planEast": 121.42}


def png(width: int = 4, height: int = 3) -> bytes:
    """A small valid PNG (grey pixels)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


async def _new_tenant(api: Api) -> str:
    r = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Map tenant ")})
    assert r["code"] == 200, r
    tenant: str = r["data"]["tenantId"]
    await password_chosen(api, tenant)
    return tenant


async def _save(api: Api, tenant: str = "000000", lang: str = "zh-CN", **body: Any) -> dict[str, Any]:
    return await api.post(f"{MAP}/setting/save", json=body, tenant=tenant, headers={"Accept-Language": lang})


async def _upload(api: Api, data: bytes, name: str = "plan.png", tenant: str = "000000", **kw: Any) -> dict[str, Any]:
    return await api.post(f"{MAP}/plan/upload", files={"file": (name, data, "image/png")}, tenant=tenant, **kw)


async def test_defaults_then_save_and_read(api: Api) -> None:
    tenant = await _new_tenant(api)
    empty = await api.get(f"{MAP}/setting", tenant=tenant)
    assert empty["code"] == 200 and empty["data"]["tileUrl"] == "" and empty["data"]["hasPlan"] is False
    assert empty["data"]["planOpacity"] == 0.8 and empty["data"]["planSouth"] is None
    saved = await _save(api, tenant, tileUrl=TEMPLATE, attribution="© Example", maxZoom=20, planOpacity=0.5, **CORNERS)
    assert saved["code"] == 200, saved
    got = (await api.get(f"{MAP}/setting", tenant=tenant))["data"]
    assert got["tileUrl"] == TEMPLATE and got["attribution"] == "© Example" and got["maxZoom"] == 20
    assert (got["planSouth"], got["planWest"], got["planNorth"], got["planEast"]) == tuple(CORNERS.values())
    assert got["planOpacity"] == 0.5 and got["id"] == saved["data"]["id"]
    # a subdomain placeholder is allowed; an empty template is the default basemap again
    assert (await _save(api, tenant, tileUrl="http://{s}.tile.example.org/{z}/{x}/{y}.png"))["code"] == 200
    cleared = await _save(api, tenant, tileUrl="")
    assert cleared["code"] == 200 and cleared["data"]["tileUrl"] == "" and cleared["data"]["planSouth"] is None


async def test_validation_names_the_field(api: Api) -> None:
    tenant = await _new_tenant(api)
    for bad in (
        "https://tiles.example.com/{z}/{x}.png",  # no {y}
        "ftp://tiles.example.com/{z}/{x}/{y}.png",
        "javascript:alert(1)//{z}/{x}/{y}",
        "https:///{z}/{x}/{y}.png",  # no host
        "https://tiles.example.com/{z}/{x}/{y}.png?k={key}",  # an unknown placeholder
        "https://tiles.example.com/{z}/{x}/{y} .png",
    ):
        r = await _save(api, tenant, tileUrl=bad)
        assert r["code"] == 400 and "tileUrl" in r["msg"], (bad, r)
    en = await _save(api, tenant, lang="en", tileUrl="https://x.example.com/tiles.png")
    assert en["msg"] == "tileUrl must be an http(s) URL containing {z}, {x} and {y}"
    zh = await _save(api, tenant, tileUrl="https://x.example.com/tiles.png")
    assert zh["msg"] == "tileUrl 须为 http(s) 地址, 包含 {z}、{x}、{y}"
    long = await _save(api, tenant, tileUrl="https://x.example.com/{z}/{x}/{y}/" + "a" * 500)
    assert long["code"] == 400 and "tileUrl" in long["msg"]
    reversed_ns = await _save(api, tenant, lang="en", **{**CORNERS, "planSouth": 31.3})
    assert reversed_ns["code"] == 400 and reversed_ns["msg"].startswith("planSouth: the south-west corner")
    reversed_we = await _save(api, tenant, **{**CORNERS, "planWest": 121.5})
    assert reversed_we["code"] == 400 and "planWest" in reversed_we["msg"]
    partial = await _save(api, tenant, planSouth=31.2, planWest=121.4)
    assert partial["code"] == 400 and "planNorth" in partial["msg"]
    out_of_range = await _save(api, tenant, **{**CORNERS, "planNorth": 91})
    assert out_of_range["code"] == 400 and "planNorth" in out_of_range["msg"]
    opacity = await _save(api, tenant, planOpacity=1.5)
    assert opacity["code"] == 400 and "planOpacity" in opacity["msg"]
    zoom = await _save(api, tenant, maxZoom=40)
    assert zoom["code"] == 400 and "maxZoom" in zoom["msg"]
    got = (await api.get(f"{MAP}/setting", tenant=tenant))["data"]
    assert got["tileUrl"] == "" and got["planSouth"] is None, "nothing refused was stored"


async def test_upload_serve_and_remove_the_site_plan(api: Api) -> None:
    tenant = await _new_tenant(api)
    image = png()
    r = await _upload(api, image, tenant=tenant)
    assert r["code"] == 200, r
    data = r["data"]
    assert data["hasPlan"] is True and data["planType"] == "image/png" and data["planSize"] == len(image)
    assert data["planHash"] == hashlib.sha256(image).hexdigest()
    headers = await api.headers(tenant=tenant)
    image_url = f"{MAP}/plan/image?hash={data['planHash']}"
    served = await api.client.get(image_url, headers=headers)
    assert served.status_code == 200 and served.content == image
    assert served.headers["content-type"] == "image/png"
    assert served.headers["etag"] == f'"{data["planHash"]}"' and "max-age" in served.headers["cache-control"]
    again = await api.client.get(image_url, headers={**headers, "If-None-Match": served.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert (await api.client.get(image_url)).status_code == 401, "the image needs a token"
    no_hash = await api.client.get(f"{MAP}/plan/image", headers=headers)
    assert no_hash.status_code == 400 and "hash" in no_hash.json()["msg"]

    # JPEG and WebP are recognised by their content, whatever the name says
    jpeg = b"\xff\xd8\xff\xe0" + b"\x00" * 64
    r = await _upload(api, jpeg, name="plan.png", tenant=tenant)
    assert r["code"] == 200 and r["data"]["planType"] == "image/jpeg"
    webp = b"RIFF" + struct.pack("<I", 60) + b"WEBPVP8 " + b"\x00" * 52
    r = await _upload(api, webp, name="plan.bin", tenant=tenant)
    assert r["code"] == 200 and r["data"]["planType"] == "image/webp"
    stale = await api.client.get(image_url, headers=headers)
    assert stale.status_code == 400, "an address of a replaced image answers no other image"
    served = await api.client.get(f"{MAP}/plan/image?hash={r['data']['planHash']}", headers=headers)
    assert served.headers["content-type"] == "image/webp" and served.content == webp

    removed = await api.post(f"{MAP}/plan/remove", tenant=tenant)
    assert removed["code"] == 200 and removed["data"]["hasPlan"] is False and removed["data"]["planHash"] is None
    gone = await api.client.get(f"{MAP}/plan/image?hash={r['data']['planHash']}", headers=headers)
    assert gone.status_code == 400 and gone.json()["code"] == 400


async def test_upload_refuses_what_is_not_an_image_or_too_large(api: Api) -> None:
    tenant = await _new_tenant(api)
    text = await _upload(api, b"<svg xmlns='http://www.w3.org/2000/svg'/>", name="plan.png", tenant=tenant)
    assert text["code"] == 400 and text["msg"] == "file 只能是 JPG、PNG 或 WebP 图片"
    gif = await _upload(
        api, b"GIF89a" + b"\x00" * 32, name="plan.gif", tenant=tenant, headers={"Accept-Language": "en"}
    )
    assert gif["code"] == 400 and gif["msg"] == "file must be a JPG, PNG or WebP image"
    empty = await _upload(api, b"", tenant=tenant)
    assert empty["code"] == 400 and "file" in empty["msg"]
    large = png() + b"\x00" * (5 * 1024 * 1024)
    big = await _upload(api, large, tenant=tenant, headers={"Accept-Language": "en"})
    assert big["code"] == 400 and big["msg"] == "file must be at most 5 MB"
    got = (await api.get(f"{MAP}/setting", tenant=tenant))["data"]
    assert got["hasPlan"] is False, "nothing refused was stored"


async def test_another_tenant_never_sees_or_changes_it(api: Api, tenants: Tenants) -> None:
    mine = await _new_tenant(api)
    assert (await _save(api, mine, tileUrl=TEMPLATE, **CORNERS))["code"] == 200
    uploaded = await _upload(api, png(), tenant=mine)
    assert uploaded["code"] == 200
    theirs = (await api.get(f"{MAP}/setting", tenant=tenants.b))["data"]
    assert theirs.get("tileUrl") != TEMPLATE or theirs.get("planSouth") != CORNERS["planSouth"]
    other = "https://other.example.com/{z}/{x}/{y}.png"
    assert (await _save(api, tenants.b, tileUrl=other))["code"] == 200
    assert (await api.post(f"{MAP}/plan/remove", tenant=tenants.b))["code"] == 200
    kept = (await api.get(f"{MAP}/setting", tenant=mine))["data"]
    assert kept["tileUrl"] == TEMPLATE and kept["hasPlan"] is True and kept["planSouth"] == CORNERS["planSouth"]
    url = f"{MAP}/plan/image?hash={uploaded['data']['planHash']}"
    image = await api.client.get(url, headers=await api.headers(tenant=tenants.b))
    assert image.status_code == 400, "tenant B has no plan of its own and never gets another's"
    # the platform administrator looking at a tenant (tenantId) sees that tenant's own
    looked = await api.get(f"{MAP}/setting", params={"tenantId": mine})
    assert looked["data"]["tileUrl"] == TEMPLATE


async def test_everyone_reads_only_the_edit_button_writes(api: Api, driver: str) -> None:
    read = await api.get(f"{MAP}/setting", who=driver, password="driver-1")
    assert read["code"] == 200
    save = await api.post(f"{MAP}/setting/save", json={"tileUrl": TEMPLATE}, who=driver, password="driver-1")
    assert save["_status"] == 403
    upload = await api.post(
        f"{MAP}/plan/upload", files={"file": ("p.png", png(), "image/png")}, who=driver, password="driver-1"
    )
    assert upload["_status"] == 403
