"""Local stand-ins of the SMS providers (a real HTTP server in a thread) that VERIFY each request's signature,
recomputed here from the providers' documented algorithms (independently of ``liftdesk.system.sms``), and answer as
the providers do: aliyun dysmsapi ``SendSms`` (RPC, HMAC-SHA1) and tencent SMS ``SendSms`` (API 3.0,
TC3-HMAC-SHA256). Each accepts the keys in ``secrets`` (access key id → secret) and records what it sent."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Provider:
    url: str
    secrets: dict[str, str]
    sent: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _aliyun_encode(text: str) -> str:
    # the documented rule: UTF-8, then percent-encode all but A-Z a-z 0-9 - _ . ~ ("+" → %20, "*" → %2A, %7E → ~)
    return urllib.parse.quote_plus(text, safe="").replace("+", "%20").replace("*", "%2A").replace("%7E", "~")


def _aliyun_answer(provider: Provider, method: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request_id = str(uuid.uuid4()).upper()
    signature = form.pop("Signature", "")
    secret = provider.secrets.get(form.get("AccessKeyId", ""))
    if secret is None:
        provider.refused.append("InvalidAccessKeyId.NotFound")
        return 404, {"Code": "InvalidAccessKeyId.NotFound", "Message": "Specified access key is not found."}
    query = "&".join(f"{_aliyun_encode(k)}={_aliyun_encode(v)}" for k, v in sorted(form.items()))
    string_to_sign = method + "&" + _aliyun_encode("/") + "&" + _aliyun_encode(query)
    expected = base64.b64encode(hmac.new((secret + "&").encode(), string_to_sign.encode(), hashlib.sha1).digest())
    if not hmac.compare_digest(expected.decode(), signature):
        provider.refused.append("SignatureDoesNotMatch")
        return 400, {
            "RequestId": request_id,
            "Code": "SignatureDoesNotMatch",
            "Message": "Specified signature is not matched with our calculation.",
        }
    stamp = datetime.strptime(form["Timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert abs(time.time() - stamp.timestamp()) < 900, "aliyun refuses a timestamp 15 minutes off"
    assert form["Action"] == "SendSms" and form["Version"] == "2017-05-25" and form["SignatureVersion"] == "1.0"
    assert form["SignatureMethod"] == "HMAC-SHA1" and form["Format"] == "JSON" and form["SignatureNonce"]
    provider.sent.append(
        {
            "phones": form["PhoneNumbers"].split(","),
            "sign": form["SignName"],
            "template": form["TemplateCode"],
            "params": json.loads(form.get("TemplateParam") or "{}"),
            "region": form["RegionId"],
        }
    )
    return 200, {"Message": "OK", "RequestId": request_id, "Code": "OK", "BizId": f"{uuid.uuid4().int % 10**18}^0"}


def _tc3(provider: Provider, headers: Any, body: bytes) -> tuple[int, dict[str, Any]]:
    request_id = str(uuid.uuid4())

    def error(code: str, message: str) -> tuple[int, dict[str, Any]]:
        provider.refused.append(code)
        return 200, {"Response": {"Error": {"Code": code, "Message": message}, "RequestId": request_id}}

    auth = headers.get("Authorization", "")
    try:
        algorithm, rest = auth.split(" ", 1)
        parts = dict(p.strip().split("=", 1) for p in rest.split(","))
        secret_id, date, service, terminator = parts["Credential"].split("/")
    except ValueError:
        return error("AuthFailure.SignatureFailure", "The provided credentials could not be validated.")
    secret = provider.secrets.get(secret_id)
    if secret is None:
        return error(
            "AuthFailure.SecretIdNotFound", "The SecretId is not found, please ensure that your SecretId is correct."
        )
    timestamp = headers.get("X-TC-Timestamp", "")
    assert algorithm == "TC3-HMAC-SHA256" and service == "sms" and terminator == "tc3_request"
    assert date == datetime.fromtimestamp(int(timestamp), UTC).strftime("%Y-%m-%d")
    signed = parts["SignedHeaders"].split(";")
    canonical_headers = "".join(
        f"{name}:{headers.get(name, '').strip().lower() if name == 'x-tc-action' else headers.get(name, '').strip()}\n"
        for name in signed
    )
    canonical_request = "\n".join(
        ["POST", "/", "", canonical_headers, parts["SignedHeaders"], hashlib.sha256(body).hexdigest()]
    )
    scope = f"{date}/sms/tc3_request"
    string_to_sign = "\n".join(
        ["TC3-HMAC-SHA256", timestamp, scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
    )
    k_date = hmac.new(("TC3" + secret).encode(), date.encode(), hashlib.sha256).digest()
    k_service = hmac.new(k_date, b"sms", hashlib.sha256).digest()
    k_signing = hmac.new(k_service, b"tc3_request", hashlib.sha256).digest()
    expected = hmac.new(k_signing, string_to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, parts.get("Signature", "")):
        return error(
            "AuthFailure.SignatureFailure",
            "The provided credentials could not be validated. Please check your signature is correct.",
        )
    assert {"content-type", "host"} <= set(signed)
    assert headers.get("X-TC-Action") == "SendSms" and headers.get("X-TC-Version") == "2021-01-11"
    assert abs(time.time() - int(timestamp)) < 300, "tencent refuses a timestamp 5 minutes off"
    sent = json.loads(body)
    provider.sent.append(
        {
            "phones": sent["PhoneNumberSet"],
            "app": sent["SmsSdkAppId"],
            "sign": sent["SignName"],
            "template": sent["TemplateId"],
            "params": sent["TemplateParamSet"],
            "region": headers.get("X-TC-Region"),
        }
    )
    statuses = [
        {
            "SerialNo": uuid.uuid4().hex,
            "PhoneNumber": p,
            "Fee": 1,
            "SessionContext": "",
            "Code": "Ok",
            "Message": "send success",
            "IsoCode": "CN",
        }
        for p in sent["PhoneNumberSet"]
    ]
    return 200, {"Response": {"SendStatusSet": statuses, "RequestId": request_id}}


@contextmanager
def serve(kind: str, secrets: dict[str, str]) -> Iterator[Provider]:
    """A provider of ``kind`` (``aliyun`` or ``tencent``) on 127.0.0.1 for the block."""
    provider = Provider(url="", secrets=secrets)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if kind == "aliyun":
                form = dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))
                status, answer = _aliyun_answer(provider, "POST", form)
            else:
                status, answer = _tc3(provider, self.headers, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    provider.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
