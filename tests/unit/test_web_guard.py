"""The webFetch request-forgery guard: the `private_host` vectors, resolved names, the allow list."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import InvalidInput, PathDenied
from core.web.guard import PRIVATE_REFUSAL, FetchGuard, is_private_host
from tests.conftest import load_vectors

pytestmark = pytest.mark.unit
VECTORS = load_vectors("recall_filters.json")["private_host"]


def resolver_of(table: dict[str, list[str]]) -> Any:
    def resolve(host: str, port: int) -> list[str]:
        return table.get(host, [])

    return resolve


@pytest.mark.parametrize("case", VECTORS, ids=lambda c: c["host"])
def test_private_host_vectors(case: dict[str, Any]) -> None:
    assert is_private_host(case["host"]) is case["private"]


@pytest.mark.parametrize(
    "host",
    ["10.1.2.3", "169.254.169.254", "[fe80::1]", "[::ffff:10.0.0.1]", "[::ffff:127.0.0.1]", "app.localhost",
     "LOCALHOST.", "198.18.0.7", "[::]", "metadata.google.internal", "255.255.255.255"],
)  # fmt: skip
def test_more_private_hosts(host: str) -> None:
    assert is_private_host(host)


@pytest.mark.parametrize("host", ["93.184.216.34", "example.org", "[2606:4700::1111]", "8.8.8.8"])
def test_public_hosts(host: str) -> None:
    assert not is_private_host(host)


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1/", "http://localhost:8080/x", "https://[::1]/", "http://192.168.0.10/admin",
     "http://169.254.169.254/latest/meta-data/", "http://[fd12::5]/", "http://0.0.0.0:9000/"],
)  # fmt: skip
def test_private_literals_are_refused_without_resolving(url: str) -> None:
    def no_dns(host: str, port: int) -> list[str]:
        raise AssertionError("a literal address needs no lookup")

    with pytest.raises(PathDenied, match=PRIVATE_REFUSAL):
        FetchGuard(resolver=no_dns).check(url)


def test_a_name_resolving_to_a_private_address_is_refused() -> None:
    guard = FetchGuard(resolver=resolver_of({"intranet.example.com": ["93.184.216.34", "10.0.0.8"]}))
    with pytest.raises(PathDenied, match=PRIVATE_REFUSAL):
        guard.check("https://intranet.example.com/wiki")


def test_a_name_resolving_to_ipv6_loopback_is_refused() -> None:
    guard = FetchGuard(resolver=resolver_of({"sneaky.example": ["::1"]}))
    with pytest.raises(PathDenied):
        guard.check("http://sneaky.example/")


def test_a_public_name_is_pinned_to_its_vetted_address() -> None:
    guard = FetchGuard(resolver=resolver_of({"example.org": ["93.184.216.34"]}))
    target = guard.check("https://example.org:8443/a?b=1")
    assert (target.scheme, target.host, target.port, target.address) == (
        "https",
        "example.org",
        8443,
        "93.184.216.34",
    )


def test_allowed_hosts_pass_even_when_private() -> None:
    guard = FetchGuard.from_setting(" 127.0.0.1 , wiki.corp ", resolver_of({"wiki.corp": ["10.2.3.4"]}))
    assert guard.check("http://127.0.0.1:8000/").address == "127.0.0.1"
    assert guard.check("http://wiki.corp/page").address == "10.2.3.4"
    with pytest.raises(PathDenied):
        guard.check("http://127.0.0.2/")


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.org/", "gopher://x/", "http:///nohost", "x"]
)
def test_only_http_urls_with_a_host(url: str) -> None:
    with pytest.raises(InvalidInput, match="only http"):
        FetchGuard().check(url)


def test_a_name_that_does_not_resolve_is_a_clear_error() -> None:
    with pytest.raises(InvalidInput, match="Could not resolve"):
        FetchGuard(resolver=resolver_of({})).check("https://nowhere.invalid/")


# One URL per IPv6 form that carries an IPv4 address, each carrying a loopback, private,
# link-local or shared one (core/web/embedded.py).
EMBEDDED_PRIVATE = {
    "mapped": "http://[::ffff:127.0.0.1]/",
    "mapped-hex": "http://[::ffff:7f00:1]/",
    "compatible": "http://[::127.0.0.1]/",
    "compatible-private": "http://[::10.0.0.1]/",
    "translated": "http://[::ffff:0:7f00:1]/",
    "nat64": "http://[64:ff9b::7f00:1]/",
    "nat64-metadata": "http://[64:ff9b::169.254.169.254]/",
    "nat64-local-use": "http://[64:ff9b:1:7f00:0:100::]/",
    "6to4": "http://[2002:7f00:1::]/",
    "6to4-private": "http://[2002:c0a8:0101::1]/",
    "teredo-client": "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # client 127.0.0.1
    "teredo-server": "http://[2001:0:a00:1:8000:63bf:3fff:fdd2]/",  # server 10.0.0.1
    "site-local": "http://[fec0::1]/",
}
EMBEDDED_PUBLIC = {
    "mapped": "http://[::ffff:8.8.8.8]/",
    "nat64": "http://[64:ff9b::808:808]/",
    "6to4": "http://[2002:808:808::1]/",
    "teredo": "http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/",  # client 8.8.8.8, server public
}


@pytest.mark.parametrize("url", EMBEDDED_PRIVATE.values(), ids=EMBEDDED_PRIVATE.keys())
def test_ipv6_forms_carrying_a_private_ipv4_are_refused(url: str) -> None:
    def no_dns(host: str, port: int) -> list[str]:
        raise AssertionError("a literal address needs no lookup")

    with pytest.raises(PathDenied, match=PRIVATE_REFUSAL):
        FetchGuard(resolver=no_dns).check(url)


@pytest.mark.parametrize("url", EMBEDDED_PUBLIC.values(), ids=EMBEDDED_PUBLIC.keys())
def test_ipv6_forms_carrying_a_public_ipv4_pass(url: str) -> None:
    assert FetchGuard().check(url).address


@pytest.mark.parametrize("address", ["64:ff9b::a00:1", "2002:a00:1::", "::ffff:192.168.1.1"])
def test_a_name_resolving_to_an_embedded_private_address_is_refused(address: str) -> None:
    guard = FetchGuard(resolver=resolver_of({"sneaky.example.com": [address]}))
    with pytest.raises(PathDenied, match=PRIVATE_REFUSAL):
        guard.check("https://sneaky.example.com/")


@pytest.mark.parametrize("url", EMBEDDED_PRIVATE.values(), ids=EMBEDDED_PRIVATE.keys())
def test_the_fetcher_refuses_them_before_any_connection(url: str) -> None:
    import httpx

    from core.web.fetch import WebFetcher

    attempts: list[str] = []

    def transport(request: httpx.Request) -> httpx.Response:
        attempts.append(str(request.url))
        return httpx.Response(200, text="reached")

    fetcher = WebFetcher(client=lambda: httpx.Client(transport=httpx.MockTransport(transport)))
    with pytest.raises(PathDenied):
        fetcher.fetch(url)
    assert attempts == []
