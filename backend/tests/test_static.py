"""The built web app as the server sends it: precompressed files chosen by ``Accept-Encoding``, their headers, the
app's own paths answered with ``index.html`` (never cached without revalidation) and no way out of the web folder.

The web folder is a tiny fake one written here (the real one is built by ``npm run build``). Python has no brotli
encoder in its standard library, so the ``.br`` files hold marker bytes: what is checked is that exactly those bytes
go out, with ``Content-Encoding: br``.
"""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from liftdesk.app import accepted_encodings, create_app
from liftdesk.core.config import Settings

JS = b"export const answer = 42;\n" * 40
INDEX = b"<!doctype html><html><head><title>Liftdesk</title></head><body><div id=root></div></body></html>"
BROTLI_JS = b"\x1b\x00fake brotli of app.js"
BROTLI_INDEX = b"\x1b\x00fake brotli of index.html"
SECRET = b"not for the web"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    web = tmp_path / "web"
    (web / "assets").mkdir(parents=True)
    (web / "index.html").write_bytes(INDEX)
    (web / "index.html.br").write_bytes(BROTLI_INDEX)
    (web / "index.html.gz").write_bytes(gzip.compress(INDEX, 9))
    (web / "logo.svg").write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg"/>')
    (web / "assets" / "app-abc123.js").write_bytes(JS)
    (web / "assets" / "app-abc123.js.br").write_bytes(BROTLI_JS)
    (web / "assets" / "app-abc123.js.gz").write_bytes(gzip.compress(JS, 9))
    (web / "assets" / "plain-def456.css").write_bytes(b"body{margin:0}")  # no compressed siblings
    (tmp_path / "secret.txt").write_bytes(SECRET)
    (web / "assets" / "link-0000.js").symlink_to(tmp_path / "secret.txt")
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'static.db'}", env="test", web_dir=web, var_dir=tmp_path / "var"
    )
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://web.test") as c:
        yield c
    await app.state.db.dispose()


async def raw(client: httpx.AsyncClient, path: str, accept: str | None, method: str = "GET") -> httpx.Response:
    """The answer with its body as sent (httpx would otherwise decode it, and adds its own Accept-Encoding)."""
    headers = {"Accept-Encoding": accept} if accept is not None else {"Accept-Encoding": ""}
    async with client.stream(method, path, headers=headers) as response:
        response._content = b"".join([chunk async for chunk in response.aiter_raw()])
    return response


@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        ("gzip, deflate, br, zstd", "br"),
        ("br", "br"),
        ("gzip, deflate", "gzip"),
        ("br;q=0, gzip;q=0.5", "gzip"),
        ("*", "br"),
        ("*, br;q=0", "gzip"),
        ("identity", None),
        ("", None),
        ("gzip;q=0, br;q=0", None),
    ],
)
async def test_asset_in_the_best_encoding_the_request_accepts(
    client: httpx.AsyncClient, accept: str, coding: str | None
) -> None:
    r = await raw(client, "/assets/app-abc123.js", accept)
    assert r.status_code == 200
    assert r.headers.get("content-encoding") == coding
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["vary"] == "Accept-Encoding"
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    sent = r.content
    assert int(r.headers["content-length"]) == len(sent)
    if coding == "br":
        assert sent == BROTLI_JS
    elif coding == "gzip":
        assert gzip.decompress(sent) == JS
    else:
        assert sent == JS


async def test_file_without_compressed_siblings_goes_as_it_is(client: httpx.AsyncClient) -> None:
    r = await raw(client, "/assets/plain-def456.css", "gzip, br")
    assert r.status_code == 200
    assert "content-encoding" not in r.headers
    assert r.headers["content-type"].startswith("text/css")
    assert r.content == b"body{margin:0}"


async def test_head_and_revalidation(client: httpx.AsyncClient) -> None:
    head = await raw(client, "/assets/app-abc123.js", "br", method="HEAD")
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-encoding"] == "br"
    assert int(head.headers["content-length"]) == len(BROTLI_JS)
    # each encoding is its own representation, with its own ETag
    gz = await raw(client, "/assets/app-abc123.js", "gzip")
    assert gz.headers["etag"] != head.headers["etag"]
    again = await client.get(
        "/assets/app-abc123.js", headers={"Accept-Encoding": "br", "If-None-Match": head.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.headers["vary"] == "Accept-Encoding"


async def test_index_for_the_app_routes_never_cached_without_revalidation(client: httpx.AsyncClient) -> None:
    for path in ("/", "/login", "/wel/index", "/fleet/monitor?x=1"):
        r = await raw(client, path, "identity")
        assert r.status_code == 200, path
        assert r.headers["cache-control"] == "no-cache", path
        assert r.headers["content-type"].startswith("text/html"), path
        assert r.content == INDEX, path
    br = await raw(client, "/login", "gzip, deflate, br")
    assert br.headers["content-encoding"] == "br"
    assert br.headers["cache-control"] == "no-cache"
    assert br.content == BROTLI_INDEX
    gz = await raw(client, "/index.html", "gzip")
    assert gz.headers["content-encoding"] == "gzip"
    assert gzip.decompress(gz.content) == INDEX
    # a file at the top of the web folder: itself, revalidated (its name has no hash)
    logo = await raw(client, "/logo.svg", "br")
    assert logo.headers["content-type"].startswith("image/svg+xml")
    assert logo.headers["cache-control"] == "no-cache"
    assert "content-encoding" not in logo.headers


async def test_missing_asset_and_api_paths_are_not_found(client: httpx.AsyncClient) -> None:
    r = await raw(client, "/assets/gone-123456.js", "br")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/json")
    api = await client.get("/api/no-such-thing")
    assert api.status_code == 404
    assert api.json()["code"] == 404


@pytest.mark.parametrize(
    "path",
    [
        "/assets/..%2F..%2Fsecret.txt",
        "/assets/%2e%2e/%2e%2e/secret.txt",
        "/..%2Fsecret.txt",
        "/%2e%2e/secret.txt",
        "/assets/..%2Findex.html%2F..%2F..%2Fsecret.txt",
        "/assets/link-0000.js",  # a link out of the web folder
        "/assets/%2Fetc%2Fpasswd",
        "/%2Fetc%2Fpasswd",
        "/assets/app-abc123.js%00.txt",
    ],
)
async def test_no_way_out_of_the_web_folder(client: httpx.AsyncClient, path: str) -> None:
    r = await raw(client, path, "identity")
    assert SECRET not in r.content
    assert b"root:" not in r.content
    if path.startswith("/assets/"):
        assert r.status_code == 404, path
    else:  # the app's fallback page, not the file
        assert r.status_code == 200, path
        assert r.content == INDEX


def test_accept_encoding_parsing() -> None:
    assert accepted_encodings("gzip, deflate, br") == {"br", "gzip"}
    assert accepted_encodings("BR;Q=1.0") == {"br"}
    assert accepted_encodings("br;q=0.0, gzip") == {"gzip"}
    assert accepted_encodings("br;q=oops") == set()
    assert accepted_encodings("*;q=0") == set()
    assert accepted_encodings("deflate, identity") == set()
