"""Rate limits per seat token and per client address (fixed windows).

Every request except the probes and ``/metrics`` counts against its client
address (an IPv6 one by its /64: `client_key`); a request with
``Authorization: Bearer <token>`` also counts against that token (by its hash:
the token itself is never stored). Past a limit the
answer is ``429`` (problem ``rate_limited``) with ``Retry-After``: the seconds
until the window that refused it ends.

Counts live in Redis when the limiter's storage is a Redis URL (shared by
every process and host), else in this process's memory. In Redis each limit
is ``SET key 0 PX 2*window NX`` + ``INCR key``. When the counters live in the
game store's own Redis, a request whose first store access is a load (a view,
legal moves, events, a stream, a move, a join: `RIDING_ENDPOINTS`) has them counted by
the load (`GameStore.load(game_id, counters)`: ``INCR key``, and ``PEXPIRE``
when the count is 1, in the script that loads the game): the API's
`service.api.access.load_game` hands it `RateLimiter.load_counters()` and
calls `RateLimiter.settle(counts)` right after, refusing the request before
anything is written: no round trip of its own. Every other request (and one of
those that ends before loading) sends them alone in one pipeline. The limiter
fails **closed**: a request it cannot count (Redis unreachable, or no free
connection in its pool within ``STORE_POOL_TIMEOUT``) is answered
``503 rate_limit_unavailable`` with ``Retry-After``, never let through uncounted.

Settings (see deploy/README.md): ``RATELIMIT_ENABLED``,
``RATELIMIT_STORAGE_URL`` (default: ``STORE_URL``), ``RATELIMIT_PER_TOKEN``,
``RATELIMIT_PER_ADDRESS`` (``"COUNT/SECONDS"``), ``RATELIMIT_PROXY_HOPS``.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import redis
import redis.cluster
from flask import Flask, Request, Response
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.http.current import current_g, current_request
from service.http.problems import Problem, http_exception_response, problem_response
from service.http.tokens import token_digest
from service.ops import metrics
from service.store.base import LoadCounters
from service.store.redis import RedisStore

log = logging.getLogger(__name__)

#: Paths never limited: probes and the metrics scrape must always answer.
EXEMPT_PATHS: Final = frozenset({"/healthz", "/readyz", "/metrics"})
DEFAULT_PER_TOKEN: Final = "1200/60"
DEFAULT_PER_ADDRESS: Final = "6000/60"
#: Endpoints whose first store access is a load, before any write: their
#: counts ride with that load when the counters share the store's Redis.
RIDING_ENDPOINTS: Final = frozenset(
    {
        "games.Game",
        "games.Join",
        "moves.LegalMoves",
        "moves.Moves",
        "hints.Hint",
        "events.Events",
        "events.Stream",
    }
)
#: Address hits the limiter keeps made, at most (one per client address seen;
#: all forgotten when full, so memory stays bounded whatever the addresses).
ADDRESS_HITS_KEPT: Final = 4096
#: Token hits kept made per process, by the token's digest (as the address hits).
TOKEN_HITS_KEPT: Final = 4096
#: The problem code of a request refused because it could not be counted.
UNAVAILABLE_CODE: Final = "rate_limit_unavailable"
#: The counters' keys are ``<STORE_PREFIX>:rl:<a|t>:<address or token hash>:<window>``.
KEY_INFIX: Final = ":rl:"


@dataclass(frozen=True)
class Limit:
    """At most ``count`` requests per window of ``seconds``."""

    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Limit:
        """Read ``"COUNT/SECONDS"`` (``"600/60"``); ``SECONDS`` may also be
        ``second``, ``minute`` or ``hour``."""
        named = {"second": 1, "s": 1, "minute": 60, "m": 60, "hour": 3600, "h": 3600}
        count_text, sep, period_text = text.strip().partition("/")
        period_text = period_text.strip().lower()
        try:
            count = int(count_text)
            seconds = named[period_text] if period_text in named else int(period_text)
        except (KeyError, ValueError):
            raise ValueError(f"a rate limit is COUNT/SECONDS, not {text!r}") from None
        if not sep or count < 1 or seconds < 1:
            raise ValueError(f"a rate limit is COUNT/SECONDS with both positive, not {text!r}")
        return cls(count, seconds)


class Hit:
    """One count to make: the counter's name and the limit it is held to.

    Made once per client address or token and kept (`ADDRESS_HITS_KEPT`,
    `TOKEN_HITS_KEPT`); it keeps its counter's Redis key for the window it was
    last counted in, so that a key is formatted once per window rather than
    once per request (`RedisCounters.keys`).
    """

    __slots__ = ("key", "limit", "scope", "window")

    def __init__(self, scope: str, key: str, limit: Limit) -> None:
        self.scope = scope
        self.key = key
        self.limit = limit
        #: ``(start, end, key prefix, Redis key, expiry ms)`` of the window last
        #: keyed: one tuple, replaced whole, so that a reader never sees half of it.
        self.window: tuple[float, float, str, str, int] = (0.0, 0.0, "", "", 0)

    def __repr__(self) -> str:
        return f"Hit({self.scope!r}, {self.key!r}, {self.limit!r})"


class Counters(Protocol):
    """Where the window counts are kept."""

    def incr(self, hits: Sequence[Hit], now: float) -> list[int]:
        """Add one to each hit's counter for the current window; the new counts."""


def _window(limit: Limit, now: float) -> int:
    return int(now // limit.seconds)


class MemoryCounters:
    """Counts in this process only (the limit then applies per process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # key -> (window number, count, time the window ends)
        self._counts: dict[str, tuple[int, int, float]] = {}
        self._sweep_at = 0.0

    def incr(self, hits: Sequence[Hit], now: float) -> list[int]:
        """Add one to each counter of the current windows."""
        out = []
        with self._lock:
            if now >= self._sweep_at:
                # Forget ended windows, at most every 10 s, so memory stays bounded.
                self._counts = {k: v for k, v in self._counts.items() if v[2] > now}
                self._sweep_at = now + 10.0
            for hit in hits:
                window = _window(hit.limit, now)
                seen = self._counts.get(hit.key)
                count = seen[1] + 1 if seen is not None and seen[0] == window else 1
                self._counts[hit.key] = (window, count, (window + 1) * hit.limit.seconds)
                out.append(count)
        return out


class RedisCounters:
    """Counts in Redis, shared by every process that uses the same server."""

    def __init__(
        self,
        url: str,
        prefix: str = "rummy",
        *,
        max_connections: int = 1000,
        pool_timeout: float = 0.5,
        password: str | None = None,
    ) -> None:
        self.url = url
        self.password = password
        self.key_prefix = prefix + KEY_INFIX
        self.max_connections = max_connections
        self.pool_timeout = pool_timeout
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        """The client, made on first use (a cluster client connects when made,
        and the app must start while Redis is down)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = redis_client(
                        self.url, self.max_connections, self.pool_timeout, self.password
                    )
        return self._client

    def keys(self, hits: Sequence[Hit], now: float) -> list[tuple[str, int]]:
        """Each hit's key in the current window and its expiry in ms: the key
        outlives its window, so it cannot expire between the SET and the INCR
        and come back without an expiry.

        Speed: the key is made once per window and kept on the hit (a float
        floor division, an ``int`` and an f-string each time cost several
        times the kept key; valgrind: docs/performance.md, "What a move costs",
        has the figures)."""
        prefix = self.key_prefix
        keys = []
        for hit in hits:
            start, end, keyed_prefix, key, ttl_ms = hit.window
            if not start <= now < end or keyed_prefix is not prefix:
                seconds = hit.limit.seconds
                number = int(now // seconds)
                key, ttl_ms = f"{prefix}{hit.key}:{number}", 2000 * seconds
                start = float(number * seconds)
                hit.window = (start, start + seconds, prefix, key, ttl_ms)
            keys.append((key, ttl_ms))
        return keys

    def incr(self, hits: Sequence[Hit], now: float) -> list[int]:
        """One pipeline: create each window's key with an expiry, then INCRBY it."""
        pipe = self.client.pipeline(transaction=False)
        for key, ttl_ms in self.keys(hits, now):
            pipe.set(key, 0, px=ttl_ms, nx=True)
            pipe.incr(key)
        replies = pipe.execute()
        return [int(reply) for reply in replies[1::2]]


def client_key(address: str) -> str:
    """The client an address counts as, for the limits and quotas: an IPv6
    address by its /64 (one subscriber's network, in which a client may pick
    any of 2**64 addresses), an IPv4-mapped one as its IPv4 address, any
    other as it is."""
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address.partition("%")[0])
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))


def client_address(proxy_hops: int, current: Request | None = None) -> str:
    """The current request's client address (or ``current``'s): the connection's
    peer, or with ``proxy_hops`` trusted proxies in front, the address the
    outermost of them saw (``X-Forwarded-For``; see docs/security.md on
    ``RATELIMIT_PROXY_HOPS``)."""
    if current is None:
        current = current_request()
    if proxy_hops > 0:
        forwarded = current.headers.get("X-Forwarded-For", "")
        chain = [part.strip() for part in forwarded.split(",") if part.strip()]
        if len(chain) >= proxy_hops:
            return chain[-proxy_hops]
    return current.remote_addr or "unknown"


_REDIS_SCHEMES: Final = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")


def redis_client(
    url: str,
    max_connections: int = 1000,
    pool_timeout: float = 0.5,
    password: str | None = None,
) -> Any:
    """A client for the limiter: short timeouts, no retries (it fails closed),
    a pool of ``max_connections`` where a command waits up to ``pool_timeout``
    seconds for a free connection.

    The URL's query (the store's own settings, such as ``prefix``) is ignored.
    """
    scheme, _, rest = url.partition("://")
    rest = rest.partition("?")[0]
    options: dict[str, Any] = {
        "socket_connect_timeout": 0.5,
        "socket_timeout": 0.5,
        "retry": Retry(NoBackoff(), 0),
    }
    if password:
        options["password"] = password  # a password in the URL wins
    if scheme.lower().endswith("+cluster"):
        base = scheme.lower().removesuffix("+cluster")
        return redis.cluster.RedisCluster.from_url(
            f"{base}://{rest}", max_connections=max_connections, **options
        )
    pool = redis.BlockingConnectionPool.from_url(
        f"{scheme}://{rest}", max_connections=max_connections, timeout=pool_timeout, **options
    )
    return redis.Redis(connection_pool=pool)


def open_counters(
    url: str,
    prefix: str = "rummy",
    *,
    max_connections: int = 1000,
    pool_timeout: float = 0.5,
    password: str | None = None,
) -> Counters:
    """Counters for a storage URL: in Redis (keys under ``prefix``) for the
    Redis schemes of ``STORE_URL``, else in this process's memory."""
    if url.partition("://")[0].lower() in _REDIS_SCHEMES:
        return RedisCounters(
            url,
            prefix,
            max_connections=max_connections,
            pool_timeout=pool_timeout,
            password=password,
        )
    return MemoryCounters()


def _keep(kept: dict[str, Hit], most: int, name: str, hit: Hit) -> None:
    """Keep `hit` in `kept` by `name` (a client address, or a token's SHA-256):
    at most `most` entries, then all forgotten at once."""
    if len(kept) >= most:
        kept.clear()
    kept[name] = hit


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in {"", "0", "false", "no", "off"}
    return bool(value)


class RateLimiter:
    """Counts requests per token and per address and refuses those past a limit."""

    def __init__(
        self,
        counters: Counters,
        per_token: Limit | None,
        per_address: Limit | None,
        *,
        proxy_hops: int = 0,
        exempt: Iterable[str] = EXEMPT_PATHS,
    ) -> None:
        self.counters = counters
        self.per_token = per_token
        self.per_address = per_address
        self.proxy_hops = proxy_hops
        self.exempt = frozenset(exempt)
        #: The wall clock (replaceable in tests); windows are aligned to it so
        #: that every process and host agrees on them.
        self.clock: Callable[[], float] = time.time
        #: Whether counts may ride with the store's loads (same Redis, see `init_app`).
        self.rides_with_loads = False
        self._failing_since = 0.0
        #: The address hits made, by address: a hit and its key cost several
        #: times a lookup to make, and a client sends many requests.
        #: At most `ADDRESS_HITS_KEPT`, then forgotten all at once.
        self._address_hits: dict[str, Hit] = {}
        #: The token hits made, by the token's SHA-256 (never the token itself):
        #: a seat sends many requests. At most `TOKEN_HITS_KEPT`, then forgotten.
        self._token_hits: dict[str, Hit] = {}

    def client_address(self) -> str:
        """The current request's client address (`client_address`)."""
        return client_address(self.proxy_hops)

    def hits(self, current: Request | None = None) -> list[Hit]:
        """The counters the current request (or ``current``) adds to."""
        if current is None:
            current = current_request()
        hits = []
        limit = self.per_address
        if limit is not None:
            # Without proxies, `client_address`'s answer without its call.
            hops = self.proxy_hops
            address = client_address(hops, current) if hops else current.remote_addr or "unknown"
            hit = self._address_hits.get(address)
            if hit is None or hit.limit is not limit:
                hit = Hit("address", "a:" + client_key(address), limit)
                _keep(self._address_hits, ADDRESS_HITS_KEPT, address, hit)
            hits.append(hit)
        limit = self.per_token
        if limit is not None:
            env = current.environ
            header = env.get("HTTP_AUTHORIZATION", "")  # `Authorization`
            scheme, _, token = header.partition(" ")
            token = token.strip()
            if token and scheme.lower() == "bearer":
                digest = token_digest(token, env)  # the seat lookup's too
                hit = self._token_hits.get(digest)
                if hit is None or hit.limit is not limit:
                    hit = Hit("token", "t:" + digest[:32], limit)
                    _keep(self._token_hits, TOKEN_HITS_KEPT, digest, hit)
                hits.append(hit)
        return hits

    def check(self) -> Response | None:
        """``before_request`` hook: ``None`` to go on, or the 429 answer."""
        current = current_request()
        if current.path in self.exempt:
            return None
        hits = self.hits(current)
        if not hits:
            return None
        now = self.clock()
        rule = current.url_rule  # `current.endpoint`, without the property's call
        if self.rides_with_loads and rule is not None and rule.endpoint in RIDING_ENDPOINTS:
            # Counted by this request's load (`load_counters`), else by `finish`.
            current_g().rate_limit_pending = (hits, now)
            return None
        return self._count(hits, now)

    def load_counters(self) -> LoadCounters:
        """The counters the current request's load is to count (``()``: none):
        each ``(key, ttl_ms)`` of its hits, when they wait for a load."""
        pending = current_g().get("rate_limit_pending")
        if pending is None:
            return ()
        hits, now = pending
        assert isinstance(self.counters, RedisCounters)
        return self.counters.keys(hits, now)

    def settle(self, counts: Sequence[int] | None) -> None:
        """After a load that carried `load_counters()`: raise the 429 problem if
        their new `counts` are past a limit (``None``: the load counted nothing,
        and `finish` counts the request on its own)."""
        values = current_g().__dict__
        pending = values.get("rate_limit_pending")
        if pending is None or counts is None:
            return
        values["rate_limit_pending"] = None
        hits, now = pending
        for hit, count in zip(hits, counts, strict=True):
            if count > hit.limit.count:
                raise self.refusal(hit, now)

    def finish(self, response: Response) -> Response:
        """``after_request`` hook: count a request that ended before its load."""
        values = current_g().__dict__  # `g`'s attributes, read and set without calls
        pending = values.get("rate_limit_pending")
        if pending is None:
            return response
        values["rate_limit_pending"] = None
        # Nothing was written without a load: the answer may still be replaced.
        return self._count(*pending) or response

    def _count(self, hits: Sequence[Hit], now: float) -> Response | None:
        try:
            counts = self.counters.incr(hits, now)
        except (redis.RedisError, redis.exceptions.RedisClusterException) as error:
            self._report_failure(error, now)
            return self.unavailable()
        for hit, count in zip(hits, counts, strict=True):
            if count > hit.limit.count:
                return self.refuse(hit, now)
        return None

    def refusal(self, hit: Hit, now: float) -> Problem:
        """The 429 problem for a request past ``hit``'s limit (counted in metrics)."""
        metrics.record_rate_limited(hit.scope)
        window_end = (_window(hit.limit, now) + 1) * hit.limit.seconds
        retry_after = max(1, math.ceil(window_end - now))
        return Problem(
            429,
            "rate_limited",
            f"Too many requests for this {hit.scope}: at most {hit.limit.count} "
            f"per {hit.limit.seconds} s. Retry after {retry_after} s.",
            headers={"Retry-After": str(retry_after)},
        )

    def refuse(self, hit: Hit, now: float) -> Response:
        """The 429 answer for a request past ``hit``'s limit."""
        return http_exception_response(self.refusal(hit, now))

    def unavailable(self) -> Response:
        """The 503 answer for a request that could not be counted (fail closed)."""
        metrics.record_rate_limited("unavailable")
        return problem_response(
            503,
            UNAVAILABLE_CODE,
            "Requests cannot be counted against the rate limits right now; retry shortly.",
            headers={"Retry-After": "1"},
        )

    def _report_failure(self, error: Exception, now: float) -> None:
        # Fail closed, and say so at most every 30 s instead of once per request.
        if now - self._failing_since > 30:
            self._failing_since = now
            log.warning("rate limiter storage unreachable, refusing requests: %s", error)


def init_app(app: Flask) -> RateLimiter | None:
    """Install the limiter on ``app`` from its settings; ``None`` when disabled.

    The limiter is kept in ``app.extensions["ratelimit"]``.
    """
    config = app.config
    if not _truthy(config.get("RATELIMIT_ENABLED", True)):
        return None
    url = str(config.get("RATELIMIT_STORAGE_URL") or config.get("STORE_URL") or "memory://")
    per_token = str(config.get("RATELIMIT_PER_TOKEN") or DEFAULT_PER_TOKEN)
    per_address = str(config.get("RATELIMIT_PER_ADDRESS") or DEFAULT_PER_ADDRESS)
    limiter = RateLimiter(
        open_counters(
            url,
            str(config.get("STORE_PREFIX") or "rummy"),
            max_connections=int(config.get("STORE_MAX_CONNECTIONS") or 1000),
            pool_timeout=float(config.get("STORE_POOL_TIMEOUT") or 0.5),
            password=str(config.get("STORE_PASSWORD") or "") or None,
        ),
        None if per_token.strip() in {"0", "off"} else Limit.parse(per_token),
        None if per_address.strip() in {"0", "off"} else Limit.parse(per_address),
        proxy_hops=int(config.get("RATELIMIT_PROXY_HOPS", 0) or 0),
    )
    limiter.rides_with_loads = _same_redis(limiter.counters, app)
    app.extensions["ratelimit"] = limiter
    app.before_request(limiter.check)
    app.after_request(limiter.finish)
    return limiter


def _same_redis(counters: Counters, app: Flask) -> bool:
    """Whether the counters live in the Redis the game store loads from."""
    store = app.extensions.get("rummy.store")
    store = getattr(store, "inner", store)  # the metrics wrapper
    if not isinstance(counters, RedisCounters) or not isinstance(store, RedisStore):
        return False
    if store.cluster:
        return False  # the counters' keys live in other slots than the game's
    return counters.url.partition("?")[0] == store.url.partition("?")[0]
