"""Organisation logos (system/api/logos.py): the upload's checks (kind by name and by content, 5 MB), the saved link
(only a picture uploaded to the tenant), the top bar's logo (own organisation, else the nearest ancestor with one),
and the attacks: anonymous, a user without the organisation buttons, another tenant reading or saving a logo."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update

from liftdesk.system.models import Oss
from tests.conftest import Api, password_chosen, seed_ids
from tests.system.test_map_setting import png

DEPT = "/api/blade-system/dept"
UPLOAD = f"{DEPT}/upload-logo"
JPEG = b"\xff\xd8\xff\xe0" + b"\x00\x10JFIF\x00" + b"\x00" * 64 + b"\xff\xd9"


async def _tenant(api: Api) -> str:
    r = await api.post("/api/blade-system/tenant/submit", json={"tenantName": api.unique("Logo tenant ")})
    assert r["code"] == 200, r
    tenant: str = r["data"]["tenantId"]
    await password_chosen(api, tenant)
    async with api.db.sessionmaker() as s:  # its files on the local disk
        await s.execute(update(Oss).where(Oss.tenant_id == tenant).values(status=1))
        await s.commit()
    return tenant


async def _upload(api: Api, name: str, data: bytes, tenant: str = "000000", **kw: Any) -> dict[str, Any]:
    return await api.post(UPLOAD, files={"file": (name, data, "image/png")}, tenant=tenant, **kw)


async def test_the_upload_checks_kind_content_and_size(api: Api) -> None:
    tenant = await _tenant(api)
    ok = await _upload(api, "logo.png", png(8, 8), tenant)
    assert ok["code"] == 200 and ok["data"]["extension"] == "png", ok
    assert ok["data"]["link"].startswith("/api/blade-resource/attach/download?id=")
    for name in ("logo.jpg", "logo.JPEG"):
        jpeg = await _upload(api, name, JPEG, tenant)
        assert jpeg["code"] == 200 and jpeg["data"]["extension"] == "jpg", (name, jpeg)
    refusals = [
        ("logo.png", b"this is not a picture at all", "file: 文件内容不是 PNG 图片, 与扩展名不符"),
        ("logo.jpg", png(), "file: 文件内容不是 JPG 图片, 与扩展名不符"),
        ("logo.gif", b"GIF89a" + b"\x00" * 20, "file: 只能上传 jpg、png、jpeg 格式的图片"),
        ("logo", png(), "file: 只能上传 jpg、png、jpeg 格式的图片"),
        ("logo.png", b"", "file 是空文件"),
        ("logo.png", png() + b"\x00" * (6 * 1024 * 1024), "file 不能超过 5 MB"),
    ]
    for name, data, msg in refusals:
        r = await _upload(api, name, data, tenant)
        assert r["code"] == 400 and r["msg"] == msg, (name, r)
    english = await api.client.post(
        UPLOAD,
        files={"file": ("logo.png", b"plain text", "image/png")},
        headers=await api.headers(tenant=tenant, lang="en"),
    )
    assert english.json()["msg"] == "file: the file's content is not a PNG picture, as its extension says"
    listed = (await api.get("/api/blade-resource/attach/list", tenant=tenant))["data"]["total"]
    assert listed == 3, "a refused upload stores nothing"


async def test_the_top_bar_shows_the_nearest_logo(api: Api) -> None:
    tenant = await _tenant(api)
    ids = await seed_ids(api, tenant)
    child = await api.post(
        f"{DEPT}/submit",
        json={"deptName": "Child", "fullName": "Child", "parentId": ids["dept"], "sort": 1},
        tenant=tenant,
    )
    assert child["code"] == 200, child
    account = api.unique("lg")
    user = {"account": account, "password": "Logo-pass1", "name": "Lg", "realName": "Lg"}
    made = await api.post(
        "/api/blade-user/submit", json={**user, "roleId": ids["role"], "deptId": child["data"]["id"]}, tenant=tenant
    )
    assert made["code"] == 200, made
    await password_chosen(api, tenant)
    who = {"who": account, "password": "Logo-pass1", "tenant": tenant}
    assert (await api.get(f"{DEPT}/logo", **who))["data"] == {"deptId": None, "deptLogo": ""}, "none: the product's"
    root_logo = (await _upload(api, "root.png", png(6, 6), tenant))["data"]["link"]
    saved = await api.post(f"{DEPT}/submit", json={"id": ids["dept"], "deptLogo": root_logo}, tenant=tenant)
    assert saved["code"] == 200 and saved["data"]["deptLogo"] == root_logo, saved
    detail = await api.get(f"{DEPT}/detail", params={"id": ids["dept"]}, tenant=tenant)
    assert detail["data"]["deptLogo"] == root_logo
    assert (await api.get(f"{DEPT}/logo", **who))["data"] == {"deptId": ids["dept"], "deptLogo": root_logo}
    own_logo = (await _upload(api, "own.jpeg", JPEG, tenant))["data"]["link"]
    await api.post(f"{DEPT}/submit", json={"id": child["data"]["id"], "deptLogo": own_logo}, tenant=tenant)
    mine = (await api.get(f"{DEPT}/logo", **who))["data"]
    assert mine == {"deptId": child["data"]["id"], "deptLogo": own_logo}
    picture = await api.client.get(own_logo, headers=await api.headers(account, tenant, "Logo-pass1"))
    assert picture.status_code == 200 and picture.content == JPEG
    # an unchanged logo is kept when the form is saved again; an empty one clears it
    again = await api.post(
        f"{DEPT}/submit", json={"id": ids["dept"], "deptLogo": root_logo, "remark": "r"}, tenant=tenant
    )
    assert again["code"] == 200
    cleared = await api.post(f"{DEPT}/submit", json={"id": child["data"]["id"], "deptLogo": ""}, tenant=tenant)
    assert cleared["code"] == 200
    assert (await api.get(f"{DEPT}/logo", **who))["data"]["deptLogo"] == root_logo


async def test_only_the_tenants_own_pictures_are_saved_and_read(api: Api, driver: str) -> None:
    mine, theirs = await _tenant(api), await _tenant(api)
    mine_ids, their_ids = await seed_ids(api, mine), await seed_ids(api, theirs)
    link = (await _upload(api, "logo.png", png(5, 5), mine))["data"]["link"]
    # another tenant reads no byte of it, and may not save it as its own organisation's logo
    stolen = await api.client.get(link, headers=await api.headers(tenant=theirs))
    assert stolen.status_code == 400 and stolen.json()["code"] == 400
    borrowed = await api.post(f"{DEPT}/submit", json={"id": their_ids["dept"], "deptLogo": link}, tenant=theirs)
    assert borrowed["code"] == 400 and borrowed["msg"] == "deptLogo: 须为本租户上传的 jpg 或 png 图片"
    # nor saves an address from elsewhere, or an attachment that is not a picture
    for bad in ("https://tracker.example.com/pixel.png", "/api/blade-resource/attach/download?id=1 OR 1=1"):
        r = await api.post(f"{DEPT}/submit", json={"id": mine_ids["dept"], "deptLogo": bad}, tenant=mine)
        assert r["code"] == 400 and r["msg"].startswith("deptLogo"), (bad, r)
    text = await api.post(
        "/api/blade-fics/file/upload", files={"file": ("notes.txt", b"plain words", "text/plain")}, tenant=mine
    )
    r = await api.post(f"{DEPT}/submit", json={"id": mine_ids["dept"], "deptLogo": text["data"]["link"]}, tenant=mine)
    assert r["code"] == 400
    saved = await api.post(f"{DEPT}/submit", json={"id": mine_ids["dept"], "deptLogo": link}, tenant=mine)
    assert saved["code"] == 200
    their_logo = (await api.get(f"{DEPT}/logo", tenant=theirs))["data"]
    assert their_logo["deptLogo"] == "", "another tenant's administrator gets their own (none)"
    assert (await api.get(f"{DEPT}/logo", tenant=mine))["data"]["deptLogo"] == link
    # anonymous callers and users without the organisation buttons are refused
    anonymous = await api.client.post(UPLOAD, files={"file": ("logo.png", png(), "image/png")})
    assert anonymous.status_code == 401
    assert (await api.client.get(f"{DEPT}/logo")).status_code == 401
    refused = await _upload(api, "logo.png", png(), who=driver, password="driver-1")
    assert refused["_status"] == 403 and refused["code"] == 403
