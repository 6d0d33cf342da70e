"""Files (system/files.py, system/api/files.py): uploads to the local disk and to an S3 server (moto's, over HTTP on
localhost), attachments read back with a token of their tenant only, object storage configurations with their secrets
masked and one enabled at a time, and the refusals: size, kind, path traversal, another tenant."""

from __future__ import annotations

import asyncio
import re
import socket
import struct
import zipfile
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from liftdesk.core.config import Settings
from liftdesk.core.envelope import ServiceError
from liftdesk.system import files
from liftdesk.system.models import Attach, Oss
from tests.conftest import Api, password_chosen
from tests.system.test_map_setting import png

# The module's S3 / SMS servers run on localhost: internal addresses are allowed while it runs (test_egress.py proves
# the default refuses them).
pytestmark = pytest.mark.usefixtures("allow_private_endpoints")

OSS = "/api/blade-resource/oss"
ATTACH = "/api/blade-resource/attach"
UPLOAD = "/api/blade-fics/file/upload"
KEY_SHAPE = re.compile(r"^upload/[0-9]{8}/[0-9a-f]{32}\.[a-z]+$")


# ---------------------------------------------------------------- fixtures and helpers


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    """An S3 server on localhost (moto's server mode: real HTTP, not in-process mocking); its endpoint URL."""
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def _bucket(endpoint: str, name: str) -> Any:
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="ak-test",
        aws_secret_access_key="sk-test",
        region_name="us-east-1",
    )
    client.create_bucket(Bucket=name)
    return client


async def _new_tenant(api: Api) -> str:
    r = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Files tenant ")})
    assert r["code"] == 200, r
    tenant: str = r["data"]["tenantId"]
    await password_chosen(api, tenant)
    return tenant


async def _upload(
    api: Api, data: bytes, name: str = "photo.png", tenant: str = "000000", kind: str = "image/png", **kw: Any
) -> dict[str, Any]:
    return await api.post(UPLOAD, files={"file": (name, data, kind)}, tenant=tenant, **kw)


async def _download(api: Api, link: str, tenant: str = "000000") -> Any:
    return await api.client.get(link, headers=await api.headers(tenant=tenant))


def _config(endpoint: str, bucket: str, **over: Any) -> dict[str, Any]:
    return {
        "category": 1,
        "ossCode": f"minio-{bucket}"[:32],
        "endpoint": endpoint,
        "accessKey": "ak-test",
        "secretKey": "sk-test-very-secret",
        "bucketName": bucket,
        "region": "us-east-1",
        "remark": "test",
        **over,
    }


def _local_file(tmp_root: Path, tenant: str, key: str) -> Path:
    return tmp_root / "var" / "files" / tenant / key


async def _enabled(api: Api, tenant: str) -> list[int]:
    async with api.db.sessionmaker() as s:
        stmt = select(Oss.id).where(Oss.tenant_id == tenant, Oss.status == 2, Oss.is_deleted == 0)
        return list((await s.execute(stmt)).scalars().all())


def _docx() -> bytes:
    out = BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", "<w:document/>")
    return out.getvalue()


# ---------------------------------------------------------------- the local disk (no configuration enabled)


async def test_local_upload_list_download_rename_remove(api: Api, tmp_root: Path) -> None:
    tenant = await _new_tenant(api)
    image = png()
    r = await _upload(api, image, name="叉车 照片.png", tenant=tenant)
    assert r["code"] == 200, r
    up = r["data"]
    assert set(up) >= {"link", "domain", "name", "originalName", "attachId"}
    assert up["domain"] == "local" and up["originalName"] == "叉车 照片.png" and KEY_SHAPE.match(up["name"])
    assert up["link"] == f"{ATTACH}/download?id={up['attachId']}" and up["attachSize"] == len(image)
    stored = _local_file(tmp_root, tenant, up["name"])
    assert stored.read_bytes() == image, "the file is on the disk, under the tenant's folder"

    page = (await api.get(f"{ATTACH}/list", tenant=tenant))["data"]
    assert [row["id"] for row in page["records"]] == [up["attachId"]]
    row = page["records"][0]
    assert row["extension"] == "png" and row["attachSize"] == len(image) and row["contentType"] == "image/png"
    detail = await api.get(f"{ATTACH}/detail", params={"id": up["attachId"]}, tenant=tenant)
    assert detail["code"] == 200 and detail["data"]["link"] == up["link"]

    got = await _download(api, up["link"], tenant)
    assert got.status_code == 200 and got.content == image and got.headers["content-type"] == "image/png"
    disposition = got.headers["content-disposition"]
    assert disposition.startswith("attachment;") and "filename*=UTF-8''%E5%8F%89%E8%BD%A6%20" in disposition
    assert got.headers["x-content-type-options"] == "nosniff"
    assert (await api.client.get(up["link"])).status_code == 401, "a link needs a token"

    renamed = await api.post(f"{ATTACH}/submit", json={"id": up["attachId"], "originalName": "plan.png"}, tenant=tenant)
    assert renamed["code"] == 200 and renamed["data"]["originalName"] == "plan.png", renamed
    assert renamed["data"]["name"] == up["name"], "renaming leaves the stored file where it is"
    bad_name = await api.post(f"{ATTACH}/submit", json={"id": up["attachId"], "originalName": "a\r\nb"}, tenant=tenant)
    assert bad_name["code"] == 400 and "originalName" in bad_name["msg"]
    made = await api.post(f"{ATTACH}/submit", json={"originalName": "x.png"}, tenant=tenant)
    assert made["code"] == 400 and made["_status"] == 400, "attachments are made by uploading"

    gone = await api.post(f"{ATTACH}/remove", params={"ids": up["attachId"]}, tenant=tenant)
    assert gone["code"] == 200, gone
    assert not stored.exists(), "removing the attachment removes its file"
    after = await _download(api, up["link"], tenant)
    assert after.status_code == 400 and after.json()["code"] == 400
    assert (await api.get(f"{ATTACH}/list", tenant=tenant))["data"]["total"] == 0


async def test_kinds_are_told_by_content(api: Api) -> None:
    tenant = await _new_tenant(api)
    cases = [
        (b"%PDF-1.7\n" + b"x" * 100, "report.png", "pdf", "application/pdf"),  # the name lies: the content wins
        (b"GIF89a" + b"\x00" * 20, "a.gif", "gif", "image/gif"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 64, "a.jpeg", "jpg", "image/jpeg"),
        (_docx(), "manual.docx", "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("车号,小时\nFL-1,3\n".encode(), "hours.csv", "csv", "text/csv; charset=utf-8"),
        (b"plain words\n", "notes", "txt", "text/plain; charset=utf-8"),
    ]
    for data, name, extension, content_type in cases:
        r = await _upload(api, data, name=name, tenant=tenant, kind="application/octet-stream")
        assert r["code"] == 200, (name, r)
        assert r["data"]["extension"] == extension and r["data"]["name"].endswith(f".{extension}")
        got = await _download(api, r["data"]["link"], tenant)
        assert got.content == data and got.headers["content-type"] == content_type


async def test_size_and_kind_refusals(api: Api, tmp_root: Path) -> None:
    tenant = await _new_tenant(api)
    too_big = png() + b"\x00" * (5 * 1024 * 1024)
    big = await _upload(api, too_big, tenant=tenant)
    assert big["_status"] == 400 and big["code"] == 400 and big["msg"] == "file 不能超过 5 MB", big
    en = await _upload(api, too_big, tenant=tenant, headers={"Accept-Language": "en"})
    assert en["msg"] == "file must be at most 5 MB"
    for data, name in (
        (b"MZ\x90\x00" + b"\x00\xff" * 40, "setup.png"),  # a Windows program named as an image
        (b"\x7fELF\x02\x01\x01" + b"\x00" * 40, "photo.jpg"),
        (b"\x00\x01\x02\x03 binary", "data.txt"),
    ):
        r = await _upload(api, data, name=name, tenant=tenant, headers={"Accept-Language": "en"})
        assert r["_status"] == 400 and r["msg"].startswith("file: this kind of file is not accepted"), r
    empty = await _upload(api, b"", tenant=tenant)
    assert empty["code"] == 400 and "file" in empty["msg"]
    missing = await api.post(UPLOAD, tenant=tenant)
    assert missing["_status"] == 400 and missing["code"] == 400
    assert (await api.get(f"{ATTACH}/list", tenant=tenant))["data"]["total"] == 0, "nothing refused was kept"
    assert not (tmp_root / "var" / "files" / tenant).exists() or not any(
        p.is_file() for p in (tmp_root / "var" / "files" / tenant).rglob("*")
    ), "nothing refused was written"


def test_the_kinds_accepted_are_a_setting() -> None:
    settings = Settings(env="test", upload_types="png", upload_max_bytes=100)
    assert files.check_upload(settings, png(), "a.png").extension == "png"
    with pytest.raises(ServiceError):
        files.check_upload(settings, b"%PDF-1.4 xx", "a.pdf")  # a kind we know, not accepted here
    with pytest.raises(ServiceError):
        files.check_upload(settings, png() + b"\x00" * 100, "a.png")  # over this installation's limit


# ---------------------------------------------------------------- path traversal


async def test_path_traversal_is_refused(api: Api, tmp_root: Path) -> None:
    tenant = await _new_tenant(api)
    # the uploaded name never makes the path: it is kept as text (its last segment) only
    r = await _upload(api, png(), name="../../../../../../tmp/evil.png", tenant=tenant)
    assert r["code"] == 200 and KEY_SHAPE.match(r["data"]["name"]), r
    assert r["data"]["originalName"] == "evil.png"
    r = await _upload(api, png(), name="..\\..\\windows\\evil.png", tenant=tenant)
    assert r["code"] == 200 and r["data"]["originalName"] == "evil.png"
    assert not (tmp_root / "tmp" / "evil.png").exists()

    root = tmp_root / "traversal"
    store = files.LocalStore(root, tenant)
    secret = tmp_root / "outside-secret.txt"
    secret.write_text("not yours")
    for key in (
        "../outside-secret.txt",
        "../../outside-secret.txt",
        "upload/../../x",
        "/etc/passwd",
        "upload/./x",
        ".hidden",
        "upload//x",
        "upload\\..\\x",
        "",
    ):
        with pytest.raises(ValueError):
            store.path(key)
        with pytest.raises(ValueError):
            await store.get(key)
    # a link planted inside the tenant's folder does not lead out of it either
    (root / tenant).mkdir(parents=True, exist_ok=True)
    (root / tenant / "escape").symlink_to(tmp_root)
    with pytest.raises(ValueError):
        await store.get("escape/outside-secret.txt")
    for bad_tenant in ("../000000", "..", "a/b", ""):
        with pytest.raises(ValueError):
            files.LocalStore(root, bad_tenant)

    # a stored key altered in the database is refused, not followed (a 400, not a 500, and no bytes)
    async with api.db.sessionmaker() as s:
        await s.execute(
            update(Attach).where(Attach.id == int(r["data"]["attachId"])).values(name="../../outside-secret.txt")
        )
        await s.commit()
    got = await _download(api, r["data"]["link"], tenant)
    assert got.status_code == 400 and b"not yours" not in got.content


# ---------------------------------------------------------------- another tenant


async def test_another_tenant_cannot_read_or_remove(api: Api, tmp_root: Path) -> None:
    mine, theirs = await _new_tenant(api), await _new_tenant(api)
    image = png(5, 5)
    up = (await _upload(api, image, tenant=mine))["data"]
    stolen = await _download(api, up["link"], theirs)
    assert stolen.status_code == 400 and stolen.content != image and stolen.json()["code"] == 400
    detail = await api.get(f"{ATTACH}/detail", params={"id": up["attachId"]}, tenant=theirs)
    assert detail["code"] == 400
    listed = (await api.get(f"{ATTACH}/list", tenant=theirs))["data"]
    assert up["attachId"] not in {row["id"] for row in listed["records"]}
    removed = await api.post(f"{ATTACH}/remove", params={"ids": up["attachId"]}, tenant=theirs)
    assert removed["code"] == 400
    renamed = await api.post(f"{ATTACH}/submit", json={"id": up["attachId"], "originalName": "x"}, tenant=theirs)
    assert renamed["code"] == 400
    assert _local_file(tmp_root, mine, up["name"]).read_bytes() == image, "the owner's file is untouched"
    assert (await _download(api, up["link"], mine)).content == image
    # the other tenant's own upload lands in its own folder
    their_up = (await _upload(api, png(), tenant=theirs))["data"]
    assert _local_file(tmp_root, theirs, their_up["name"]).exists()
    assert not _local_file(tmp_root, mine, their_up["name"]).exists()


async def test_a_user_without_the_menus_cannot_manage_files(api: Api, driver: str) -> None:
    who = {"who": driver, "password": "driver-1"}
    async with api.db.sessionmaker() as s:  # tenant 000000's uploads on the local disk (no configuration enabled)
        await s.execute(update(Oss).where(Oss.tenant_id == "000000").values(status=1))
        await s.commit()
    for method, path in (("GET", f"{OSS}/list"), ("GET", f"{ATTACH}/list"), ("POST", f"{OSS}/enable")):
        r = await api.call(method, path, params={"id": "1"}, **who)
        assert r["_status"] == 403 and r["code"] == 403, (path, r)
    submit = await api.post(f"{OSS}/submit", json=_config("http://127.0.0.1:9", "bucket-x"), **who)
    assert submit["_status"] == 403
    # uploading needs the add or edit button of the page the file belongs to (tests/security/test_uploads.py)
    up = await api.call("POST", UPLOAD, files={"file": ("a.png", png(), "image/png")}, **who)
    assert up["_status"] == 403 and up["code"] == 403, up


# ---------------------------------------------------------------- configurations: masked secrets, one enabled


async def test_secrets_are_masked_and_kept(api: Api) -> None:
    tenant = await _new_tenant(api)
    made = await api.post(f"{OSS}/submit", json=_config("http://127.0.0.1:9", "bucket-one"), tenant=tenant)
    assert made["code"] == 200, made
    ident = made["data"]["id"]
    assert made["data"]["secretKey"] == "******" and made["data"]["status"] == 1, "new configurations are disabled"
    listed = await api.client.get(f"{OSS}/list", headers=await api.headers(tenant=tenant))
    assert "sk-test-very-secret" not in listed.text and listed.json()["data"]["records"][0]["secretKey"] == "******"
    detail = await api.client.get(f"{OSS}/detail", params={"id": ident}, headers=await api.headers(tenant=tenant))
    assert "sk-test-very-secret" not in detail.text and detail.json()["data"]["accessKey"] == "ak-test"
    # the form sends back what it read: the secret stays
    same = await api.post(f"{OSS}/submit", json={"id": ident, "secretKey": "******", "remark": "x"}, tenant=tenant)
    assert same["code"] == 200, same
    async with api.db.sessionmaker() as s:
        assert (await s.get(Oss, int(ident))).secret_key == "sk-test-very-secret"  # type: ignore[union-attr]
    changed = await api.post(f"{OSS}/submit", json={"id": ident, "secretKey": "new-secret"}, tenant=tenant)
    assert changed["code"] == 200 and changed["data"]["secretKey"] == "******"
    async with api.db.sessionmaker() as s:
        assert (await s.get(Oss, int(ident))).secret_key == "new-secret"  # type: ignore[union-attr]
    masked_new = await api.post(
        f"{OSS}/submit", json=_config("http://127.0.0.1:9", "bucket-two", secretKey="******"), tenant=tenant
    )
    assert masked_new["code"] == 400 and "secretKey" in masked_new["msg"]
    # the secret is no filter either
    probe = await api.get(f"{OSS}/list", params={"secretKey_equal": "new-secret"}, tenant=tenant)
    assert probe["data"]["total"] == 1, "an unknown filter is ignored, never matched against the secret"
    for field, value in (("endpoint", "ftp://x"), ("endpoint", "http://user:pw@host"), ("bucketName", "Bad_Bucket")):
        body = {**_config("http://127.0.0.1:9", "bucket-3"), field: value}
        bad = await api.post(f"{OSS}/submit", json=body, tenant=tenant)
        assert bad["code"] == 400 and field in bad["msg"], (field, bad)


async def test_enable_leaves_one_enabled(api: Api) -> None:
    tenant = await _new_tenant(api)
    ids = []
    for n in range(3):
        r = await api.post(f"{OSS}/submit", json=_config("http://127.0.0.1:9", f"bucket-{n}x"), tenant=tenant)
        assert r["code"] == 200, r
        ids.append(r["data"]["id"])
    first = await api.post(f"{OSS}/enable", params={"id": ids[0]}, tenant=tenant)
    assert first["code"] == 200 and first["data"]["status"] == 2 and first["data"]["secretKey"] == "******"
    assert await _enabled(api, tenant) == [int(ids[0])]
    assert (await api.post(f"{OSS}/enable", params={"id": ids[1]}, tenant=tenant))["code"] == 200
    assert await _enabled(api, tenant) == [int(ids[1])]
    statuses = {r["id"]: r["status"] for r in (await api.get(f"{OSS}/list", tenant=tenant))["data"]["records"]}
    assert statuses == {ids[0]: 1, ids[1]: 2, ids[2]: 1}
    # two at once: whichever wins, one is enabled
    answers = await asyncio.gather(
        *(api.post(f"{OSS}/enable", params={"id": ident}, tenant=tenant) for ident in (ids[0], ids[2]))
    )
    assert all(a["code"] in (200, 400) for a in answers) and any(a["code"] == 200 for a in answers), answers
    assert len(await _enabled(api, tenant)) == 1
    # the database holds it too, whatever writes there
    async with api.db.sessionmaker() as s:
        with pytest.raises(IntegrityError):
            await s.execute(update(Oss).where(Oss.tenant_id == tenant).values(status=2))
            await s.commit()
    other = await _new_tenant(api)
    assert (await api.post(f"{OSS}/enable", params={"id": ids[0]}, tenant=other))["code"] == 400
    assert len(await _enabled(api, tenant)) == 1 and not await _enabled(api, other)
    missing = await api.post(f"{OSS}/enable", tenant=tenant)
    assert missing["_status"] == 400 and "id" in missing["msg"]


# ---------------------------------------------------------------- an S3 server (moto, over HTTP)


async def test_s3_store_end_to_end(api: Api, s3: str) -> None:
    tenant = await _new_tenant(api)
    bucket = f"liftdesk-{api.backend}-{tenant}"
    client = _bucket(s3, bucket)
    made = await api.post(f"{OSS}/submit", json=_config(s3, bucket), tenant=tenant)
    assert made["code"] == 200, made
    ident = made["data"]["id"]
    tested = await api.post(f"{OSS}/test", params={"id": ident}, tenant=tenant)
    assert tested["code"] == 200 and tested["data"] is True, tested
    assert (await api.post(f"{OSS}/enable", params={"id": ident}, tenant=tenant))["code"] == 200

    image = png(7, 7)
    r = await _upload(api, image, name="dock.png", tenant=tenant)
    assert r["code"] == 200, r
    up = r["data"]
    assert up["domain"] == f"{s3}/{bucket}" and KEY_SHAPE.match(up["name"])
    stored = client.get_object(Bucket=bucket, Key=up["name"])
    assert stored["Body"].read() == image and stored["ContentType"] == "image/png", "the file is in the bucket"
    got = await _download(api, up["link"], tenant)
    assert got.status_code == 200 and got.content == image, "read back through the API"
    other = await _new_tenant(api)
    assert (await _download(api, up["link"], other)).status_code == 400, "not by another tenant"
    assert (await api.post(f"{OSS}/test", params={"id": ident}, tenant=other))["code"] == 400

    gone = await api.post(f"{ATTACH}/remove", params={"ids": up["attachId"]}, tenant=tenant)
    assert gone["code"] == 200
    assert client.list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 0, "removed from the bucket too"


async def test_s3_failures_are_400s(api: Api, s3: str) -> None:
    tenant = await _new_tenant(api)
    made = await api.post(f"{OSS}/submit", json=_config(s3, "no-such-bucket-here"), tenant=tenant)
    ident = made["data"]["id"]
    tested = await api.post(f"{OSS}/test", params={"id": ident}, tenant=tenant)
    assert tested["_status"] == 400 and "endpoint" in tested["msg"], tested
    assert (await api.post(f"{OSS}/enable", params={"id": ident}, tenant=tenant))["code"] == 200
    r = await _upload(api, png(), tenant=tenant)
    assert r["_status"] == 400 and r["code"] == 400, r
    assert (await api.get(f"{ATTACH}/list", tenant=tenant))["data"]["total"] == 0, "no row without its file"
    down = await api.post(
        f"{OSS}/submit", json=_config(f"http://127.0.0.1:{_free_port()}", "bucket-down"), tenant=tenant
    )
    unreachable = await api.post(f"{OSS}/test", params={"id": down["data"]["id"]}, tenant=tenant)
    assert unreachable["_status"] == 400 and "endpoint" in unreachable["msg"]


def test_webp_struct_sample() -> None:
    """The WebP check is the site plan's (``map_setting.image_type``): one definition of an image."""
    webp = b"RIFF" + struct.pack("<I", 60) + b"WEBPVP8 " + b"\x00" * 52
    kind = files.sniff(webp, "x.bin")
    assert kind is not None and kind.extension == "webp" and kind.content_type == "image/webp"
