"""Address lookup (``common/getAddress``): the place at a position, for a vehicle's card and its stops
(``core.geocode``: the embedded offline geocoder, a configurable online provider, answers cached).

``location`` is ``lon,lat`` in WGS-84, AMap's order (the old client's geocoder took it so); the answer's
``formattedAddress`` is always set, at worst to the coordinates: a position nobody lives near is not an error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from liftdesk.core import crud
from liftdesk.core.geocode import Place, lookup
from liftdesk.core.kv import KV
from liftdesk.core.resource import SIGNED_IN
from liftdesk.core.schemas import Schema
from liftdesk.core.services import Services
from liftdesk.telemetry import resources as telemetry_res
from liftdesk.telemetry.api.live import FICS


def _lon_lat(value: str) -> str:
    parts = value.split(",")
    if len(parts) != 2:
        raise ValueError("expected lon,lat")
    try:
        lon, lat = float(parts[0]), float(parts[1])
    except ValueError as exc:
        raise ValueError("expected lon,lat") from exc
    if not (-180.0 <= lon <= 180.0 and -90.0 <= lat <= 90.0):
        raise ValueError("lon in -180..180, lat in -90..90")
    return value


class AddressQuery(Schema):
    location: Annotated[
        str,
        Field(
            min_length=3,
            max_length=64,
            pattern=r"^-?(?:180(?:\.0+)?|(?:1[0-7][0-9]|[0-9]?[0-9])(?:\.[0-9]+)?),"
            r"-?(?:90(?:\.0+)?|[0-8]?[0-9](?:\.[0-9]+)?)$",
            description="lon,lat (WGS-84, AMap's order), e.g. 121.4737,31.2304",
        ),
        AfterValidator(_lon_lat),
    ]

    def point(self) -> tuple[float, float]:
        """(lat, lon)."""
        lon, lat = (float(p) for p in self.location.split(","))
        return lat, lon


@telemetry_res.ADDRESS.action(
    "GET",
    f"{FICS}/common/getAddress",
    summary="The place at a position (location=lon,lat): the nearest named place from the embedded offline geocoder, "
    "or the configured online provider's address; cached; a position near no place answers its coordinates. Every "
    "signed-in user",
    kind="read",
    permission=SIGNED_IN,
    query=AddressQuery,
    answer=Place,
    tag="common",
)
async def address(ctx: crud.Ctx, query: AddressQuery, services: Services) -> Place:
    lat, lon = query.point()
    return await lookup(KV(ctx.session), services.settings, lat, lon)
