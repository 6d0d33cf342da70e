"""Issue 28, point 6: object storage connects to the address its endpoint check approved (as SMS does).

``core.egress`` resolved an endpoint's name and checked every address, then botocore resolved the name again to
connect: a name whose second answer differs (DNS rebinding) led the call wherever it liked. The resolver here answers
the check with the S3 server's address and any other look-up with a second server's: the call must reach the first
one only. (The operating system's resolver is what is replaced; the S3 server is moto's, over real HTTP.)
"""

from __future__ import annotations

import http.server
import socket
import threading
import traceback
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from liftdesk.system.files import S3Config, S3Store

NAME = "rebindtest"  # one label: moto reads the bucket from the path, not the Host


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def servers() -> Iterator[tuple[int, list[str]]]:
    """moto on 127.0.0.1:port, and on 127.0.0.2:port a server that records every request it gets."""
    port = _free_port()
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    moto.start()
    hits: list[str] = []

    class Record(http.server.BaseHTTPRequestHandler):
        def _any(self) -> None:
            hits.append(f"{self.command} {self.path}")
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _any

        def log_message(self, *args: Any) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.2", port), Record)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        yield port, hits
    finally:
        other.shutdown()
        moto.stop()


async def test_object_storage_connects_to_the_address_it_checked(
    servers: tuple[int, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, hits = servers
    real = socket.getaddrinfo

    def rebinding(host: Any, *args: Any, **kw: Any) -> Any:
        if host != NAME:
            return real(host, *args, **kw)
        checking = any("liftdesk/core/egress.py" in frame.filename for frame in traceback.extract_stack())
        address = "127.0.0.1" if checking else "127.0.0.2"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        aws_access_key_id="ak",
        aws_secret_access_key="sk",
        region_name="us-east-1",
    ).create_bucket(Bucket="pinned")
    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    store = S3Store(
        S3Config(
            endpoint=f"http://{NAME}:{port}",
            bucket="pinned",
            access_key="ak",
            secret_key="sk",
            region="us-east-1",
            path_style=True,
            allow_private=True,  # both are loopback here: what is proven is where the connection goes
        )
    )
    await store.put("upload/a.txt", b"pinned bytes", "text/plain")
    assert await store.get("upload/a.txt") == b"pinned bytes"
    await store.delete("upload/a.txt")
    assert hits == [], f"a request went to the second answer: {hits}"
