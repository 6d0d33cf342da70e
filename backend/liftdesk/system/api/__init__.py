"""Actions of the system context beyond CRUD, one module per subject: importing the package declares them. Each is
declared on its resource (``Resource.action``), which checks the token and the permission; the calls that need no
token are in ``public`` (its router, listed in ``PUBLIC``)."""

from liftdesk.system.api import (
    depts,
    dictionaries,
    files,
    grants,
    logos,
    logs,
    map_setting,
    menus,
    messages,
    passwords,
    registrations,
    session,
    shell,
    sms,
    tenants,
    users,
)

__all__ = [
    "depts",
    "dictionaries",
    "files",
    "grants",
    "logos",
    "logs",
    "map_setting",
    "menus",
    "messages",
    "passwords",
    "registrations",
    "session",
    "shell",
    "sms",
    "tenants",
    "users",
]
