"""Who may call the API (docs/API.md "Authentication"): the access key, session cookies, the sign-in
throttle, the origin guard.

Scripts send the access key in `x-access-key`; it is compared in constant time with the
configured key's salted scrypt hash (deployments store only the hash), and wrong keys are
throttled per client address. Browsers trade the key for a session cookie signed with the
server's own secret at `POST /api/auth/sign-in`. Mutations must also pass the
same-origin guard (docs/API.md "Authentication"). No function here logs or echoes a key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from itsdangerous import BadSignature, TimestampSigner, URLSafeTimedSerializer

from functions.api.errors import ApiError

SESSION_COOKIE = "previously_session"
SESSION_MAX_AGE = 14 * 24 * 3600
ACCESS_HEADER = "x-access-key"
_SESSION_SALT = "previously.session"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def sha256_hex(text: str) -> str:
    """The SHA-256 of a UTF-8 text, as 64 lowercase hex digits."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_loopback(host: str) -> bool:
    """Whether binding to `host` keeps the server on this machine."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


MIN_KEY_LENGTH = 16
# scrypt at 2^14 × 8 costs ~16 MiB and tens of milliseconds per guess; a verified key is cached.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def key_weakness(key: str) -> str | None:
    """Why `key` is too weak to guard a server reachable from other machines, or None."""
    if len(key) < MIN_KEY_LENGTH:
        return f"it has {len(key)} characters; use at least {MIN_KEY_LENGTH}"
    if any(ch.isspace() for ch in key):
        return "it contains spaces or other whitespace"
    if len(set(key)) < 6:
        return "it repeats too few different characters"
    return None


def generate_key() -> str:
    """A new random access key (32 URL-safe characters, 192 bits)."""
    return secrets.token_urlsafe(24)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class AccessKey:
    """The configured secret, kept only as a salted scrypt hash (or an older deployment's SHA-256).

    `encoded()` is what a deployment stores (`PREVIOUSLY_ACCESS_KEY_HASH`):
    `scrypt$N$r$p$salt$hash` with URL-safe base64 salt and hash.
    """

    scheme: str
    digest: bytes
    salt: bytes = b""
    cost: tuple[int, int, int] = (_SCRYPT_N, _SCRYPT_R, _SCRYPT_P)
    # What sessions are bound to: stable across restarts for the same configured key.
    identity: bytes = field(default=b"", compare=False, repr=False)
    _verified: set[bytes] = field(default_factory=set, compare=False, repr=False)
    _pepper: bytes = field(default_factory=lambda: secrets.token_bytes(32), compare=False, repr=False)

    @classmethod
    def from_plain(cls, key: str) -> AccessKey:
        salt = secrets.token_bytes(16)
        identity = hashlib.sha256(key.encode("utf-8")).digest()
        return cls("scrypt", _scrypt(key, salt, (_SCRYPT_N, _SCRYPT_R, _SCRYPT_P)), salt, identity=identity)

    @classmethod
    def parse(cls, stored: str) -> AccessKey:
        """From `encoded()` output, or from 64 hex digits (the unsalted SHA-256 older deployments stored)."""
        text = stored.strip()
        if re.fullmatch(r"[0-9a-fA-F]{64}", text):
            return cls("sha256", bytes.fromhex(text), identity=bytes.fromhex(text))
        parts = text.split("$")
        try:
            if len(parts) != 6 or parts[0] != "scrypt":
                raise ValueError
            cost = (int(parts[1]), int(parts[2]), int(parts[3]))
            if cost[0] < 2**10 or cost[0] & (cost[0] - 1) or not 1 <= cost[1] <= 64 or not 1 <= cost[2] <= 16:
                raise ValueError
            digest = _unb64(parts[5])
            return cls("scrypt", digest, _unb64(parts[4]), cost, identity=digest)
        except ValueError:
            raise ValueError(
                "an access-key hash looks like scrypt$16384$8$1$<salt>$<hash> "
                "(made by `previously hash-key`) or 64 hex digits"
            ) from None

    def encoded(self) -> str:
        if self.scheme == "sha256":
            return self.digest.hex()
        n, r, p = self.cost
        return f"scrypt${n}${r}${p}${_b64(self.salt)}${_b64(self.digest)}"

    @property
    def fingerprint(self) -> bytes:
        """Changes whenever the key does: sessions are bound to it (never sent anywhere)."""
        return hashlib.sha256(b"previously-key:" + (self.identity or self.digest)).digest()

    def _hash(self, candidate: str) -> bytes:
        if self.scheme == "sha256":
            return hashlib.sha256(candidate.encode("utf-8")).digest()
        return _scrypt(candidate, self.salt, self.cost)

    def matches(self, candidate: str | None) -> bool:
        """Constant-time comparison of a presented key with the configured one."""
        if not candidate or len(candidate) > 1024:
            return False
        # Scripts send the key with every call: once verified, a key costs an HMAC, not a scrypt.
        seen = hmac.new(self._pepper, candidate.encode("utf-8"), "sha256").digest()
        if seen in self._verified:
            return True
        if not hmac.compare_digest(self._hash(candidate), self.digest):
            return False
        if len(self._verified) < 64:
            self._verified.add(seen)
        return True


def _scrypt(key: str, salt: bytes, cost: tuple[int, int, int]) -> bytes:
    n, r, p = cost
    return hashlib.scrypt(key.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=256 * 1024 * 1024, dklen=32)


def load_session_secret(path: Path) -> str:
    """The server's session-signing secret kept in `path` (created, owner-only, on first use)."""
    try:
        text = path.read_text(encoding="utf-8").strip()
        if len(text) >= 32:
            return text
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(32)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(secret + "\n")
    try:
        os.link(tmp, path)  # the first writer wins; a concurrent start reads what it wrote
    except FileExistsError:
        secret = path.read_text(encoding="utf-8").strip()
    finally:
        tmp.unlink(missing_ok=True)
    return secret


class Sessions:
    """Signed, expiring session tokens.

    Signed with the server's own secret, never with anything derived from the key or its stored
    hash, so neither reading the secret store's hash nor a cookie gives a way to make another.
    The token carries only an HMAC of the key's fingerprint: rotating the key ends every session.
    """

    def __init__(
        self,
        key: AccessKey,
        secret: str | None,
        max_age: int = SESSION_MAX_AGE,
        now: Callable[[], float] = time.time,
    ) -> None:
        # Without a configured secret, a random one: sessions then last as long as this process.
        signing = secret or secrets.token_urlsafe(32)
        self._tag = hmac.new(signing.encode(), b"session-binding:" + key.fingerprint, "sha256").hexdigest()[
            :32
        ]
        self.max_age = max_age
        clock = now

        class _Signer(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(clock())

        self._serializer = URLSafeTimedSerializer(signing, salt=_SESSION_SALT, signer=_Signer)

    def issue(self) -> str:
        """A new session token."""
        return str(self._serializer.dumps({"k": self._tag}))

    def valid(self, token: str | None) -> bool:
        """Whether `token` is a live session for the current access key."""
        if not token or len(token) > 512:
            return False
        try:
            data = self._serializer.loads(token, max_age=self.max_age)
        except BadSignature:
            return False
        return isinstance(data, dict) and hmac.compare_digest(str(data.get("k", "")), self._tag)


@dataclass
class AuthThrottle:
    """Wrong keys per client address (sign-in and the x-access-key header alike).

    After `limit` failures in `window` seconds the address waits; under a broad attack
    (`global_limit` failures from anywhere) everyone presenting a key waits.
    """

    limit: int = 5
    window: float = 300.0
    global_limit: int = 100
    now: Callable[[], float] = time.monotonic
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _all: deque[float] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _prune(self, q: deque[float], t: float) -> None:
        while q and q[0] <= t - self.window:
            q.popleft()

    def check(self, client: str) -> None:
        """Raise a 429 ApiError while `client` (or everyone, under a broad attack) must wait."""
        with self._lock:
            t = self.now()
            mine = self._failures.get(client, deque())
            self._prune(mine, t)
            self._prune(self._all, t)
            blocked = [q for q, cap in ((mine, self.limit), (self._all, self.global_limit)) if len(q) >= cap]
            if blocked:
                wait = max(1, int(blocked[0][0] + self.window - t) + 1)
                raise ApiError(
                    429,
                    "too_many_requests",
                    f"Too many wrong access keys. Wait {wait} seconds, then try again.",
                    {"Retry-After": str(wait)},
                )

    def failed(self, client: str) -> None:
        with self._lock:
            t = self.now()
            self._failures.setdefault(client, deque()).append(t)
            self._all.append(t)
            if len(self._failures) > 10_000:  # bound memory under an address-spraying attack
                self._failures.clear()

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


def origin_allowed(method: str, headers: Mapping[str, str], key: AccessKey | None) -> bool:
    """The same-origin guard (docs/API.md "Authentication"); `headers` keys are lowercase."""
    if method.upper() in _SAFE_METHODS:
        return True
    origin = headers.get("origin")
    if origin is not None:
        origin_host = _origin_host(origin)
        forwarded = headers.get("x-forwarded-host")
        host = (forwarded.split(",")[0] if forwarded else headers.get("host", "")).strip().lower()
        if origin_host and host and origin_host == host:
            return True
    elif headers.get("sec-fetch-site") in ("same-origin", "same-site"):
        return True
    if key is None:
        return True
    return key.matches(headers.get(ACCESS_HEADER))


def _origin_host(origin: str) -> str | None:
    """`host[:port]` of an Origin as a browser's URL.host gives it (default port dropped)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    host = parts.netloc.rsplit("@", 1)[-1].lower()
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    if port is not None and port == default:
        host = host.rsplit(":", 1)[0]
    return host


def viewer_address(headers: Mapping[str, str], peer: str | None, trust_viewer_header: bool) -> str:
    """The client's address for throttling.

    Behind CloudFront (on AWS) the peer is CloudFront itself, so the address comes from the
    `CloudFront-Viewer-Address` header ("1.2.3.4:port", "[2001:db8::1]:port") that CloudFront
    sets and a client cannot override. Elsewhere only the socket's peer counts: `X-Forwarded-For`
    is never believed, since anyone can send it.
    """
    if trust_viewer_header:
        value = headers.get("cloudfront-viewer-address", "").strip()
        host = value.rsplit(":", 1)[0].strip("[]") if ":" in value else value
        try:
            return str(ipaddress.ip_address(host))
        except ValueError:
            pass
    return peer or "unknown"


@dataclass
class Security:
    """The API's access policy, built once from the settings and the serve flags."""

    key: AccessKey | None
    required: bool
    sessions: Sessions | None = None
    throttle: AuthThrottle = field(default_factory=AuthThrottle)
    # Other sites' origins allowed to call from a browser (CORS); empty means closed.
    cors_origins: tuple[str, ...] = ()
    # On AWS, behind CloudFront: the client address comes from CloudFront-Viewer-Address.
    trust_viewer_header: bool = False

    @classmethod
    def build(
        cls,
        plain: str | None,
        stored: str | None,
        session_secret: str | None,
        required: bool,
        cors_origins: tuple[str, ...] = (),
        trust_viewer_header: bool = False,
    ) -> Security:
        """From the configured key (plain, or its stored hash) and whether every call must authenticate."""
        key = AccessKey.from_plain(plain) if plain else (AccessKey.parse(stored) if stored else None)
        sessions = Sessions(key, session_secret) if key else None
        return cls(
            key=key,
            required=required,
            sessions=sessions,
            cors_origins=cors_origins,
            trust_viewer_header=trust_viewer_header,
        )

    def check_key(self, candidate: str | None, client: str) -> bool:
        """Whether `candidate` is the key; wrong guesses count against `client` (429 once over)."""
        if self.key is None or not candidate:
            return False
        self.throttle.check(client)
        if self.key.matches(candidate):
            self.throttle.succeeded(client)
            return True
        self.throttle.failed(client)
        return False

    def authenticated(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], client: str = "unknown"
    ) -> bool:
        """Whether the caller presents the access key or a live session."""
        if self.key is None:
            return False
        if self.sessions is not None and self.sessions.valid(cookies.get(SESSION_COOKIE)):
            return True
        return self.check_key(headers.get(ACCESS_HEADER), client)

    def require(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], client: str = "unknown"
    ) -> None:
        """Raise 401 (or 503 when no key exists to check against, 429 after many wrong keys)."""
        if not self.required:
            return
        if self.key is None:
            raise ApiError(
                503,
                "auth_not_configured",
                "This server requires sign-in but has no access key. Set PREVIOUSLY_ACCESS_KEY "
                "(or PREVIOUSLY_ACCESS_KEY_HASH) and restart.",
            )
        if not self.authenticated(headers, cookies, client):
            raise ApiError(
                401,
                "unauthorized",
                "Sign in at /sign-in, or send the access key in the x-access-key header.",
            )

    def guard(self, method: str, headers: Mapping[str, str]) -> None:
        """The same-origin guard for a mutation: 403 when it fails."""
        if not origin_allowed(method, headers, self.key):
            raise ApiError(
                403,
                "forbidden",
                "Cross-site request refused: send it from the app's own page, or add the "
                "x-access-key header.",
            )
