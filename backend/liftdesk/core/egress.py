"""Calls the server makes to addresses a tenant typed in (object storage endpoints, SMS providers): refused when they
lead inside.

A tenant's administrator may type any address into a configuration and the server then calls it. Unchecked, that
reaches what only the server reaches (server-side request forgery): the cloud's metadata service (169.254.169.254),
services on loopback, the private network. So, **each time** such an address is used (not only when it is saved: a
name may resolve elsewhere tomorrow):

* its scheme must be http or https, with no credentials in it;
* its host is resolved, and **every** address it resolves to must be a public unicast one: loopback, link-local
  (169.254.0.0/16, fe80::/10), private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), multicast, unspecified,
  reserved and documentation ranges are refused, as are IPv6 addresses carrying such an IPv4 address (IPv4-mapped
  ``::ffff:a.b.c.d``, 6to4, Teredo, NAT64);
* the connection then goes to the address checked (:func:`pinned`: a second resolution cannot lead elsewhere), and
  redirects are never followed (callers use ``follow_redirects=False``; botocore follows none).

The setting ``allow_private_endpoints`` (``LIFTDESK_ALLOW_PRIVATE_ENDPOINTS``, off by default) lifts the address rule,
not the scheme rule: for test suites whose S3 and SMS servers run on localhost, or a site whose minio is on its own
network.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from liftdesk.core.envelope import ServiceError
from liftdesk.core.i18n import t

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
#: NAT64's well-known prefix: the last 32 bits are an IPv4 address the gateway reaches.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class EndpointRefused(ServiceError):
    """The address is not one the server may call (a 400 naming the field)."""


def _embedded(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo server and client, NAT64)."""
    out: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        out.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        out.append(ip.sixtofour)
    if ip.teredo is not None:
        out.extend(ip.teredo)
    if ip in _NAT64:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


def is_internal(ip: Address) -> bool:
    """Is ``ip`` an address the server must not call for a tenant (anything but a public unicast address)?"""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            return True
        if any(is_internal(inner) for inner in _embedded(ip)):
            return True
        if ip.is_site_local:
            return True
    return (
        not ip.is_global
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_unspecified
        or ip.is_reserved
    )


@dataclass(frozen=True)
class Target:
    """A checked URL: its host as written, and the address the connection must go to."""

    url: str
    scheme: str
    host: str
    port: int
    address: str

    @property
    def netloc(self) -> str:
        """``host[:port]`` as written in the URL (what the Host header says)."""
        return urlsplit(self.url).netloc

    def pinned(self) -> str:
        """The URL with its host replaced by the checked address (send it with ``Host: netloc`` and, for https,
        ``sni_hostname`` = ``host``)."""
        parts = urlsplit(self.url)
        host = f"[{self.address}]" if ":" in self.address else self.address
        return urlunsplit((parts.scheme, f"{host}:{self.port}", parts.path, parts.query, parts.fragment))


def _parse(url: str, field: str) -> tuple[str, str, int]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise EndpointRefused(t("endpoint_scheme", field=field)) from None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in ("http", "https") or not host or parts.username is not None or parts.password is not None:
        raise EndpointRefused(t("endpoint_scheme", field=field))
    return scheme, host, port or (443 if scheme == "https" else 80)


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _check_addresses(host: str, found: list[str], field: str, allow_private: bool) -> str:
    if not found:
        raise EndpointRefused(t("endpoint_unresolved", field=field, host=host))
    if not allow_private:
        for text in found:
            if is_internal(ipaddress.ip_address(text)):
                raise EndpointRefused(t("endpoint_internal", field=field, host=host, address=text))
    return found[0]


def _addresses(infos: list[Any]) -> list[str]:
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def resolve(url: str, field: str, allow_private: bool) -> Target:
    """``url`` checked as the module says, resolved now; EndpointRefused (a 400 naming ``field``) if it may not be
    called."""
    scheme, host, port = _parse(url, field)
    literal = _literal(host)
    if literal is not None:
        found = [str(literal)]
    else:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise EndpointRefused(t("endpoint_unresolved", field=field, host=host)) from None
        found = _addresses(list(infos))
    address = _check_addresses(host, found, field, allow_private)
    return Target(url=url, scheme=scheme, host=host, port=port, address=address)


def resolve_blocking(url: str, field: str, allow_private: bool) -> Target:
    """:func:`resolve` for code running in a worker thread (botocore's hooks)."""
    scheme, host, port = _parse(url, field)
    literal = _literal(host)
    if literal is not None:
        found = [str(literal)]
    else:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise EndpointRefused(t("endpoint_unresolved", field=field, host=host)) from None
        found = _addresses(list(infos))
    address = _check_addresses(host, found, field, allow_private)
    return Target(url=url, scheme=scheme, host=host, port=port, address=address)
