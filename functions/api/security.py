"""Who may call the API (API.md §5): the access key, session cookies, the sign-in throttle, the origin guard.

Scripts send the access key in `x-access-key`; it is hashed and compared in constant time with
the configured key's SHA-256 (deployments store only the hash). Browsers trade the key for a
signed, expiring session cookie at `POST /api/auth/sign-in`. Mutations must also pass the
same-origin guard (REFERENCE §17.3). No function here logs or echoes a key.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class AccessKey:
    """The configured secret, kept only as its SHA-256."""

    digest: str

    @classmethod
    def from_plain(cls, key: str) -> AccessKey:
        return cls(sha256_hex(key))

    def matches(self, candidate: str | None) -> bool:
        """Constant-time comparison of a presented key with the configured one."""
        if not candidate:
            return False
        return hmac.compare_digest(sha256_hex(candidate), self.digest)


class Sessions:
    """Signed, expiring session tokens; rotating the access key invalidates every session."""

    def __init__(
        self,
        key: AccessKey,
        secret: str | None,
        max_age: int = SESSION_MAX_AGE,
        now: Callable[[], float] = time.time,
    ) -> None:
        # Without an explicit secret the HMAC key is derived from the access key's hash.
        derived = secret or hmac.new(key.digest.encode(), b"previously session cookies", "sha256").hexdigest()
        self._tag = key.digest[:16]
        self.max_age = max_age
        clock = now

        class _Signer(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(clock())

        self._serializer = URLSafeTimedSerializer(derived, salt=_SESSION_SALT, signer=_Signer)

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
class SignInThrottle:
    """Failed sign-ins per client address: after `limit` failures in `window` seconds, wait."""

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
                    f"Too many failed sign-ins. Wait {wait} seconds, then try again.",
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
    """The same-origin guard (REFERENCE §17.3); `headers` keys are lowercase."""
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


@dataclass
class Security:
    """The API's access policy, built once from the settings and the serve flags."""

    key: AccessKey | None
    required: bool
    sessions: Sessions | None = None
    throttle: SignInThrottle = field(default_factory=SignInThrottle)
    # Other sites' origins allowed to call from a browser (CORS); empty means closed.
    cors_origins: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        plain: str | None,
        digest: str | None,
        session_secret: str | None,
        required: bool,
        cors_origins: tuple[str, ...] = (),
    ) -> Security:
        """From the configured key (plain or its hash) and whether every call must authenticate."""
        key = AccessKey.from_plain(plain) if plain else (AccessKey(digest.lower()) if digest else None)
        sessions = Sessions(key, session_secret) if key else None
        return cls(key=key, required=required, sessions=sessions, cors_origins=cors_origins)

    def authenticated(self, headers: Mapping[str, str], cookies: Mapping[str, str]) -> bool:
        """Whether the caller presents the access key or a live session."""
        if self.key is None:
            return False
        if self.key.matches(headers.get(ACCESS_HEADER)):
            return True
        return self.sessions is not None and self.sessions.valid(cookies.get(SESSION_COOKIE))

    def require(self, headers: Mapping[str, str], cookies: Mapping[str, str]) -> None:
        """Raise 401 (or 503 when no key exists to check against) unless the caller may pass."""
        if not self.required:
            return
        if self.key is None:
            raise ApiError(
                503,
                "auth_not_configured",
                "This server requires sign-in but has no access key. Set PREVIOUSLY_ACCESS_KEY "
                "(or PREVIOUSLY_ACCESS_KEY_SHA256) and restart.",
            )
        if not self.authenticated(headers, cookies):
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
