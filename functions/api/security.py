"""Who may call the API (docs/API.md "Authentication"): the access key, session cookies, the
throttle of wrong keys, and the same-origin rule's demand for the key (the rule itself, with the
host and body checks, is functions/api/guard.py).

Scripts send the access key in `x-access-key` (or as `Authorization: Bearer`); it is compared
in constant time with the configured key's salted scrypt hash (deployments store only the hash),
and wrong keys are throttled per caller address. Browsers trade the key for a session cookie signed with the
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

from itsdangerous import BadSignature, TimestampSigner, URLSafeTimedSerializer

from functions.api.errors import ApiError
from functions.api.guard import STATE_CHANGING, Caller, RequestGuard

SESSION_COOKIE = "previously_session"
SESSION_MAX_AGE = 14 * 24 * 3600
ACCESS_HEADER = "x-access-key"
_SESSION_SALT = "previously.session"


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

    def _seen(self, candidate: str) -> bytes:
        return hmac.new(self._pepper, candidate.encode("utf-8"), "sha256").digest()

    def known(self, candidate: str | None) -> bool:
        """Whether `candidate` was verified before (an HMAC: no scrypt, nothing for a throttle)."""
        return (
            bool(candidate) and len(candidate or "") <= 1024 and self._seen(candidate or "") in self._verified
        )

    def matches(self, candidate: str | None) -> bool:
        """Constant-time comparison of a presented key with the configured one."""
        if not candidate or len(candidate) > 1024:
            return False
        # Scripts send the key with every call: once verified, a key costs an HMAC, not a scrypt.
        seen = self._seen(candidate)
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


def bucket(client: str) -> str:
    """The throttle bucket of an address: an IPv6 address counts by its /64 (what one host is
    usually given), so a caller cannot pick a fresh bucket for every guess."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


@dataclass
class AuthThrottle:
    """Wrong keys per caller (sign-in, the x-access-key header and a Bearer token alike).

    A key is judged only inside a slot (`acquire`, then `release` with the verdict): the window's
    failures and the judgments in flight together stay under `limit`, so a burst of guesses sent
    at once is judged at most `limit` times. Each caller waits for its own failures only: there
    is no lock-out of everyone, so a stranger's guesses never lock the owner out.
    """

    limit: int = 5
    window: float = 300.0
    max_callers: int = 10_000
    now: Callable[[], float] = time.monotonic
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _judging: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _recent(self, who: str, t: float) -> deque[float]:
        q = self._failures.get(who, deque())
        while q and q[0] <= t - self.window:
            q.popleft()
        return q

    def acquire(self, client: str) -> None:
        """Take a slot to judge one key from `client`; a 429 ApiError while it must wait."""
        who = bucket(client)
        with self._lock:
            t = self.now()
            failures = self._recent(who, t)
            if len(failures) + self._judging.get(who, 0) >= self.limit:
                wait = max(1, int(failures[0] + self.window - t) + 1) if failures else 1
                raise ApiError(
                    429,
                    "too_many_requests",
                    f"Too many wrong access keys. Wait {wait} seconds, then try again.",
                    {"Retry-After": str(wait)},
                )
            self._judging[who] = self._judging.get(who, 0) + 1

    def release(self, client: str, right: bool) -> None:
        """Give the slot back with the verdict: a wrong key counts, a right one clears the record."""
        who = bucket(client)
        with self._lock:
            left = self._judging.get(who, 1) - 1
            if left > 0:
                self._judging[who] = left
            else:
                self._judging.pop(who, None)
            if right:
                self._failures.pop(who, None)
                return
            self._failures.setdefault(who, deque()).append(self.now())
            while len(self._failures) > self.max_callers:  # bound memory: forget the oldest callers
                del self._failures[next(iter(self._failures))]


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key a caller presents: `x-access-key`, else `Authorization: Bearer <key>` (MCP clients)."""
    key = headers.get(ACCESS_HEADER)
    if key:
        return key
    scheme, _, token = headers.get("authorization", "").strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _challenge(presented: bool) -> dict[str, str]:
    """RFC 6750's challenge: MCP clients read it to know a Bearer token is what is asked for."""
    error = ', error="invalid_token"' if presented else ""
    return {"WWW-Authenticate": f'Bearer realm="previously"{error}'}


@dataclass
class Security:
    """The API's access policy, built once from the settings and the serve flags."""

    key: AccessKey | None
    required: bool
    sessions: Sessions | None = None
    throttle: AuthThrottle = field(default_factory=AuthThrottle)
    # The trust boundary every request crosses first (hosts, origins, bodies, forwarded headers).
    request_guard: RequestGuard = field(default_factory=RequestGuard)

    @classmethod
    def build(
        cls,
        plain: str | None,
        stored: str | None,
        session_secret: str | None,
        required: bool,
        request_guard: RequestGuard | None = None,
    ) -> Security:
        """From the configured key (plain, or its stored hash) and whether every call must authenticate."""
        key = AccessKey.from_plain(plain) if plain else (AccessKey.parse(stored) if stored else None)
        sessions = Sessions(key, session_secret) if key else None
        return cls(
            key=key, required=required, sessions=sessions, request_guard=request_guard or RequestGuard()
        )

    @property
    def cors_origins(self) -> tuple[str, ...]:
        return self.request_guard.cors_origins

    def check_key(self, candidate: str | None, client: str) -> bool:
        """Whether `candidate` is the key; a key not seen right before is judged only inside one of
        `client`'s throttle slots (429 once its wrong keys reach the limit)."""
        if self.key is None or not candidate:
            return False
        if self.key.known(candidate):  # verified before: an HMAC, no scrypt, nothing to throttle
            return True
        self.throttle.acquire(client)
        right = False
        try:
            right = self.key.matches(candidate)
        finally:
            self.throttle.release(client, right)
        return right

    def authenticated(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], client: str = "unknown"
    ) -> bool:
        """Whether the caller presents the access key or a live session."""
        if self.key is None:
            return False
        if self.sessions is not None and self.sessions.valid(cookies.get(SESSION_COOKIE)):
            return True
        return self.check_key(presented_key(headers), client)

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
                "Sign in at /sign-in, or send the access key in the x-access-key header "
                "(or as Authorization: Bearer).",
                _challenge(presented_key(headers) is not None),
            )

    def guard(
        self, method: str, headers: Mapping[str, str], client: str = "unknown", *, upgrade: bool = False
    ) -> None:
        """The same-origin rule on a state-changing request or a WebSocket upgrade (403): a browser
        page must be the app's own; a script, or a page of a listed CORS origin, must present the
        access key whenever one is configured."""
        if not upgrade and method.upper() not in STATE_CHANGING:
            return
        caller = self.request_guard.caller(headers)
        if caller is Caller.PAGE or self.key is None:
            return
        if not self.check_key(presented_key(headers), client):
            raise ApiError(
                403,
                "forbidden",
                "A script must send the access key (x-access-key, or Authorization: Bearer) with "
                "every change; a browser must send it from the app's own page.",
            )
