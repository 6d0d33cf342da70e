"""The tenant's map: its basemap (a tile URL template; empty: the web app's default) and a site plan image placed by
its south-west and north-east corners, drawn under the vehicles on every map of the tenant (a yard or a warehouse
floor, where street tiles show little).

``GET /api/liftdesk/map/setting`` (every signed-in user of the tenant: every map needs it), ``POST .../setting/save``,
``POST .../plan/upload`` (multipart ``file``: JPG, PNG or WebP by content, at most 5 MB), ``POST .../plan/remove``
(the edit button of the menu ``map_setting``) and ``GET .../plan/image?hash=`` (the image named by its hash, with its
ETag; a token like every call, so the web app fetches it with its header). One row per tenant, read and written through
the scope.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import urlsplit

from fastapi import Request, Response, UploadFile
from pydantic import ConfigDict, Field
from sqlalchemy.exc import IntegrityError

from liftdesk.core import crud
from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Schema, documented
from liftdesk.core.services import Services
from liftdesk.system import models as m
from liftdesk.system import resources as res
from liftdesk.system import uploads
from liftdesk.system.schemas import MAX_PLAN_BYTES, MapSettingIn, MapSettingOut

MAP = "/api/liftdesk/map"
#: How long a browser may keep the image without asking again: its address names its content (``hash``).
IMAGE_MAX_AGE_S = 30 * 86400
#: Image types by their first bytes (the name and the declared type of an upload are not trusted).
_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_ALLOWED_PLACEHOLDERS = frozenset({"{z}", "{x}", "{y}", "{s}"})
_UPLOAD_DOCUMENT = {
    "requestBody": {
        "content": {"multipart/form-data": {"encoding": {"file": {"contentType": "image/png, image/jpeg, image/webp"}}}}
    }
}
_IMAGE_DOCUMENT = {
    "responses": {
        "200": {
            "description": "the site plan image",
            "content": {
                kind: {"schema": {"type": "string", "format": "binary"}}
                for kind in ("image/png", "image/jpeg", "image/webp")
            },
        },
        "304": {"description": "not modified (If-None-Match names the stored image)"},
    }
}


def image_type(data: bytes) -> str | None:
    """The type of an image by its content: PNG, JPEG or WebP, else None."""
    if data.startswith(_PNG):
        return "image/png"
    if data.startswith(_JPEG):
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def valid_template(url: str) -> bool:
    """An http(s) URL with a host and the placeholders {z}, {x} and {y} (and no others than {s})."""
    if any(c.isspace() for c in url):
        return False
    parts = urlsplit(url.replace("{", "").replace("}", ""))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    found = set(_PLACEHOLDER.findall(url))
    return {"{z}", "{x}", "{y}"} <= found and found <= _ALLOWED_PLACEHOLDERS


async def _row(ctx: crud.Ctx) -> m.MapSetting | None:
    # One row of the tenant's, whoever wrote it: the tenant's map is not an organisation's (``data=False``), else a
    # data rule of the map's menu would hide it from some users and make a second row.
    stmt = ctx.scope.select(m.MapSetting, data=False)
    return (await ctx.session.execute(stmt)).scalars().first()


def _out(row: m.MapSetting | None) -> MapSettingOut:
    if row is None:
        return MapSettingOut()
    return MapSettingOut(
        id=row.id,
        tile_url=row.tile_url,
        attribution=row.attribution,
        max_zoom=row.max_zoom,
        plan_south=row.plan_south,
        plan_west=row.plan_west,
        plan_north=row.plan_north,
        plan_east=row.plan_east,
        plan_opacity=row.plan_opacity,
        has_plan=row.plan_hash is not None,
        plan_type=row.plan_type,
        plan_size=row.plan_size,
        plan_hash=row.plan_hash,
        update_time=row.update_time,
    )


async def _own_row(ctx: crud.Ctx) -> m.MapSetting:
    """The tenant's row, made when it has none yet (stamped with the tenant and the caller)."""
    row = await _row(ctx)
    if row is None:
        row = m.MapSetting(tile_url="", attribution="", plan_opacity=0.8)
        ctx.scope.stamp(row, creating=True)
        ctx.session.add(row)
    else:
        ctx.scope.stamp(row, creating=False)
    return row


async def _flush(ctx: crud.Ctx) -> None:
    try:
        await ctx.session.flush()
    except IntegrityError:  # two first saves of one tenant at once: the other one made the row
        await ctx.session.rollback()
        raise ServiceError(t("fail")) from None


@res.MAP_SETTING.action(
    "GET",
    f"{MAP}/setting",
    permission=SIGNED_IN,
    kind="detail",
    answer=MapSettingOut,
    summary="The tenant's map: basemap and site plan (defaults when it has set nothing)",
)
async def read_map_setting(ctx: crud.Ctx) -> MapSettingOut:
    return _out(await _row(ctx))


@res.MAP_SETTING.action(
    "POST",
    f"{MAP}/setting/save",
    permission="edit",
    body=MapSettingIn,
    answer=MapSettingOut,
    summary="Save the tenant's basemap and the site plan's corners and opacity",
)
async def save_map_setting(ctx: crud.Ctx, body: MapSettingIn) -> MapSettingOut:
    if body.tile_url and not valid_template(body.tile_url):
        raise ServiceError(t("map_tile_template", field="tileUrl"))
    corners = {
        "planSouth": body.plan_south,
        "planWest": body.plan_west,
        "planNorth": body.plan_north,
        "planEast": body.plan_east,
    }
    given = [k for k, v in corners.items() if v is not None]
    if given and len(given) < len(corners):
        missing = next(k for k, v in corners.items() if v is None)
        raise ServiceError(t("map_corners_all", field=missing))
    if given:
        south, west, north, east = (float(v or 0) for v in corners.values())
        if not south < north:
            raise ServiceError(t("map_corners_order", field="planSouth"))
        if not west < east:
            raise ServiceError(t("map_corners_order", field="planWest"))
    row = await _own_row(ctx)
    row.tile_url = body.tile_url
    row.attribution = body.attribution
    row.max_zoom = body.max_zoom
    row.plan_south, row.plan_west = body.plan_south, body.plan_west
    row.plan_north, row.plan_east = body.plan_north, body.plan_east
    row.plan_opacity = body.plan_opacity
    await _flush(ctx)
    return _out(row)


@res.MAP_SETTING.action(
    "POST",
    f"{MAP}/plan/upload",
    permission="edit",
    answer=MapSettingOut,
    openapi=_UPLOAD_DOCUMENT,
    summary="Upload the site plan image (JPG, PNG or WebP, at most 5 MB; multipart field 'file')",
)
async def upload_map_plan(ctx: crud.Ctx, upload: UploadFile, services: Services) -> MapSettingOut:
    data = await upload.read(MAX_PLAN_BYTES + 1)
    if not data:
        raise ServiceError(t("field_required", field="file"))
    if len(data) > MAX_PLAN_BYTES:
        raise ServiceError(t("map_plan_too_large", field="file", limit=MAX_PLAN_BYTES // (1024 * 1024)))
    kind = image_type(data)
    if kind is None:
        raise ServiceError(t("map_plan_type", field="file"))
    await uploads.admit(ctx, services.settings, len(data))
    row = await _own_row(ctx)
    row.plan_image = data
    row.plan_type = kind
    row.plan_size = len(data)
    row.plan_hash = hashlib.sha256(data).hexdigest()
    await _flush(ctx)
    return _out(row)


@res.MAP_SETTING.action(
    "POST",
    f"{MAP}/plan/remove",
    permission="edit",
    answer=MapSettingOut,
    summary="Remove the site plan (its image and its corners)",
)
async def remove_map_plan(ctx: crud.Ctx) -> MapSettingOut:
    row = await _row(ctx)
    if row is None:
        return _out(None)
    ctx.scope.stamp(row, creating=False)
    row.plan_image = None
    row.plan_type = row.plan_size = row.plan_hash = None
    row.plan_south = row.plan_west = row.plan_north = row.plan_east = None
    await _flush(ctx)
    return _out(row)


class PlanImageQuery(Schema):
    model_config = ConfigDict(json_schema_extra=documented(required=("hash",)))

    hash: str = Field(
        default="",
        max_length=64,
        description="the image's planHash (from the setting): a changed image has another address",
        json_schema_extra={"pattern": "^[0-9a-f]{64}$"},
    )


@res.MAP_SETTING.action(
    "GET",
    f"{MAP}/plan/image",
    permission=SIGNED_IN,
    kind="detail",
    query=PlanImageQuery,
    raw=True,
    openapi=_IMAGE_DOCUMENT,
    summary="The site plan image named by its hash, with its ETag (304 when If-None-Match names it)",
)
async def map_plan_image(ctx: crud.Ctx, query: PlanImageQuery, request: Request) -> Response:
    if not query.hash:
        raise ServiceError(t("field_required", field="hash"))
    stmt = ctx.scope.select(m.MapSetting, data=False).with_only_columns(
        m.MapSetting.plan_image, m.MapSetting.plan_type, m.MapSetting.plan_hash
    )
    found = (await ctx.session.execute(stmt)).first()
    if found is None or found.plan_image is None or not found.plan_type or found.plan_hash != query.hash:
        raise ServiceError(t("map_plan_missing"))
    etag = f'"{found.plan_hash}"'
    headers = {"ETag": etag, "Cache-Control": f"private, max-age={IMAGE_MAX_AGE_S}, immutable"}
    if etag in [tag.strip() for tag in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    return Response(content=found.plan_image, media_type=found.plan_type, headers=headers)
