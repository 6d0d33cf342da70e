"""The direct-upload credential (``GET /api/blade-fics-report/fics/common/cosToken``, system/api/files.py): a presigned
POST into the tenant's enabled object storage (moto's S3 server, over HTTP on localhost: test_files.py's fixture),
used with a plain multipart POST; its policy checked the way AWS checks it (moto stores whatever is POSTed to a bucket
and checks no policy, so :func:`_admits` does, from AWS's documentation of SigV4 POST); the content checked when the
file is read through its link; the refusals: local disk, a refused name, no token, another tenant."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from liftdesk.core.config import Settings
from liftdesk.core.schemas import format_time
from tests.conftest import Api, app_settings
from tests.system.test_files import (
    ATTACH,
    KEY_SHAPE,
    OSS,
    UPLOAD,
    _bucket,
    _config,
    _download,
    _new_tenant,
    _upload,
    s3,  # noqa: F401 (the S3 server fixture, shared)
)
from tests.system.test_map_setting import png

pytestmark = pytest.mark.usefixtures("allow_private_endpoints")

COS = "/api/blade-fics-report/fics/common/cosToken"
SECRET = _config("", "x")["secretKey"]


# ---------------------------------------------------------------- AWS's check of a POST policy (SigV4)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _admits(form: dict[str, str], bucket: str, size: int, secret: str, now: datetime) -> list[str]:
    """Why S3 would refuse this POST of a file of ``size`` bytes with the form ``form`` (empty: it admits it), as AWS
    documents it ("Authenticating Requests in Browser-Based Uploads Using POST", "Creating a POST Policy"): the
    signature is HMAC-SHA256 of the base64 policy under the key derived from the secret, the date, the region and
    ``s3``; the policy has not expired; every condition holds for the form's fields (names case-insensitive);
    every field but ``policy``, ``x-amz-signature``, ``file`` and ``x-ignore-*`` is named by a condition."""
    why: list[str] = []
    fields = {k.lower(): v for k, v in form.items()}
    if fields.get("x-amz-algorithm") != "AWS4-HMAC-SHA256":
        why.append("algorithm")
    try:
        _access, date, region, service, end = fields["x-amz-credential"].split("/")
    except (KeyError, ValueError):
        return [*why, "credential"]
    if service != "s3" or end != "aws4_request":
        why.append("credential scope")
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret}".encode(), date), region), service), end)
    expected = hmac.new(key, fields.get("policy", "").encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, fields.get("x-amz-signature", "")):
        return [*why, "signature"]
    policy = json.loads(base64.b64decode(fields["policy"]))
    if datetime.fromisoformat(policy["expiration"]) <= now:
        why.append("expired")
    named = {"bucket"}
    values = {**fields, "bucket": bucket}
    for condition in policy["conditions"]:
        if isinstance(condition, dict):
            ((name, value),) = condition.items()
            condition = ["eq", f"${name}", value]
        op = condition[0].lower()
        if op == "content-length-range":
            if not condition[1] <= size <= condition[2]:
                why.append(f"size {size} not in {condition[1]}..{condition[2]}")
            continue
        name = condition[1].lstrip("$").lower()
        named.add(name)
        given = values.get(name)
        if given is None:
            why.append(f"{name} missing")
        elif op == "eq" and given != condition[2]:
            why.append(f"{name} {given!r} is not {condition[2]!r}")
        elif op == "starts-with" and not given.startswith(condition[2]):
            why.append(f"{name} {given!r} does not start with {condition[2]!r}")
        elif op not in ("eq", "starts-with"):
            why.append(f"unknown condition {op}")
    exempt = {"policy", "x-amz-signature", "file"}
    for name in fields:
        if name not in exempt and not name.startswith("x-ignore-") and name not in named:
            why.append(f"{name} named by no condition")
    return why


async def _post(url: str, fields: dict[str, str], data: bytes, name: str = "f") -> httpx.Response:
    """The browser's upload: a multipart POST of the fields and then the file (``file``, last) to ``url``."""
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.post(url, data=fields, files={"file": (name, data, "application/octet-stream")})


# ---------------------------------------------------------------- helpers


async def _s3_tenant(api: Api, endpoint: str) -> tuple[str, str, Any]:
    """A new tenant whose enabled configuration is a new bucket of the S3 server: (tenant, bucket, boto3 client)."""
    tenant = await _new_tenant(api)
    bucket = f"cos-{api.backend}-{tenant}".lower()
    client = _bucket(endpoint, bucket)
    made = await api.post(f"{OSS}/submit", json=_config(endpoint, bucket), tenant=tenant)
    assert made["code"] == 200, made
    assert (await api.post(f"{OSS}/enable", params={"id": made["data"]["id"]}, tenant=tenant))["code"] == 200
    return tenant, bucket, client


async def _token(api: Api, name: str, tenant: str, **kw: Any) -> dict[str, Any]:
    return await api.get(COS, params={"fileName": name}, tenant=tenant, **kw)


def _policy(fields: dict[str, str]) -> dict[str, Any]:
    policy: dict[str, Any] = json.loads(base64.b64decode(fields["policy"]))
    return policy


def _limit(api: Api) -> int:
    settings: Settings = app_settings(api)
    return settings.upload_max_bytes


# ---------------------------------------------------------------- the credential uploads, and only what it says


async def test_a_credential_uploads_its_file_and_only_it(api: Api, s3: str) -> None:  # noqa: F811
    tenant, bucket, client = await _s3_tenant(api, s3)
    r = await _token(api, "叉车 照片.png", tenant)
    assert r["code"] == 200, r
    cred = r["data"]
    fields, key = cred["fields"], cred["key"]
    assert KEY_SHAPE.match(key) and key.endswith(".png") and fields["key"] == key
    assert cred["url"] == f"{s3}/{bucket}", "the tenant's own bucket (path-style: minio)"
    assert cred["contentType"] == "image/png" == fields["Content-Type"]
    assert cred["maxSize"] == _limit(api)
    assert re.fullmatch(r"/api/blade-resource/attach/download\?id=[0-9]+", cred["link"])
    # what the store is told to enforce: the exact key, the size range, the type, 10 minutes
    policy = _policy(fields)
    conditions = policy["conditions"]
    assert {"key": key} in conditions and {"bucket": bucket} in conditions
    assert ["content-length-range", 1, _limit(api)] in conditions
    assert {"Content-Type": "image/png"} in conditions
    expires = datetime.fromisoformat(policy["expiration"])
    assert abs(expires - (datetime.now(UTC) + timedelta(minutes=10))) < timedelta(seconds=30)
    assert cred["expireAt"] == format_time(expires.astimezone(UTC).replace(tzinfo=None))
    now = datetime.now(UTC)

    image = png(9, 9)
    assert _admits(fields, bucket, len(image), SECRET, now) == [], "the server's own form is admitted"
    posted = await _post(cred["url"], fields, image, "叉车 照片.png")
    assert posted.status_code in (200, 201, 204), posted.text
    stored = client.get_object(Bucket=bucket, Key=key)
    assert stored["Body"].read() == image, "the object is in the tenant's bucket at the key given"
    got = await _download(api, cred["link"], tenant)
    assert got.status_code == 200 and got.content == image, "and read back through its link, checked"
    assert got.headers["content-type"] == "image/png"
    row = await api.get(f"{ATTACH}/detail", params={"id": cred["link"].rsplit("=", 1)[1]}, tenant=tenant)
    assert row["data"]["name"] == key and row["data"]["originalName"] == "叉车 照片.png"
    assert row["data"]["extension"] == "png" and row["data"]["attachSize"] == 0, "its size: not checked here"

    # what the credential does not let through (S3's check: the signature, then every condition)
    big = _limit(api) + 1
    assert any(w.startswith("size") for w in _admits(fields, bucket, big, SECRET, now)), "a bigger file"
    assert _admits(fields, bucket, 0, SECRET, now), "an empty one"
    other_key = {**fields, "key": key.replace(".png", "0.png")}
    assert "key" in " ".join(_admits(other_key, bucket, len(image), SECRET, now)), "another key"
    assert _admits({**fields, "key": "upload/${filename}"}, bucket, 10, SECRET, now), "the client's name as key"
    other_type = {**fields, "Content-Type": "text/html"}
    assert "content-type" in " ".join(_admits(other_type, bucket, 10, SECRET, now)), "another content type"
    assert _admits({k: v for k, v in fields.items() if k != "Content-Type"}, bucket, 10, SECRET, now), "no type"
    extra = {**fields, "acl": "public-read"}
    assert "acl named by no condition" in _admits(extra, bucket, 10, SECRET, now), "a field of its own"
    assert _admits(fields, f"{bucket}-other", 10, SECRET, now), "another bucket"
    # a policy widened by the client no longer matches its signature; the policy expires
    wide = {**policy, "conditions": [c for c in conditions if not isinstance(c, list)]}
    forged = {**fields, "policy": base64.b64encode(json.dumps(wide).encode()).decode()}
    assert _admits(forged, bucket, big, SECRET, now) == ["signature"]
    assert _admits(fields, bucket, 10, "another-secret", now) == ["signature"]
    assert _admits(fields, bucket, 10, SECRET, now + timedelta(minutes=11)) == ["expired"]
    # each credential is a key of its own
    again = (await _token(api, "叉车 照片.png", tenant))["data"]
    assert again["key"] != key and again["link"] != cred["link"]


async def test_content_is_checked_when_read(api: Api, s3: str) -> None:  # noqa: F811
    """What no policy can check (the bytes are the kind the name says) is checked before the link serves a byte."""
    tenant, bucket, client = await _s3_tenant(api, s3)
    cred = (await _token(api, "report.pdf", tenant))["data"]
    assert cred["contentType"] == "application/pdf"
    never = await _download(api, cred["link"], tenant)
    assert never.status_code == 400 and never.json()["code"] == 400, "not uploaded yet: missing, not a 500"
    page = b"<html><script>alert(1)</script></html>"
    assert _admits(cred["fields"], bucket, len(page), SECRET, datetime.now(UTC)) == [], "the policy cannot tell"
    assert (await _post(cred["url"], cred["fields"], page)).status_code in (200, 201, 204)
    assert client.get_object(Bucket=bucket, Key=cred["key"])["Body"].read() == page
    refused = await _download(api, cred["link"], tenant)
    assert refused.status_code == 400 and page not in refused.content
    assert "PDF" in refused.json()["msg"].upper(), refused.json()
    # a real PDF under another credential is served
    pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    ok = (await _token(api, "real.pdf", tenant))["data"]
    assert (await _post(ok["url"], ok["fields"], pdf)).status_code in (200, 201, 204)
    served = await _download(api, ok["link"], tenant)
    assert served.status_code == 200 and served.content == pdf
    # uploads through the server are unchanged: checked when stored, served as they are
    up = await _upload(api, png(), tenant=tenant)
    assert up["code"] == 200 and up["data"]["attachSize"] > 0
    assert (await _download(api, up["data"]["link"], tenant)).content == png()


# ---------------------------------------------------------------- refusals


async def test_local_disk_and_refused_names(api: Api, s3: str, driver: str) -> None:  # noqa: F811
    tenant = await _new_tenant(api)  # no configuration enabled: the local disk
    local = await _token(api, "photo.png", tenant)
    assert local["_status"] == 400 and local["code"] == 400, local
    assert "对象存储" in local["msg"] and "file/upload" in local["msg"]
    en = await _token(api, "photo.png", tenant, headers={"Accept-Language": "en"})
    assert en["code"] == 400 and "object storage" in en["msg"] and "file/upload" in en["msg"], en
    assert (await api.get(f"{ATTACH}/list", tenant=tenant))["data"]["total"] == 0, "no attachment for a refusal"
    # file/upload is the way there
    assert (await api.post(UPLOAD, files={"file": ("a.png", png(), "image/png")}, tenant=tenant))["code"] == 200

    tenant, _bucket_name, _client = await _s3_tenant(api, s3)
    for name in ("photo.exe", "photo", "photo.", ".png.html", "photo.jpeg", "a.svg", "x" * 256 + ".png", " "):
        bad = await _token(api, name, tenant)
        assert bad["_status"] == 400 and bad["code"] == 400 and "fileName" in bad["msg"], (name, bad)
    missing = await api.get(COS, tenant=tenant)
    assert missing["_status"] == 400 and "fileName" in missing["msg"], missing
    assert (await api.get(f"{ATTACH}/list", tenant=tenant))["data"]["total"] == 0
    # the kinds accepted are the setting's (as file/upload's)
    settings = app_settings(api)
    before = settings.upload_types
    settings.upload_types = "pdf"
    try:
        assert (await _token(api, "photo.png", tenant))["code"] == 400
        assert (await _token(api, "doc.PDF", tenant))["code"] == 200
    finally:
        settings.upload_types = before
    # whoever may upload to the page (file/upload's rule: tests/security/test_uploads.py), no token none
    assert (await api.client.get(COS, params={"fileName": "a.png"})).status_code == 401
    assert (
        await api.client.get(COS, params={"fileName": "a.png"}, headers={"Blade-Auth": "bearer x"})
    ).status_code == 401
    # the driver of tenant 000000 (no grants) holds no page's button: refused
    mine = await api.call("GET", COS, params={"fileName": "a.png"}, who=driver, password="driver-1")
    assert mine["code"] == 403 and mine["_status"] == 403, mine
    if mine["code"] == 400:
        assert "file/upload" in mine["msg"]


async def test_another_tenant_gets_its_own_storage_only(api: Api, s3: str) -> None:  # noqa: F811
    a, bucket_a, client_a = await _s3_tenant(api, s3)
    b, bucket_b, client_b = await _s3_tenant(api, s3)
    cred_a = (await _token(api, "a.png", a))["data"]
    cred_b = (await _token(api, "b.png", b))["data"]
    assert cred_a["url"].endswith(f"/{bucket_a}") and cred_b["url"].endswith(f"/{bucket_b}")
    assert {"bucket": bucket_b} in _policy(cred_b["fields"])["conditions"]
    assert bucket_a not in json.dumps(cred_b), "nothing of tenant A's storage in B's credential"
    now = datetime.now(UTC)
    assert _admits(cred_b["fields"], bucket_a, 10, SECRET, now), "B's credential writes nothing into A's bucket"
    assert _admits({**cred_b["fields"], "key": cred_a["key"]}, bucket_b, 10, SECRET, now), "nor at A's key"
    image = png(3, 4)
    assert (await _post(cred_b["url"], cred_b["fields"], image)).status_code in (200, 201, 204)
    assert client_b.get_object(Bucket=bucket_b, Key=cred_b["key"])["Body"].read() == image
    assert client_a.list_objects_v2(Bucket=bucket_a).get("KeyCount", 0) == 0, "A's bucket untouched"
    # B's attachment is B's: A's administrator cannot read it, B's can
    assert (await _download(api, cred_b["link"], a)).status_code == 400
    assert (await _download(api, cred_b["link"], b)).content == image
    # a tenant parameter changes nothing: the caller's tenant's storage
    sneaky = await api.get(COS, params={"fileName": "c.png", "tenantId": a, "Tenant-Id": a}, tenant=b)
    assert sneaky["code"] == 200 and sneaky["data"]["url"].endswith(f"/{bucket_b}"), sneaky
    # B's storage disabled (removed): B is refused, A is not
    ids = [row["id"] for row in (await api.get(f"{OSS}/list", tenant=b))["data"]["records"]]
    assert (await api.post(f"{OSS}/remove", params={"ids": ",".join(ids)}, tenant=b))["code"] == 200
    assert (await _token(api, "b.png", b))["code"] == 400
    assert (await _token(api, "a.png", a))["code"] == 200


async def test_the_platform_administrator_acts_for_a_tenant_as_with_file_upload(api: Api, s3: str) -> None:  # noqa: F811
    """Tenant 000000's administrator (the platform's) names a tenant with ``tenantId``, as every call of a tenant's
    resource lets it (``core.scope``): that tenant's storage, exactly as ``file/upload`` puts the file there. A
    tenant's own administrator naming another tenant is ignored (test above)."""
    other, bucket, client = await _s3_tenant(api, s3)
    r = await api.get(COS, params={"fileName": "x.png", "tenantId": other})
    assert r["code"] == 200 and r["data"]["url"].endswith(f"/{bucket}"), r
    up = await api.post(UPLOAD, params={"tenantId": other}, files={"file": ("a.png", png(), "image/png")})
    assert up["code"] == 200 and up["data"]["domain"].endswith(f"/{bucket}"), "file/upload does the same"
    assert client.get_object(Bucket=bucket, Key=up["data"]["name"])["Body"].read() == png()
