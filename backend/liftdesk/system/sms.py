"""SMS: a tenant's SMS configurations (``blade_sms``) and the providers that send through them.

A message goes through a configuration (``send-message``'s ``code``, else the tenant's enabled one, ``status`` 2) to
its provider (``category``, dictionary ``sms``):

- 3 阿里云: dysmsapi ``SendSms`` (version 2017-05-25), an RPC call signed with HMAC-SHA1 (:func:`aliyun_signature`);
- 4 腾讯云: SMS ``SendSms`` API 3.0 (version 2021-01-11), signed with TC3-HMAC-SHA256 (:func:`tc3_authorization`);
- without any configuration, outside production, the message is written to the server log (:class:`LogProvider`,
  the embedded default for development, as the local disk is for files). 1 云片 and 2 七牛云 are not served: such a
  configuration cannot be saved.

``endpoint`` (empty: the provider's public address) lets tests point a configuration at a local server; it is
checked each time it is called (``core.egress``: no internal address unless ``allow_private_endpoints``). A provider's
refusal or an unreachable provider is a :class:`SmsError` whose message (the provider's code and message) the calls
answer as a 400.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Protocol
from urllib.parse import quote, urlsplit

import httpx
from pydantic import Field

from liftdesk.core import crud, egress
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.resource import Hooks
from liftdesk.core.schemas import Id, Schema, dictionary, out_schema
from liftdesk.system import models as m
from liftdesk.system.schemas import ENDPOINT_PATTERN, SECRET_MASK

log = logging.getLogger(__name__)

#: ``status`` of the tenant's enabled configuration (BladeX), and of the others.
ENABLED, DISABLED = 2, 1
ALIYUN, TENCENT = 3, 4
#: Categories with a client here (dictionary ``sms``: 1 云片 2 七牛云 3 阿里云 4 腾讯云).
SERVED = frozenset({ALIYUN, TENCENT})
#: The providers' public addresses.
ALIYUN_ENDPOINT = "https://dysmsapi.aliyuncs.com"
TENCENT_ENDPOINT = "https://sms.tencentcloudapi.com"
#: Most numbers one call sends to (tencent takes 200 at once).
MAX_PHONES = 200
#: What ``phones`` accepts (documented; checked by the call with the user rules' messages): 1 to MAX_PHONES mobile
#: numbers, comma separated (the full-width comma too).
PHONES_PATTERN = r"^\s*1[3-9][0-9]{9}\s*(?:[,，]\s*1[3-9][0-9]{9}\s*){0,199}$"
TIMEOUT = httpx.Timeout(10.0, connect=5.0)


# ---------------------------------------------------------------- what clients send and read


class SmsIn(Schema):
    id: Id | None = None
    category: Annotated[int, Field(ge=1, le=4), dictionary("sms")] = ALIYUN
    sms_code: Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")]
    template_id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
    access_key: Annotated[str, Field(min_length=1, max_length=255)]
    secret_key: Annotated[
        str, Field(min_length=1, max_length=255, description="read back as ******; sent back as ******, it is kept")
    ]
    region_id: Annotated[str | None, Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_-]*$")] = None
    sign_name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")]
    app_id: Annotated[
        str | None, Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_-]*$", description="tencent SmsSdkAppId")
    ] = None
    endpoint: Annotated[
        str | None,
        Field(
            default=None,
            max_length=255,
            pattern=f"(?:{ENDPOINT_PATTERN})|^$",
            description="the provider's address, http(s)://host[:port]; empty: its public one",
        ),
    ] = None
    remark: Annotated[str | None, Field(default=None, max_length=255)] = None


SmsOut = out_schema("SmsOut", SmsIn, m.Sms)


class SmsIdQuery(Schema):
    id: Id


class SendMessageQuery(Schema):
    """``send-message``'s parameters (BladeX takes them as request parameters)."""

    code: Annotated[
        str | None,
        Field(default=None, max_length=32, description="the configuration's smsCode; empty: the enabled one"),
    ] = None
    phones: Annotated[
        str,
        Field(
            min_length=1,
            max_length=4000,
            description="mobile numbers (11 digits each), comma separated",
            json_schema_extra={"pattern": PHONES_PATTERN},
        ),
    ]
    params: Annotated[
        str,
        Field(default="{}", max_length=2000, description='the template\'s parameters, a JSON object: {"code": "1234"}'),
    ] = "{}"


class SmsSent(Schema):
    """A message sent: through which configuration (``smsCode`` empty: the server log), to whom, and the provider's
    id of the request."""

    sms_code: str
    category: int
    phones: list[str]
    request_id: str


# ---------------------------------------------------------------- providers


class SmsError(Exception):
    """The provider refused the message or could not be reached; the message says why (for the user)."""


@dataclass(frozen=True)
class Message:
    phones: Sequence[str]
    template_id: str
    params: Mapping[str, str]


class Provider(Protocol):
    async def send(self, message: Message) -> str:
        """Send; the provider's request id. Raises SmsError."""


class LogProvider:
    """Writes the message to the server log: the development default."""

    async def send(self, message: Message) -> str:
        ident = uuid.uuid4().hex
        log.warning(
            "SMS (log provider, %s) to %s template %s: %s",
            ident,
            ",".join(message.phones),
            message.template_id,
            json.dumps(dict(message.params), ensure_ascii=False),
        )
        return ident


def percent_encode(value: str) -> str:
    """RFC 3986 encoding as aliyun's signature takes it: everything but ``A-Z a-z 0-9 - _ . ~``."""
    return quote(value, safe="")


def aliyun_signature(method: str, params: Mapping[str, str], secret: str) -> str:
    """Aliyun RPC signature (SignatureVersion 1.0): the parameters sorted by name and percent-encoded as a query,
    ``METHOD&%2F&<that, encoded again>`` signed with HMAC-SHA1 under ``secret + "&"``, in base64."""
    canonical = "&".join(f"{percent_encode(k)}={percent_encode(params[k])}" for k in sorted(params))
    to_sign = f"{method}&{percent_encode('/')}&{percent_encode(canonical)}"
    digest = hmac.new(f"{secret}&".encode(), to_sign.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


def _reason(code: Any, message: Any) -> str:
    return f"{code or ''} {message or ''}".strip()[:300] or "unknown error"


async def _post(url: str, allow_private: bool, headers: Mapping[str, str] | None = None, **kw: Any) -> tuple[int, Any]:
    """POST to a provider: its address checked now and the connection pinned to the address checked
    (``core.egress``; EndpointRefused is a 400 naming ``endpoint``), no redirect followed."""
    target = await egress.resolve(url, "endpoint", allow_private)
    sent = {"Host": target.netloc, **(headers or {})}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as client:
            response = await client.post(target.pinned(), headers=sent, extensions=extensions, **kw)
    except httpx.HTTPError as exc:
        raise SmsError(f"{type(exc).__name__} {exc}".strip()[:300]) from exc
    try:
        return response.status_code, response.json()
    except ValueError:
        raise SmsError(f"HTTP {response.status_code}: {response.text[:200]}") from None


class AliyunProvider:
    def __init__(self, row: m.Sms, allow_private: bool = False) -> None:
        self.row = row
        self.allow_private = allow_private

    async def send(self, message: Message) -> str:
        row = self.row
        params = {
            "AccessKeyId": row.access_key or "",
            "Action": "SendSms",
            "Format": "JSON",
            "RegionId": row.region_id or "cn-hangzhou",
            "SignatureMethod": "HMAC-SHA1",
            "SignatureNonce": uuid.uuid4().hex,
            "SignatureVersion": "1.0",
            "Timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "Version": "2017-05-25",
            "PhoneNumbers": ",".join(message.phones),
            "SignName": row.sign_name or "",
            "TemplateCode": message.template_id,
            "TemplateParam": json.dumps(dict(message.params), ensure_ascii=False, separators=(",", ":")),
        }
        params["Signature"] = aliyun_signature("POST", params, row.secret_key or "")
        url = f"{(row.endpoint or ALIYUN_ENDPOINT).rstrip('/')}/"
        status, answer = await _post(url, self.allow_private, data=params)
        if not isinstance(answer, dict) or answer.get("Code") != "OK":
            got = answer if isinstance(answer, dict) else {}
            raise SmsError(_reason(got.get("Code") or f"HTTP {status}", got.get("Message")))
        return str(answer.get("BizId") or answer.get("RequestId") or "")


def _hmac256(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def tc3_authorization(
    secret_id: str, secret_key: str, host: str, action: str, payload: bytes, timestamp: int, service: str = "sms"
) -> str:
    """Tencent Cloud API 3.0 signature (TC3-HMAC-SHA256) of a JSON POST to ``/`` signing content-type, host and
    x-tc-action: the canonical request hashed, the string to sign under the key derived from ``"TC3" + secret``,
    the date, the service and ``tc3_request``; the ``Authorization`` header's value."""
    content_type = "application/json; charset=utf-8"
    headers = f"content-type:{content_type}\nhost:{host}\nx-tc-action:{action.lower()}\n"
    signed = "content-type;host;x-tc-action"
    canonical = f"POST\n/\n\n{headers}\n{signed}\n{hashlib.sha256(payload).hexdigest()}"
    date = datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")
    scope = f"{date}/{service}/tc3_request"
    to_sign = f"TC3-HMAC-SHA256\n{timestamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    key = _hmac256(_hmac256(_hmac256(f"TC3{secret_key}".encode(), date), service), "tc3_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return f"TC3-HMAC-SHA256 Credential={secret_id}/{scope}, SignedHeaders={signed}, Signature={signature}"


class TencentProvider:
    def __init__(self, row: m.Sms, allow_private: bool = False) -> None:
        self.row = row
        self.allow_private = allow_private

    async def send(self, message: Message) -> str:
        row = self.row
        url = (row.endpoint or TENCENT_ENDPOINT).rstrip("/") + "/"
        host = urlsplit(url).netloc
        body = {
            "PhoneNumberSet": [f"+86{p}" for p in message.phones],
            "SmsSdkAppId": row.app_id or "",
            "SignName": row.sign_name or "",
            "TemplateId": message.template_id,
            "TemplateParamSet": list(message.params.values()),
        }
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        timestamp = int(datetime.now(UTC).timestamp())
        headers = {
            "Authorization": tc3_authorization(
                row.access_key or "", row.secret_key or "", host, "SendSms", payload, timestamp
            ),
            "Content-Type": "application/json; charset=utf-8",
            "Host": host,
            "X-TC-Action": "SendSms",
            "X-TC-Version": "2021-01-11",
            "X-TC-Timestamp": str(timestamp),
            "X-TC-Region": row.region_id or "ap-guangzhou",
        }
        status, answer = await _post(url, self.allow_private, content=payload, headers=headers)
        response = answer.get("Response") if isinstance(answer, dict) else None
        if not isinstance(response, dict):
            raise SmsError(f"HTTP {status}: no Response")
        error = response.get("Error")
        if isinstance(error, dict):
            raise SmsError(_reason(error.get("Code"), error.get("Message")))
        for item in response.get("SendStatusSet") or []:
            if isinstance(item, dict) and item.get("Code") != "Ok":
                raise SmsError(_reason(item.get("Code"), f"{item.get('PhoneNumber', '')} {item.get('Message', '')}"))
        return str(response.get("RequestId") or "")


def provider_of(row: m.Sms | None, allow_private: bool = False) -> Provider:
    """The provider of a configuration (None: the server log); ``allow_private``: its endpoint may be an internal
    address (setting ``allow_private_endpoints``)."""
    if row is None:
        return LogProvider()
    if row.category == ALIYUN:
        return AliyunProvider(row, allow_private)
    if row.category == TENCENT:
        return TencentProvider(row, allow_private)
    raise SmsError(t("sms_category", field="category", value=row.category))


# ---------------------------------------------------------------- sending


def parse_params(text: str) -> dict[str, str]:
    """The template's parameters: a JSON object of texts or numbers (400 naming ``params`` otherwise)."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        raise ServiceError(t("sms_params", field="params")) from None
    if not isinstance(value, dict) or not all(
        isinstance(v, str | int | float) and not isinstance(v, bool) for v in value.values()
    ):
        raise ServiceError(t("sms_params", field="params"))
    return {str(k): str(v) for k, v in value.items()}


async def config_for(ctx: crud.Ctx, code: str | None) -> m.Sms | None:
    """The tenant's configuration ``code`` (400 when it has none of that code), else its enabled one (None: none).
    The tenant's, whoever wrote it (``data=False``)."""
    which = m.Sms.sms_code == code if code else m.Sms.status == ENABLED
    stmt = ctx.scope.select(m.Sms, data=False).where(which)
    found = (await ctx.session.execute(stmt)).scalars().first()
    if found is None and code:
        raise ServiceError(t("sms_not_found", field="code", value=code))
    return found


async def send(
    config: m.Sms | None,
    phones: Sequence[str],
    params: Mapping[str, str],
    *,
    allow_private: bool,
    template: str = "",
) -> str:
    """Send through ``config`` (None: the server log); the provider's request id, or a 400 saying why not (an
    endpoint that leads inside: ``core.egress``)."""
    message = Message(phones=phones, template_id=config.template_id if config else template or "log", params=params)
    try:
        return await provider_of(config, allow_private).send(message)
    except SmsError as exc:
        raise ServiceError(t("sms_failed", field="code", reason=str(exc))) from None


# ---------------------------------------------------------------- rules of the resource


class SmsHooks(Hooks):
    """Only the served providers may be saved, with what they need; secrets are read back masked and kept when sent
    back masked; a configuration is enabled by ``enable`` only."""

    async def before_save(self, ctx: crud.Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if data.get("secret_key") == SECRET_MASK:
            if creating:
                raise ServiceError(t("field_invalid", field="secretKey"))
            await ctx.session.refresh(obj, ["secret_key"])  # sent back as read: the stored secret stays
        if obj.category not in SERVED:
            raise ServiceError(t("sms_category", field="category", value=obj.category))
        required = ["access_key", "secret_key", "sign_name"] + (["app_id"] if obj.category == TENCENT else [])
        for name in required:
            if not (getattr(obj, name) or "").strip():
                camel = "".join(w if i == 0 else w.capitalize() for i, w in enumerate(name.split("_")))
                raise ServiceError(t("field_required", field=camel))
        if creating:
            obj.status = DISABLED

    async def enrich(self, ctx: crud.Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in rows:
            if row.get("secret_key"):
                row["secret_key"] = SECRET_MASK
        return rows
