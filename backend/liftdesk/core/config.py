"""One Settings object, read from the environment (prefix ``LIFTDESK_``) and an optional ``.env``."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_SECRET = "liftdesk-development-secret-change-me"
REPO_ROOT = Path(__file__).resolve().parents[3]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LIFTDESK_", env_file=".env", extra="ignore")

    env: Literal["development", "test", "production"] = "development"
    database_url: str = "sqlite+aiosqlite:///var/liftdesk.db"
    host: str = "127.0.0.1"
    port: int = 8000
    gateway_port: int = 7808  # 0: no gateway in this process
    gateway_host: str = "0.0.0.0"  # terminals connect from the network
    simulator_vehicles: int = 20
    # Terminals no vehicle names are refused, unless this names the tenant that takes them in: such a terminal then
    # gets a vehicle of its own (car number = its plate, else its device number) in the tenant's root organisation.
    auto_register_tenant: str = ""
    # Accept only the authentication codes this platform issued (terminals moved from the old platform keep its
    # code: without this they are let in when a vehicle names them).
    strict_terminal_auth: bool = False
    # Maker ids (0x0100/0x0107, comma-separated) whose JT/T 808 terminals speak Liftdesk's vendor extension;
    # "*" = every terminal, including those that never told us their maker.
    vendor_extension_makers: str = "LFTDK"
    gateway_idle_timeout_s: float = 300.0
    # Gateway processes sharing the terminal port (SO_REUSEPORT; ``liftdesk gateway --processes``): 1, or 0 for one
    # per core. More than one needs ``redis_url`` (commands reach the process that holds their terminal through it).
    gateway_processes: int = Field(default=1, ge=0, le=256)
    # The event loop of server processes: "auto" (uvloop where installed, else asyncio's), "uvloop" or "asyncio".
    event_loop: str = "auto"
    web_dir: Path = REPO_ROOT / "frontend" / "dist"
    var_dir: Path = Path("var")
    secret_key: str = DEV_SECRET
    # Default zone of tenants (minutes east of UTC); times are stored as UTC.
    tz_offset_minutes: int = 480
    # The country (ISO 3166-1 alpha-2) of callers from a private or local address (``common/v3/getCountry``).
    default_country: str = Field(default="CN", pattern=r"^[A-Za-z]{2}$")
    captcha_mode: bool = False
    redis_url: str | None = None
    # Channel prefix on Redis: deployments (or test runs) sharing one Redis keep their messages apart.
    redis_prefix: str = "liftdesk:"
    mqtt_url: str | None = None
    sql_echo: bool = False
    # Uploaded files (``POST /api/blade-fics/file/upload``, system/files.py): the largest accepted (bytes) and the kinds
    # accepted, recognised by their content (png, jpg, gif, webp, pdf, zip, docx, xlsx, pptx, txt, csv). Without an
    # enabled object storage configuration a tenant's files are kept under ``var_dir``/files/<tenant>/. A multipart body
    # is refused above 12 MB before it is read (``core.http.BODY_LIMITS``), whatever this says.
    upload_max_bytes: int = 5 * 1024 * 1024
    upload_types: str = "png,jpg,gif,webp,pdf,zip,docx,xlsx,pptx,txt,csv"
    # Reverse geocoding (core/geocode.py): an online provider's URL template with {lat} and {lon}, and the dotted path
    # of the address in its JSON answer; empty: the embedded offline geocoder only.
    geocoder_url: str = ""
    geocoder_field: str = "display_name"
    geocoder_timeout_s: float = 3.0
    # Addresses tenants type in (object storage endpoints, SMS providers) may lead to loopback, link-local (cloud
    # metadata), private or otherwise internal addresses (core/egress.py). Off: such calls are refused (400). On: for
    # test suites whose S3 and SMS servers run on localhost, or a site whose own minio is on its private network.
    allow_private_endpoints: bool = False

    @model_validator(mode="after")
    def _refuse_default_secret(self) -> Settings:
        if self.env == "production" and (self.secret_key == DEV_SECRET or len(self.secret_key) < 32):
            raise ValueError(
                "LIFTDESK_SECRET_KEY must be set to a random value of at least 32 characters in production"
            )
        check_bind(self.host, self.secret_key)
        return self

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, secret_key: str) -> None:
    """Development mode (the development signing key) serves this machine only: listening on any other address with
    that key would let anyone sign their own tokens (the key is in the source), so it is refused as production
    refuses it (``LIFTDESK_HOST``, ``liftdesk serve --host``)."""
    if secret_key == DEV_SECRET and not is_loopback(host):
        raise ValueError(
            f"listening on {host} (not this machine only) needs LIFTDESK_SECRET_KEY set to a random value of at "
            "least 32 characters: the development key signs anyone's tokens"
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
