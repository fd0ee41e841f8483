"""The request-forgery guard of webFetch: which hosts and addresses a fetch may reach.

A URL is refused when its scheme is not http(s), when its host names this machine or a private
network (`localhost`, `*.localhost`, a private / loopback / link-local / shared / multicast /
reserved literal, or an IPv6 literal carrying such an IPv4 address: mapped, compatible, NAT64, 6to4,
Teredo, core/web/embedded.py), or when any address its name resolves to is one.
Hosts listed in PREVIOUSLY_FETCH_ALLOW_HOSTS (an intranet, the tests' local page server) pass.
The vetted address is what the fetcher then connects to, so a name cannot resolve differently
between the check and the connection.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from core.errors import InvalidInput, PathDenied
from core.web.embedded import LOCAL_TRANSLATOR, as_address, embedded_ipv4

Resolver = Callable[[str, int], list[str]]  # (host, port) → IP address strings
PRIVATE_REFUSAL = "Cannot fetch local or private network addresses."
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# The cloud metadata names; their addresses are link-local and refused anyway.
_LOCAL_NAMES = {"localhost", "metadata", "metadata.google.internal"}


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for `host`."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise InvalidInput(f"Could not resolve {host}: {exc}. Check the address.") from exc
    return sorted({str(info[4][0]) for info in infos})


def _literal(host: str) -> IPAddress | None:
    try:
        return as_address(host.strip("[]"))
    except ValueError:
        return None


def is_private_address(ip: IPAddress) -> bool:
    """Whether a fetch must not reach `ip` (loopback, private, link-local, CGNAT, multicast, …)."""
    if isinstance(ip, ipaddress.IPv6Address):
        return (
            ip.is_loopback
            or ip.is_link_local
            or ip.is_site_local
            or ip.is_multicast
            or ip.is_unspecified
            or ip in ipaddress.IPv6Network("fc00::/7")
            or ip in LOCAL_TRANSLATOR
            or any(is_private_address(v4) for v4 in embedded_ipv4(ip))
        )
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_unspecified
        or ip.is_reserved
        or ip in ipaddress.IPv4Network("100.64.0.0/10")
        or ip in ipaddress.IPv4Network("198.18.0.0/15")
    )


def is_private_host(host: str) -> bool:
    """Whether a URL host (a name or an address literal, `[…]` for IPv6) is refused by its text alone."""
    name = host.strip().lower().rstrip(".")
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return True
    ip = _literal(name)
    return ip is not None and is_private_address(ip)


@dataclass(frozen=True)
class Target:
    """A vetted fetch target: the URL, its host and port, and the address to connect to."""

    url: str
    scheme: str
    host: str
    port: int
    address: str


@dataclass(frozen=True)
class FetchGuard:
    """Vets every URL a fetch is about to request (the first and each redirect)."""

    allow_hosts: frozenset[str] = frozenset()
    resolver: Resolver = field(default=system_resolver)

    @classmethod
    def from_setting(
        cls, allow: str | Iterable[str] | None, resolver: Resolver = system_resolver
    ) -> FetchGuard:
        """A guard from PREVIOUSLY_FETCH_ALLOW_HOSTS (comma-separated host names or addresses)."""
        items = allow.split(",") if isinstance(allow, str) else list(allow or [])
        hosts = frozenset(h.strip().lower().strip("[]") for h in items if h.strip())
        return cls(hosts, resolver)

    def check(self, url: str) -> Target:
        """The target to connect to; InvalidInput for a malformed URL, PathDenied for a private one."""
        parts = urlsplit(url.strip())
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise InvalidInput(
                f"Cannot fetch {url!r}: only http:// and https:// URLs with a host can be fetched."
            )
        host = parts.hostname.lower()
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError as exc:
            raise InvalidInput(f"Cannot fetch {url!r}: the port is not a number.") from exc
        allowed = host.strip("[]") in self.allow_hosts
        if not allowed and is_private_host(host):
            raise PathDenied(PRIVATE_REFUSAL)
        literal = _literal(host)
        addresses = [str(literal)] if literal is not None else self.resolver(host, port)
        if not addresses:
            raise InvalidInput(f"Could not resolve {host}. Check the address.")
        if not allowed and any(is_private_address(as_address(a)) for a in addresses):
            raise PathDenied(PRIVATE_REFUSAL)
        return Target(url.strip(), scheme, host, port, addresses[0])
