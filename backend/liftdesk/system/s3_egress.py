"""Object storage calls sent to the address checked (issue 28.6): botocore resolves an endpoint's name itself when it
connects, after ``core.egress`` checked it, and a second answer (DNS rebinding) could lead inside. The ``before-send``
hook here checks the address and sends the request there itself."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

from liftdesk.core import egress


class _Body:
    """A response body read whole, as botocore reads a connection's (``read``, ``stream``, ``close``)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def read(self, amt: int | None = None, **_: Any) -> bytes:
        return self._data.read() if amt is None else self._data.read(amt)

    def stream(self, amt: int = 1024, **_: Any) -> Iterator[bytes]:
        while chunk := self._data.read(amt):
            yield chunk

    def close(self) -> None:
        self._data.close()


def pinned_send(allow_private: bool, failure: type[Exception]) -> Callable[..., Any]:
    """botocore's ``before-send`` hook that sends the request itself: its address checked now (``core.egress``)
    and the connection made to that address (the Host header and, for https, the TLS server name and certificate
    check stay the name's), as SMS sends (``system.sms``). Its answer is botocore's response, so nothing else is
    sent; a connection that fails raises ``failure``."""

    def send(request: Any, **_: Any) -> Any:
        import httpx
        from botocore.awsrequest import AWSResponse, HeadersDict

        target = egress.resolve_blocking(str(request.url), "endpoint", allow_private)
        headers = {str(k): (v.decode() if isinstance(v, bytes) else str(v)) for k, v in request.headers.items()}
        headers["Host"] = target.netloc
        body = request.body
        if body is not None and not isinstance(body, bytes | bytearray | str):
            body = body.read()  # a file-like body (botocore rewinds it for a retry)
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        timeout = httpx.Timeout(30.0, connect=5.0)
        try:
            with httpx.Client(timeout=timeout, follow_redirects=False) as http:
                answer = http.request(
                    request.method, target.pinned(), headers=headers, content=body, extensions=extensions
                )
        except httpx.HTTPError as exc:
            raise failure(f"{type(exc).__name__}: {exc}"[:200]) from None
        return AWSResponse(str(request.url), answer.status_code, HeadersDict(answer.headers), _Body(answer.content))

    return send
