"""The IPv4 addresses an IPv6 address carries, so the fetch guard judges what it would reach.

An IPv6 literal can name an IPv4 host in several standard ways, and a translator or relay on the
path (or the operating system itself) turns it back into that IPv4 address:

| form | prefix | where the IPv4 address sits |
|---|---|---|
| IPv4-mapped | `::ffff:0:0/96` | the last 32 bits |
| IPv4-compatible (deprecated) | `::/96` | the last 32 bits |
| IPv4-translated (SIIT) | `::ffff:0:0:0/96` | the last 32 bits |
| NAT64 well-known | `64:ff9b::/96` | the last 32 bits |
| NAT64 local-use | `64:ff9b:1::/48` | where the local prefix length puts it (RFC 6052) |
| 6to4 | `2002::/16` | bits 16–47 |
| Teredo | `2001::/32` | the server in bits 32–63, the client bit-inverted in the last 32 bits |

A local-use NAT64 address is refused whatever it carries (`LOCAL_TRANSLATOR`): its translator is
on the local network, and without its prefix length every reading of the IPv4 address is a guess.
"""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv6Address, IPv6Network

_LAST_32 = (IPv6Network("::ffff:0:0/96"), IPv6Network("::/96"), IPv6Network("::ffff:0:0:0/96"))
_NAT64 = IPv6Network("64:ff9b::/96")
LOCAL_TRANSLATOR = IPv6Network("64:ff9b:1::/48")


def embedded_ipv4(ip: IPv6Address) -> list[IPv4Address]:
    """Every IPv4 address `ip` stands for under the forms above (empty for a plain IPv6 address)."""
    raw = ip.packed
    if any(ip in net for net in _LAST_32) or ip in _NAT64:
        return [IPv4Address(raw[12:])]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        server, client = ip.teredo  # the standard library already inverts the client's bits
        return [server, client]
    return []


def as_address(text: str) -> IPv4Address | IPv6Address:
    """The address `text` spells (a zone such as `%eth0` dropped: it does not change the host)."""
    return ipaddress.ip_address(text.split("%", 1)[0])
