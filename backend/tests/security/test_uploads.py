"""Issue 28, point 5: uploads have limits, and a read-only user cannot upload.

Before, every signed-in user uploaded as much as they liked: no storage quota per tenant, no rate per user, no
permission beyond a token. Now the platform administrator sets each tenant's storage quota and its users' upload
rate (tenant fields), every upload path is refused past them with a 400 naming the limit, and ``file/upload`` /
``cosToken`` need the add or edit button of the page the file belongs to.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import update

from liftdesk.system.models import Oss
from tests.conftest import Api, own_organisation_user, password_chosen, seed_ids

SYS = "/api/blade-system"
UPLOAD = "/api/blade-fics/file/upload"
COS = "/api/blade-fics-report/fics/common/cosToken"
LOGO = f"{SYS}/dept/upload-logo"
KB = 1024


def text_file(size: int) -> bytes:
    return (b"liftdesk upload limits\n" * (size // 23 + 1))[:size]


async def _tenant(api: Api, **limits: int) -> dict[str, Any]:
    made = await api.post(f"{SYS}/tenant/submit", json={"tenantName": api.unique("Quota "), **limits})
    assert made["code"] == 200, made
    await password_chosen(api, made["data"]["tenantId"])
    async with api.db.sessionmaker() as s:  # its files on the local disk
        await s.execute(update(Oss).where(Oss.tenant_id == made["data"]["tenantId"]).values(status=1))
        await s.commit()
    data: dict[str, Any] = made["data"]
    return data


async def _upload(api: Api, tenant: str, data: bytes, lang: str = "en", **kw: Any) -> dict[str, Any]:
    return await api.post(
        UPLOAD,
        files={"file": ("notes.txt", data, "text/plain")},
        tenant=tenant,
        headers={"Accept-Language": lang},
        **kw,
    )


async def test_a_tenant_cannot_store_past_its_quota(api: Api) -> None:
    tenant = await _tenant(api, storageQuotaMb=1, uploadRate=-1)
    tid = tenant["tenantId"]
    assert tenant["storageQuotaMb"] == 1
    assert (await _upload(api, tid, text_file(600 * KB)))["code"] == 200
    over = await _upload(api, tid, text_file(600 * KB))
    assert over["_status"] == 400 and over["msg"] == (
        "file: the tenant's storage quota is 1 MB and 0.6 MB are used; the file does not fit"
    ), over
    zh = await _upload(api, tid, text_file(600 * KB), lang="zh-CN")
    assert zh["msg"] == "file: 租户存储空间上限 1 MB, 已用 0.6 MB, 放不下此文件", zh
    # every other path: a direct-upload credential (counted at the upload limit), a logo
    cos = await api.get(COS, params={"fileName": "a.txt"}, tenant=tid, headers={"Accept-Language": "en"})
    assert cos["code"] == 400 and cos["msg"].startswith("fileName: the tenant's storage quota is 1 MB"), cos
    root = (await seed_ids(api, tid))["dept"]
    logo = await api.post(
        LOGO,
        params={"id": root},
        files={"file": ("logo.png", _png(), "image/png")},
        tenant=tid,
        headers={"Accept-Language": "en"},
    )
    assert logo["code"] == 200, "a small picture still fits"
    assert (await _upload(api, tid, text_file(300 * KB)))["code"] == 200, "what fits is taken"


async def test_a_user_cannot_upload_past_the_rate(api: Api) -> None:
    tid = (await _tenant(api, uploadRate=2))["tenantId"]
    for _ in range(2):
        assert (await _upload(api, tid, text_file(KB)))["code"] == 200
    third = await _upload(api, tid, text_file(KB))
    assert third["_status"] == 400 and third["msg"] == "file: at most 2 uploads an hour per user; try again later"


async def test_only_the_platform_administrator_sets_the_limits(api: Api) -> None:
    tenant = await _tenant(api)
    assert (tenant["storageQuotaMb"], tenant["uploadRate"]) == (2048, 200), "limits by default"
    own = await api.post(
        f"{SYS}/tenant/submit",
        json={"id": tenant["id"], "tenantName": tenant["tenantName"], "storageQuotaMb": -1, "uploadRate": -1},
        tenant=tenant["tenantId"],
    )
    assert own["code"] == 403, own
    detail = await api.get(f"{SYS}/tenant/detail", params={"id": tenant["id"]})
    assert (detail["data"]["storageQuotaMb"], detail["data"]["uploadRate"]) == (2048, 200)


async def test_a_read_only_user_cannot_upload(api: Api) -> None:
    dept = (await seed_ids(api))["dept"]
    async with own_organisation_user(api, dept, resource="attach", menus=("attach",)) as reader:
        for page in ("attach", "driverPaper"):
            r = await api.post(
                UPLOAD, params={"page": page}, files={"file": ("a.txt", b"hello", "text/plain")}, **reader
            )
            assert r["_status"] == 403 and r["code"] == 403, (page, r)
        cos = await api.get(COS, params={"fileName": "a.txt"}, **reader)
        assert cos["code"] == 403, cos
    async with own_organisation_user(api, dept, ("attach_add",), resource="attach", menus=("attach",)) as writer:
        r = await api.post(UPLOAD, files={"file": ("a.txt", b"hello", "text/plain")}, **writer)
        assert r["code"] == 200, r
        other_page = await api.post(
            UPLOAD, params={"page": "driverPaper"}, files={"file": ("a.txt", b"hello", "text/plain")}, **writer
        )
        assert other_page["code"] == 403, "the attachments' button is not the papers'"
    bad = await api.post(UPLOAD, params={"page": "nowhere"}, files={"file": ("a.txt", b"hello", "text/plain")})
    assert bad["code"] == 400 and "page" in bad["msg"], bad


def _png() -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    head = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(b"\0\0\0\0")) + chunk(b"IEND", b"")
    )
