"""Issue 28, point 6: the smaller findings, one test each (common passwords, the development key off loopback, code
generation's comments, notices' HTML and attachments' names)."""

from __future__ import annotations

import ast
import io
import zipfile
from typing import Any

import pytest
from pydantic import ValidationError

from liftdesk.cli import main
from liftdesk.core.config import DEV_SECRET, Settings
from tests.conftest import BASIC, Api, md5, seed_ids

USER = "/api/blade-user"
CODE = "/api/blade-develop/code"
NOTICE = "/api/blade-desk/notice"


# ---------------------------------------------------------------- passwords: common ones and the account's name


async def _new_user(api: Api, account: str, password: str) -> dict[str, Any]:
    ids = await seed_ids(api)
    body = {"account": account, "password": password, "name": "P", "realName": "Pw", "roleId": ids["driver"]}
    return await api.post(f"{USER}/submit", json={**body, "deptId": ids["dept"]}, headers={"Accept-Language": "en"})


async def test_common_passwords_and_the_account_are_refused(api: Api) -> None:
    """zxcvbn's lists: ``password1``, ``Dragon``, ``SUNSHINE`` (common passwords, as typed, capitalised, upper case)
    and a password equal to the account are refused when a user is made, replaced and changed; the server compares
    the md5 that arrives."""
    account = api.unique("pw")
    for weak in ("password1", "Dragon", "SUNSHINE", account):
        made = await _new_user(api, account, weak)
        assert made["code"] == 400 and made["msg"].startswith("password: "), (weak, made)
    made = await _new_user(api, account, "Liftdesk-Pw#7")
    assert made["code"] == 200, made
    user_id = made["data"]["id"]
    replaced = await api.post(
        f"{USER}/replacePassword",
        json={"userIds": user_id, "password": "P@ssw0rd"},
        headers={"Accept-Language": "en"},
    )
    assert replaced["code"] == 400 and "too common" in replaced["msg"], replaced
    token = (await api.login(account, "Liftdesk-Pw#7")).json()["access_token"]
    h = {"Blade-Auth": f"bearer {token}", "Authorization": BASIC, "Accept-Language": "en"}
    for weak in ("iloveyou", "Michael", account):
        params = {"oldPassword": md5("Liftdesk-Pw#7"), "newPassword": md5(weak), "newPassword1": md5(weak)}
        r = (await api.client.post(f"{USER}/update-password", params=params, headers=h)).json()
        assert r["code"] == 400, (weak, r)
    good = {
        "oldPassword": md5("Liftdesk-Pw#7"),
        "newPassword": md5("Kx9-fork-lift"),
        "newPassword1": md5("Kx9-fork-lift"),
    }
    assert (await api.client.post(f"{USER}/update-password", params=good, headers=h)).json()["code"] == 200


# ---------------------------------------------------------------- the development key serves loopback only


def test_the_development_key_is_refused_off_loopback() -> None:
    for host in ("127.0.0.1", "localhost", "::1"):
        Settings(host=host, secret_key=DEV_SECRET)
    for host in ("0.0.0.0", "192.168.1.20", "::", "liftdesk.example.com"):
        with pytest.raises(ValidationError, match="LIFTDESK_SECRET_KEY"):
            Settings(host=host, secret_key=DEV_SECRET)
    Settings(host="0.0.0.0", secret_key="s" * 40)  # a key of one's own: fine


def test_serve_on_another_address_refuses_the_development_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``liftdesk serve --host 0.0.0.0`` with the development key stops before serving (exit 2, a message)."""
    from liftdesk.core import config

    monkeypatch.delenv("LIFTDESK_SECRET_KEY", raising=False)
    config.get_settings.cache_clear()
    try:
        for command in ("serve", "api"):
            assert main([command, "--host", "0.0.0.0", "--no-migrate"]) == 2
            assert "LIFTDESK_SECRET_KEY" in capsys.readouterr().err
    finally:
        config.get_settings.cache_clear()


# ---------------------------------------------------------------- code generation writes names as comments safely


async def test_a_code_name_cannot_break_out_of_the_generated_comments(api: Api) -> None:
    package = api.unique("esc_").lower()
    record = {
        "codeName": "x */ alert(document.cookie); /* y",
        "serviceName": "blade-sample",
        "tableName": f"smp_{package}",
        "tablePrefix": "smp_",
        "entityName": "EscapeProbe",
        "packageName": package,
        "fields": [{"column": "probe_name", "name": "名称 */ alert(1) /*", "required": True, "maxLength": 40}],
    }
    saved = await api.post(f"{CODE}/submit", json=record)
    assert saved["code"] == 200, saved
    r = await api.client.post(f"{CODE}/gen-code", params={"ids": saved["data"]["id"]}, headers=await api.headers())
    assert r.status_code == 200, r.text
    with zipfile.ZipFile(io.BytesIO(r.content)) as archive:
        files = {n: archive.read(n).decode() for n in archive.namelist()}
    for name, text in files.items():
        if name.endswith(".py"):
            tree = ast.parse(text)  # nothing broke out of a docstring
            assert "alert" in (ast.get_docstring(tree) or ""), name
        else:
            head, _, rest = text.partition("*/")  # the doc comment ends where it should, and nothing runs
            assert "alert(document.cookie)" in head and rest.startswith("\nexport default defineResource("), text
            assert rest.count("alert(document.cookie)") == 1 and "title: 'x */ alert(document.cookie); /* y'," in rest


# ---------------------------------------------------------------- notices' HTML and attachments' names


async def test_notice_bodies_are_sanitised_when_stored(api: Api) -> None:
    body = (
        '<p onclick="steal()">Hello <b>all</b><script>alert(1)</script>'
        '<a href="javascript:alert(2)">x</a><img src=x onerror="alert(3)"><iframe src="//evil"></iframe></p>'
    )
    made = await api.post(f"{NOTICE}/submit", json={"title": api.unique("Notice "), "content": body})
    assert made["code"] == 200, made
    kept = (await api.get(f"{NOTICE}/detail", params={"id": made["data"]["id"]}))["data"]["content"]
    for bad in ("<script", "onclick", "javascript:", "onerror", "<iframe", "alert(1)"):
        assert bad not in kept, (bad, kept)
    assert "<b>all</b>" in kept and "Hello" in kept, kept


async def test_attachment_names_carry_no_markup(api: Api) -> None:
    up = await api.post(
        "/api/blade-fics/file/upload",
        files={"file": ('<img src=x onerror="alert(1)">notes<b>.txt', b"hello", "text/plain")},
    )
    assert up["code"] == 200, up
    assert up["data"]["originalName"] == "notes.txt", up
    renamed = await api.post(
        "/api/blade-resource/attach/submit", json={"id": up["data"]["attachId"], "originalName": "<svg onload=x>.txt"}
    )
    assert renamed["code"] == 400 and "originalName" in renamed["msg"], renamed
