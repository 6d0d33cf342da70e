"""Files: where a tenant's uploaded files are kept, what an upload may be, and the rules of object storage
configurations and attachments.

A tenant's files go to its enabled object storage configuration (``blade_oss`` with ``status`` 2: an S3-compatible
service reached with boto3, path-style for minio and qiniu, virtual-hosted for aliyun and tencent), else to the local
disk under ``var_dir``/files/<tenant>/. Both are a :class:`Store`. Every request to an S3 service goes to an
address checked just before it is sent (``core.egress``: no internal address unless ``allow_private_endpoints``).
Keys are made here (``upload/<yyyymmdd>/<random>.<kind>``), never from what a client sends, and a local path is
checked to stay under the tenant's folder (:func:`safe_key`, :meth:`LocalStore.path`).

An upload is accepted by its content, not its name or declared type (:func:`sniff`): images (the site plan's check,
``system.api.map_setting.image_type``, plus GIF), PDF, ZIP and the Office formats inside it, UTF-8 text; at most
``upload_max_bytes``, of the kinds of ``upload_types`` (settings).

A direct upload (``common/cosToken``, :func:`issue_direct_upload`) goes from the client to the tenant's object storage
with a presigned POST the service itself enforces: one key made here, 1 byte to ``upload_max_bytes``, the
``Content-Type`` of the kind the file's name says, 10 minutes. Its content cannot be checked before it is stored; its
attachment row (``attach_size`` 0 until then unknown) makes every read through the attachment's link check it
(:func:`check_unchecked`).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import os
import re
import tempfile
import uuid
import zipfile
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from liftdesk.core import crud, egress
from liftdesk.core.config import Settings
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.ids import next_id
from liftdesk.core.resource import Hooks
from liftdesk.system import models as m
from liftdesk.system.s3_egress import pinned_send
from liftdesk.system.schemas import SECRET_MASK

log = logging.getLogger(__name__)

#: ``status`` of the tenant's enabled configuration (BladeX), and of the others.
ENABLED, DISABLED = 2, 1
#: The domain of files on the local disk.
LOCAL_DOMAIN = "local"
#: Categories (dictionary ``oss``) whose services take path-style addresses (minio, qiniu); the others (aliyun OSS,
#: tencent COS) only virtual-hosted ones.
PATH_STYLE = frozenset({1, 2})

_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)*$")
_TENANT = re.compile(r"^[A-Za-z0-9_-]{1,12}$")


class StoreError(Exception):
    """The store refused or could not be reached; the message says why (for the user)."""


class MissingObject(StoreError):
    """No object at this key."""


def safe_key(key: str) -> str:
    """``key`` if it is a relative path of plain segments (letters, digits, ``_ . -``; none starting with a dot, so no
    ``..``), else ValueError."""
    if len(key) > 400 or not _KEY.match(key):
        raise ValueError(f"unsafe key {key!r}")
    return key


class Store(Protocol):
    domain: str

    async def put(self, key: str, data: bytes, content_type: str) -> None: ...

    async def get(self, key: str) -> bytes: ...

    async def delete(self, key: str) -> None: ...

    async def check(self) -> None:
        """Can files be written there (the bucket exists and the keys open it)? Raises StoreError if not."""


class LocalStore:
    """The tenant's folder on the local disk (``<root>/<tenant>/``)."""

    def __init__(self, root: Path, tenant: str) -> None:
        if not _TENANT.match(tenant):
            raise ValueError(f"unsafe tenant {tenant!r}")
        self.base = (root / tenant).resolve()
        self.domain = LOCAL_DOMAIN

    def path(self, key: str) -> Path:
        """The file of ``key``, which must stay under the tenant's folder (ValueError otherwise)."""
        target = (self.base / safe_key(key)).resolve()
        if not target.is_relative_to(self.base) or target == self.base:
            raise ValueError(f"key {key!r} leaves the tenant's folder")
        return target

    def _write(self, target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, target)  # whole or not at all
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    async def put(self, key: str, data: bytes, content_type: str) -> None:
        target = self.path(key)
        try:
            await asyncio.to_thread(self._write, target, data)
        except OSError as exc:
            raise StoreError(exc.strerror or type(exc).__name__) from exc

    async def get(self, key: str) -> bytes:
        target = self.path(key)
        try:
            return await asyncio.to_thread(target.read_bytes)
        except FileNotFoundError as exc:
            raise MissingObject(key) from exc
        except OSError as exc:
            raise StoreError(exc.strerror or type(exc).__name__) from exc

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self.path(key).unlink, missing_ok=True)

    async def check(self) -> None:
        try:
            await asyncio.to_thread(self.base.mkdir, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(exc.strerror or type(exc).__name__) from exc


@dataclass(frozen=True)
class S3Config:
    endpoint: str
    bucket: str
    access_key: str
    secret_key: str
    region: str
    path_style: bool
    #: The endpoint may lead to an internal address (setting ``allow_private_endpoints``; ``core.egress``).
    allow_private: bool = False

    @classmethod
    def of(cls, row: m.Oss, allow_private: bool) -> S3Config:
        return cls(
            endpoint=row.endpoint.rstrip("/"),
            bucket=row.bucket_name,
            access_key=row.access_key or "",
            secret_key=row.secret_key or "",
            region=row.region or "us-east-1",
            path_style=row.category in PATH_STYLE,
            allow_private=allow_private,
        )


#: boto3 clients by configuration (making one takes tens of milliseconds; they are thread-safe).
_CLIENTS: OrderedDict[S3Config, Any] = OrderedDict()
_CLIENTS_MAX = 32


def _client(config: S3Config) -> Any:
    found = _CLIENTS.get(config)
    if found is not None:
        _CLIENTS.move_to_end(config)
        return found
    import boto3
    from botocore.config import Config

    client = boto3.session.Session().client(
        "s3",
        endpoint_url=config.endpoint,
        aws_access_key_id=config.access_key,
        aws_secret_access_key=config.secret_key,
        region_name=config.region,
        config=Config(
            s3={"addressing_style": "path" if config.path_style else "virtual"},
            signature_version="s3v4",
            connect_timeout=5,
            read_timeout=30,
            retries={"max_attempts": 2},
        ),
    )
    # Every request the client sends (retries and redirected ones included) goes to an address checked just before
    # it is sent, and is sent there (``s3_egress.pinned_send``: botocore would resolve the name again, and a second
    # answer could lead inside); the host is the one the request names (virtual-hosted: the bucket's own name).
    client.meta.events.register("before-send.s3", pinned_send(config.allow_private, StoreError))
    _CLIENTS[config] = client
    while len(_CLIENTS) > _CLIENTS_MAX:
        _CLIENTS.popitem(last=False)
    return client


def _reason(exc: Exception) -> str:
    """A short reason from a boto3 error (its code and message), without the request's details."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        error = response.get("Error") or {}
        code, message = str(error.get("Code") or ""), str(error.get("Message") or "")
        return f"{code} {message}".strip()[:200] or type(exc).__name__
    return str(exc)[:200] or type(exc).__name__


def _missing(exc: Exception) -> bool:
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return False
    code = str((response.get("Error") or {}).get("Code") or "")
    return code in ("NoSuchKey", "404", "NotFound")


@dataclass(frozen=True)
class DirectUpload:
    """A presigned POST: the form's address, the fields to send with the file, when it expires (UTC, naive)."""

    url: str
    fields: dict[str, str]
    expire_at: datetime


class S3Store:
    """A bucket of an S3-compatible service (minio, aliyun OSS, tencent COS, qiniu Kodo, AWS)."""

    def __init__(self, config: S3Config) -> None:
        self.config = config
        self.domain = f"{config.endpoint}/{config.bucket}"

    async def _call(self, name: str, **kw: Any) -> Any:
        client = _client(self.config)
        try:
            return await asyncio.to_thread(getattr(client, name), Bucket=self.config.bucket, **kw)
        except egress.EndpointRefused:
            raise  # the 400 naming the field, as it is
        except Exception as exc:  # botocore's errors: the service refused, or could not be reached
            if _missing(exc):
                raise MissingObject(kw.get("Key", "")) from exc
            raise StoreError(_reason(exc)) from exc

    async def put(self, key: str, data: bytes, content_type: str) -> None:
        await self._call("put_object", Key=safe_key(key), Body=data, ContentType=content_type)

    async def get(self, key: str) -> bytes:
        answer = await self._call("get_object", Key=safe_key(key))
        body = answer["Body"]
        try:
            data: bytes = await asyncio.to_thread(body.read)
            return data
        finally:
            body.close()

    async def delete(self, key: str) -> None:
        await self._call("delete_object", Key=safe_key(key))

    async def check(self) -> None:
        await self._call("head_bucket")

    def presigned_post(self, key: str, kind: Kind, max_bytes: int, seconds: int) -> DirectUpload:
        """A presigned POST (SigV4, computed here: nothing is sent) that lets its holder store one object: at ``key``
        exactly (boto3 adds the bucket's and the key's conditions), of 1..``max_bytes`` bytes, with the kind's
        ``Content-Type``, within ``seconds``. StoreError when the configuration cannot sign one."""
        try:
            post = _client(self.config).generate_presigned_post(
                Bucket=self.config.bucket,
                Key=safe_key(key),
                Fields={"Content-Type": kind.content_type},
                Conditions=[{"Content-Type": kind.content_type}, ["content-length-range", 1, max_bytes]],
                ExpiresIn=seconds,
            )
            fields = {str(k): str(v) for k, v in post["fields"].items()}
            expiration = json.loads(base64.b64decode(fields["policy"]))["expiration"]
            expire_at = datetime.fromisoformat(expiration).astimezone(UTC).replace(tzinfo=None)
        except Exception as exc:  # botocore's errors (a configuration it cannot sign with)
            raise StoreError(_reason(exc)) from exc
        return DirectUpload(url=str(post["url"]), fields=fields, expire_at=expire_at)


def files_root(settings: Settings) -> Path:
    return settings.var_dir / "files"


def store_of(settings: Settings, tenant: str, config: m.Oss | None) -> Store:
    """The store of a configuration (None: the tenant's folder on the local disk)."""
    if config is None:
        return LocalStore(files_root(settings), tenant)
    return S3Store(S3Config.of(config, settings.allow_private_endpoints))


async def enabled_config(ctx: crud.Ctx) -> m.Oss | None:
    """The tenant's enabled configuration, if any (the tenant's, whoever wrote it: ``data=False``)."""
    stmt = ctx.scope.select(m.Oss, data=False).where(m.Oss.status == ENABLED)
    return (await ctx.session.execute(stmt)).scalars().first()


async def config_of(ctx: crud.Ctx, oss_id: int | None) -> m.Oss | None:
    """The configuration that holds a file (None: the local disk); MissingObject when it has been removed."""
    if oss_id is None:
        return None
    stmt = ctx.scope.select(m.Oss, data=False).where(m.Oss.id == oss_id)
    found = (await ctx.session.execute(stmt)).scalars().first()
    if found is None:
        raise MissingObject(str(oss_id))
    return found


# ---------------------------------------------------------------- what an upload may be


@dataclass(frozen=True)
class Kind:
    extension: str
    content_type: str


GIF = Kind("gif", "image/gif")
PDF = Kind("pdf", "application/pdf")
ZIP = Kind("zip", "application/zip")
TXT = Kind("txt", "text/plain; charset=utf-8")
CSV = Kind("csv", "text/csv; charset=utf-8")
_OOXML = {
    "word/": Kind("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    "xl/": Kind("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "ppt/": Kind("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
}
_IMAGES = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}


def _zip_kind(data: bytes) -> Kind:
    """A ZIP archive, or the Office document it is (by its entries' names; nothing is extracted)."""
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return ZIP
    if "[Content_Types].xml" in names:
        for prefix, kind in _OOXML.items():
            if any(n.startswith(prefix) for n in names):
                return kind
    return ZIP


def _is_text(data: bytes) -> bool:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return not any(c in text for c in "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0e\x0f\x1a\x1b\x7f")


def sniff(data: bytes, original_name: str) -> Kind | None:
    """The kind of a file by its content (the name only tells CSV from other text). None: not a kind we know."""
    from liftdesk.system.api.map_setting import image_type

    image = image_type(data)
    if image is not None:
        return Kind(_IMAGES[image], image)
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return GIF
    if data.startswith(b"%PDF-"):
        return PDF
    if data.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    if _is_text(data):
        if original_name.lower().endswith(".csv"):
            return CSV
        return TXT
    return None


#: Every kind :func:`sniff` tells, by its extension: what a direct upload's name may end with (``kind_of_name``).
KINDS: dict[str, Kind] = {
    kind.extension: kind
    for kind in (*(Kind(ext, ct) for ct, ext in _IMAGES.items()), GIF, PDF, ZIP, *_OOXML.values(), TXT, CSV)
}


def accepted_kinds(settings: Settings) -> list[str]:
    return [k.strip().lower() for k in settings.upload_types.split(",") if k.strip()]


def check_upload(settings: Settings, data: bytes, original_name: str) -> Kind:
    """The upload's kind, or a 400 naming the field ``file``: empty, too large, or not of an accepted kind."""
    if not data:
        raise ServiceError(t("file_empty", field="file"))
    limit = settings.upload_max_bytes
    if len(data) > limit:
        raise ServiceError(t("file_too_large", field="file", limit=f"{limit / (1024 * 1024):g}"))
    kind = sniff(data, original_name)
    accepted = accepted_kinds(settings)
    if kind is None or kind.extension not in accepted:
        raise ServiceError(t("file_type", field="file", types=", ".join(accepted)))
    return kind


def kind_of_name(settings: Settings, name: str, field: str) -> Kind:
    """The kind a file named ``name`` is to be (by its extension, which must be one of the accepted kinds: the rule
    of ``file/upload``, told by the name since there are no bytes yet); else a 400 naming ``field``."""
    extension = name.rsplit(".", 1)[-1].strip().lower() if "." in name else ""
    accepted = accepted_kinds(settings)
    kind = KINDS.get(extension)
    if kind is None or extension not in accepted:
        raise ServiceError(t("file_type_name", field=field, types=", ".join(accepted)))
    return kind


#: What a picture of a fixed kind may be named (``.jpeg`` is a JPEG too) and the kind its content must then be.
PICTURE_EXTENSIONS = {"png": "png", "jpg": "jpg", "jpeg": "jpg"}


def check_picture(settings: Settings, data: bytes, original_name: str, max_bytes: int, field: str = "file") -> Kind:
    """A picture named .jpg / .jpeg / .png whose content is that kind (the upload's own checks: empty, size, kind
    by content), at most ``max_bytes`` (and the upload limit); else a 400 naming ``field``."""
    extension = original_name.rsplit(".", 1)[-1].lower() if "." in original_name else ""
    if extension not in PICTURE_EXTENSIONS:
        raise ServiceError(t("logo_type", field=field))
    if not data:
        raise ServiceError(t("file_empty", field=field))
    limit = min(max_bytes, settings.upload_max_bytes)
    if len(data) > limit:
        raise ServiceError(t("file_too_large", field=field, limit=f"{limit / (1024 * 1024):g}"))
    kind = sniff(data, original_name)
    if kind is None or kind.extension != PICTURE_EXTENSIONS[extension]:
        raise ServiceError(t("logo_content", field=field, kind=extension.upper()))
    return kind


#: Where an attachment's file is read (``system.api.files.download_attach``): an attachment's ``link`` is this with
#: ``?id=``.
ATTACH_DOWNLOAD = "/api/blade-resource/attach/download"


def new_key(kind: Kind) -> str:
    """A new file's key in its store, made here (never from what a client sends): ``upload/<yyyymmdd>/<random>.<kind>``
    (under the tenant's folder on the local disk; in the tenant's own bucket on object storage)."""
    return f"upload/{datetime.now(UTC):%Y%m%d}/{uuid.uuid4().hex}.{kind.extension}"


def _attach_row(
    ctx: crud.Ctx, store: Store, config: m.Oss | None, key: str, kind: Kind, filename: str | None, size: int
) -> m.Attach:
    ident = next_id()
    row = m.Attach(
        id=ident,
        link=f"{ATTACH_DOWNLOAD}?id={ident}",
        domain=store.domain,
        name=key,
        original_name=display_name(filename, kind),
        extension=kind.extension,
        attach_size=size,
        content_type=kind.content_type,
        oss_id=config.id if config is not None else None,
    )
    ctx.scope.stamp(row, creating=True)
    ctx.session.add(row)
    return row


async def store_attachment(
    ctx: crud.Ctx, settings: Settings, data: bytes, kind: Kind, filename: str | None
) -> m.Attach:
    """Put a checked upload in the tenant's enabled store (else the local disk) under a key made here, and write its
    attachment row (flushed; committed with the request). The file is removed again when the row cannot be
    written. Refused (400) past the tenant's quota or the user's upload rate (``system.uploads``)."""
    from liftdesk.system import uploads

    await uploads.admit(ctx, settings, len(data))
    config = await enabled_config(ctx)
    store = store_of(settings, ctx.scope.tenant_id, config)
    key = new_key(kind)
    try:
        await store.put(key, data, kind.content_type)
    except StoreError as exc:
        raise ServiceError(t("file_store_failed", reason=str(exc))) from None
    row = _attach_row(ctx, store, config, key, kind, filename, len(data))
    try:
        await ctx.session.flush()
    except Exception:
        await store.delete(key)  # no row, no file
        raise
    return row


#: How long a direct-upload credential (``common/cosToken``) can be used, in seconds.
DIRECT_UPLOAD_SECONDS = 600


async def issue_direct_upload(
    ctx: crud.Ctx, settings: Settings, file_name: str, field: str = "fileName"
) -> tuple[m.Attach, DirectUpload, Kind]:
    """A presigned POST for one file named ``file_name`` into the tenant's enabled object storage (its kind by the
    name's extension, at most ``upload_max_bytes``), and its attachment row (flushed), whose ``attach_size`` stays 0:
    not checked by this server (:func:`check_unchecked` checks its content whenever it is read). A 400 when the
    name's kind is not accepted (naming ``field``) or the tenant's files are kept on the local disk."""
    from liftdesk.system import uploads

    kind = kind_of_name(settings, file_name, field)
    await uploads.admit(ctx, settings, settings.upload_max_bytes, field)  # it may be that large
    config = await enabled_config(ctx)
    store = store_of(settings, ctx.scope.tenant_id, config)
    if not isinstance(store, S3Store):
        raise ServiceError(t("direct_upload_local"))
    key = new_key(kind)
    try:
        post = store.presigned_post(key, kind, settings.upload_max_bytes, DIRECT_UPLOAD_SECONDS)
    except StoreError as exc:
        raise ServiceError(t("file_store_failed", reason=str(exc))) from None
    row = _attach_row(ctx, store, config, key, kind, file_name, 0)
    await ctx.session.flush()
    return row, post, kind


def check_unchecked(settings: Settings, row: m.Attach, data: bytes) -> None:
    """An attachment this server did not check when it was stored (a direct upload: ``attach_size`` 0; an upload
    through ``file/upload`` is never empty) is read only if its content is its kind, within the upload limit;
    else a 400. The others pass as they are."""
    if row.attach_size:
        return
    try:
        kind: Kind | None = check_upload(settings, data, f"file.{row.extension}")
    except ServiceError:
        kind = None
    if kind is None or kind.extension != row.extension:
        raise ServiceError(t("file_unchecked_content", kind=row.extension))


async def attachment_of_link(ctx: crud.Ctx, link: str) -> m.Attach | None:
    """The tenant's attachment a ``link`` (``ATTACH_DOWNLOAD?id=``) reads, whoever uploaded it; None if it is not
    such a link or names no attachment of the tenant."""
    prefix = f"{ATTACH_DOWNLOAD}?id="
    if not link.startswith(prefix) or not link[len(prefix) :].isdigit() or len(link) > len(prefix) + 20:
        return None
    stmt = ctx.scope.select(m.Attach, data=False).where(m.Attach.id == int(link[len(prefix) :]))
    return (await ctx.session.execute(stmt)).scalars().first()


def display_name(name: str | None, kind: Kind) -> str:
    """The uploaded file's name as shown: its last path segment, without tags, angle brackets or control
    characters, at most 255 characters; the kind's extension when it had none."""
    base = re.split(r"[\\/]", name or "")[-1]
    base = re.sub(r"<[^>]*>?", "", base)  # no markup: tags (and a tag cut short) go
    base = re.sub(r"[\x00-\x1f\x7f<>]", "", base).strip()
    if not base or base in (".", ".."):
        base = f"file.{kind.extension}"
    return base[-255:]


# ---------------------------------------------------------------- rules of the resources


class OssHooks(Hooks):
    """Secrets are read back masked and kept when sent back masked; a configuration is enabled by ``enable`` only."""

    async def before_save(self, ctx: crud.Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if data.get("secret_key") == SECRET_MASK:
            if creating:
                raise ServiceError(t("field_invalid", field="secretKey"))
            await ctx.session.refresh(obj, ["secret_key"])  # sent back as read: the stored secret stays
        if creating:
            obj.status = DISABLED

    async def enrich(self, ctx: crud.Ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in rows:
            if row.get("secret_key"):
                row["secret_key"] = SECRET_MASK
        return rows


class AttachHooks(Hooks):
    """Attachments are made by uploading (``file/upload``); removing one removes its stored file after the commit."""

    async def before_save(self, ctx: crud.Ctx, obj: Any, data: dict[str, Any], creating: bool) -> None:
        if creating:
            raise ServiceError(t("attach_by_upload", field="id"))

    async def before_remove(self, ctx: crud.Ctx, rows: Sequence[Any]) -> None:
        tenant = ctx.scope.tenant_id
        doomed: list[tuple[m.Oss | None, str]] = []  # (None: the local disk, key)
        configs: dict[int, m.Oss | None] = {}
        for row in rows:
            if row.oss_id is None:
                doomed.append((None, row.name))
                continue
            if row.oss_id not in configs:
                try:
                    configs[row.oss_id] = await config_of(ctx, row.oss_id)
                except MissingObject:
                    configs[row.oss_id] = None  # its configuration was removed: nothing to reach
            config = configs[row.oss_id]
            if config is not None:
                doomed.append((config, row.name))

        async def delete_files(state: Any) -> None:
            for config, key in doomed:
                try:
                    await store_of(state.settings, tenant, config).delete(key)
                except (StoreError, ValueError, OSError) as exc:  # the row is gone; the file stays behind
                    log.warning("attachment file %s not deleted: %s", key, exc)

        ctx.after_commit.append(delete_files)
