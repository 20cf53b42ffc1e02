"""Settings of the service, read from the environment.

Every setting has a default that serves the embedded memory store on one
process; `Config.from_env()` overrides them from environment variables of the
same name. `TestConfig` is what the test suite starts from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from service.store.base import (
    DEFAULT_IDEMPOTENCY_BYTES,
    DEFAULT_MAX_EVENTS,
    DEFAULT_MAX_SUBSCRIBERS,
    DEFAULT_QUOTA_PENDING,
    DEFAULT_WAIT_TIMEOUT_MS,
)

#: The longest a finished game's record may be kept (`RECORD_TTL`): a year. Each
#: costs its bytes in the store for that long (docs/performance.md).
MAX_RECORD_TTL = 366 * 24 * 3600
#: The longest `Config.REMATCH_SECONDS`: a rematch's held seats open within the
#: time a waiting game is kept by default (`WAITING_TTL`).
MAX_REMATCH_SECONDS = 3600


def _flag(text: str) -> bool:
    return text.strip().lower() not in {"", "0", "false", "no", "off"}


def _split_origins(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


#: The strategies that may fill a quick-play table (`Config.QUEUE_BOT`).
QUEUE_BOTS = ("greedy", "expert")
#: Most simulated turns a hint may be given (`HINT_NODES`): a hint runs inside a
#: request, so its search is bounded whatever the environment says.
MAX_HINT_NODES = 20_000
#: Longest a hint's search may be capped at (`HINT_SECONDS`), in seconds.
MAX_HINT_SECONDS = 1.0


@dataclass(frozen=True)
class Config:
    """Settings of one app instance (see the configuration table in README.md)."""

    #: Where games live: ``memory://`` (one process), ``redis://host:port/db``,
    #: ``rediss://…`` or ``redis+cluster://host:port``.
    STORE_URL: str = "memory://"
    #: Folder of the games when `rummy-service` runs without a ``STORE_URL``: the
    #: append-only file of the Redis-protocol server it starts (relative to the
    #: directory it is started in; service/serving/embedded.py).
    DATA_DIR: str = "rummy-data"
    #: Password of the store's Redis (``requirepass`` or an ACL user's, with
    #: ``STORE_URL`` naming the user); keep it in a Secret. A password in
    #: ``STORE_URL`` itself wins. Also used by the rate limiter's counts.
    STORE_PASSWORD: str = field(default="", repr=False)
    #: Replicas of the store's Redis that must acknowledge each save (a move, a
    #: create, a join) before it is answered: ``WAIT`` after the save script, in
    #: the same round trip (0: none, the save is answered once the primary has it;
    #: docs/reliability.md, "Failover"). Too few in time: 503 with ``Retry-After``.
    STORE_WAIT_REPLICAS: int = 0
    #: Milliseconds a save waits for those acknowledgements (at least 1).
    STORE_WAIT_TIMEOUT_MS: int = DEFAULT_WAIT_TIMEOUT_MS
    #: Prefix of every Redis key (lets several deployments share one Redis).
    STORE_PREFIX: str = "rummy"
    #: Largest request body accepted, in bytes; larger bodies answer 413.
    MAX_CONTENT_LENGTH: int = 64 * 1024
    #: Seconds a client has to send a request's body once its headers arrived
    #: (gunicorn's balanced gevent worker; slower clients get 408 and are dropped).
    BODY_READ_TIMEOUT: float = 10.0
    #: Seconds every write of an answer (a stream's included) may take to be
    #: taken by the client's connection (gunicorn's balanced gevent worker): a
    #: client that does not read is dropped once a write waits this long.
    SEND_TIMEOUT: float = 10.0
    #: Requests one connection may send (keep-alive or pipelined, 0: no bound):
    #: the answer to the last says ``Connection: close`` and the connection closes.
    MAX_REQUESTS_PER_CONNECTION: int = 1000
    #: Origins allowed by CORS (``*`` for any); empty: no CORS headers.
    CORS_ORIGINS: tuple[str, ...] = ()
    #: Seconds after its last change that a game may be forgotten by the store.
    IDLE_TTL: int = 7 * 24 * 3600
    #: Seconds a game waiting for players is kept after its last change.
    WAITING_TTL: int = 3600
    #: Seconds a finished game is kept (to read its result).
    FINISHED_TTL: int = 24 * 3600
    #: Seconds a finished game's record is kept (its state and every event, in
    #: the store's compact forms; `GET /games/{id}/record`, docs/records.md), when
    #: longer than ``FINISHED_TTL`` (0 to `MAX_RECORD_TTL`; 0: as long as the game).
    RECORD_TTL: int = 30 * 24 * 3600
    #: Seconds a rematch holds each player's seat for them (`POST
    #: /games/{id}/rematch`, 1 to `MAX_REMATCH_SECONDS`); then the seats nobody
    #: claimed open to anyone in the lobby.
    REMATCH_SECONDS: int = 300
    #: Games waiting for players that one client (address, as the rate limiter
    #: sees it; an IPv6 one by its /64) may have created and not seen joined at
    #: once (0: no quota).
    QUOTA_WAITING_GAMES: int = 20
    #: Games not finished, waiting or in play, that one client created or
    #: joined, checked on every create and join (0: no quota).
    QUOTA_ACTIVE_GAMES: int = 100
    #: Games not finished with bot seats only that one client created (0: no
    #: quota): each keeps the runner busy without a human's pace.
    QUOTA_BOT_GAMES: int = 10
    #: Seconds a game counted against its creator's quota but not stored yet
    #: (Redis: a create that failed between the two) keeps counting.
    QUOTA_PENDING: float = DEFAULT_QUOTA_PENDING
    #: Longest ``wait`` a client may ask of the events long-poll, in seconds.
    LONGPOLL_MAX: float = 30.0
    #: Long-polls one worker process holds waiting at once; one more answers
    #: 503 ``too_many_long_polls`` (docs/security.md).
    LONGPOLL_WAITING_MAX: int = 200
    #: Long-polls one client (address, an IPv6 one by its /64) may hold waiting
    #: in one worker process; one more answers 429 ``too_many_long_polls``.
    LONGPOLL_PER_ADDRESS: int = 20
    #: Bytes of idempotency records one game keeps (the oldest dropped past it).
    IDEMPOTENCY_BYTES: int = DEFAULT_IDEMPOTENCY_BYTES
    #: How many of a game's events the store keeps, for the game's life (the
    #: game's record, docs/records.md); past it the oldest are dropped (a client
    #: further behind gets the ones left and reloads the view; see README.md).
    MAX_EVENTS: int = DEFAULT_MAX_EVENTS
    #: How many of a followed game's latest events each worker process keeps in
    #: memory for its event streams (`service.api.feeds`); at most ``MAX_EVENTS``.
    FEED_EVENTS: int = 24
    #: Long-polls of one worker process that may each hold a Redis Pub/Sub
    #: connection; further ones read the event list every 0.5 s instead.
    LONGPOLL_SUBSCRIBERS: int = DEFAULT_MAX_SUBSCRIBERS
    #: Event streams (``GET /games/{id}/stream``) one worker process holds open
    #: at once; one more answers 503 ``too_many_streams`` (docs/security.md).
    STREAM_MAX: int = 500
    #: Seconds of silence after which a stream sends a heartbeat comment.
    STREAM_HEARTBEAT: float = 15.0
    #: Seconds after which the server closes a stream (the client reconnects
    #: with ``Last-Event-ID``), so no connection is held for ever.
    STREAM_LIFETIME: float = 300.0
    #: Shortest time in seconds between two writes of saved events to one
    #: stream's connection (0 to 1): the events of a game's saves that come
    #: sooner go out together once it has passed (docs/security.md).
    STREAM_PUSH_INTERVAL: float = 0.05
    #: Shortest time in seconds between two reads of a worker's subscription to
    #: the games' wake-ups (0 to 1): the saves published meanwhile are read and
    #: handed to the event streams together (docs/security.md).
    WAKEUP_READ_INTERVAL: float = 0.05
    #: Whether a gevent worker's store commands share one pipelined Redis
    #: connection, a loop turn's commands in one write (service/serving/pipelining.py).
    STORE_PIPELINING: bool = True
    #: Redis connections a worker process may open for requests (its pool; the
    #: long-polls' Pub/Sub connections are `LONGPOLL_SUBSCRIBERS` more). Default:
    #: ``GUNICORN_WORKER_CONNECTIONS``, the requests a worker serves at once,
    #: so a request never waits for a connection unless Redis is slow.
    STORE_MAX_CONNECTIONS: int = 1000
    #: Seconds a request waits for a free connection of a full pool before the
    #: answer is 503 (store, with ``Retry-After``) rather than failing at once.
    STORE_POOL_TIMEOUT: float = 0.5
    #: How many times a move that lost a race is reloaded and applied again.
    SAVE_RETRIES: int = 8
    #: Largest page of the lobby listing.
    LOBBY_MAX_LIMIT: int = 100
    #: Bot moves one request may play; the rest are left to the runner.
    BOT_MOVES_PER_REQUEST: int = 500
    #: Seconds of bot play one request may spend (checked between moves).
    BOT_SECONDS_PER_REQUEST: float = 0.25
    #: Seconds of bot play one client's requests (its address, as the rate
    #: limiter sees it) may spend per minute in one worker process, at most
    #: ``BOT_SECONDS_PER_REQUEST`` at once, shared by its concurrent requests; past
    #: it their bot turns are left to the runner (0: no limit; docs/security.md).
    BOT_SECONDS_PER_OWNER: float = 6.0
    #: Due turn clocks the runner claims at once, before one bot game (service/worker.py).
    RUNNER_BATCH: int = 16
    #: Seconds a runner's claim on a game lasts (then another runner may take it).
    RUNNER_LEASE: float = 30.0
    #: Seconds a runner process waits before looking at an empty queue again.
    RUNNER_IDLE: float = 0.5
    #: Bot moves and seconds of one advance by the runner (then the game is queued again).
    RUNNER_BOT_MOVES: int = 2000
    RUNNER_BOT_SECONDS: float = 1.0
    #: Seconds between two repairs of the queue of due games by a runner process
    #: (the first at its start; 0: never): games a save meant to queue but whose
    #: entry was missed (Redis Cluster only) are queued again.
    RUNNER_REPAIR_SECONDS: float = 300.0
    #: Seconds a quick-play ticket that allows bots waits for people before
    #: the matcher fills its table with bots (0: at once).
    QUEUE_BOT_FILL_SECONDS: float = 30.0
    #: The strategy of the bots that fill a quick-play table (``greedy`` or ``expert``).
    QUEUE_BOT: str = "greedy"
    #: Seconds a quick-play ticket is kept: waiting to be matched, then to be
    #: read once matched (a ticket not matched by then is dropped from the queue).
    QUEUE_TICKET_TTL: float = 600.0
    #: Waiting quick-play tickets one client (address, as the rate limiter sees
    #: it; an IPv6 one by its /64) may hold at once (0: no quota).
    QUEUE_TICKETS_PER_CLIENT: int = 4
    #: Waiting tickets one quick-play queue (a preset and player count) holds at
    #: most; one more answers 503 ``queue_full`` (0: no bound).
    QUEUE_MAX_LENGTH: int = 1000
    #: Seconds a matcher's claim of tickets is held before another matcher may
    #: complete it (a matcher killed between its claim and the game).
    QUEUE_MATCH_LEASE: float = 10.0
    #: With the memory store, whether the web process runs the runner as a thread.
    RUNNER_IN_PROCESS: bool = True
    #: Whether an unexpected exception is raised to the caller (tests) instead
    #: of being answered with a logged 500 problem.
    RAISE_UNEXPECTED: bool = False
    #: Whether requests are rate limited, per seat token and per client address
    #: (see deploy/README.md: in the store's Redis its counts ride in the load).
    RATELIMIT_ENABLED: bool = True
    #: Where the rate-limit counts live; empty: ``STORE_URL`` (Redis: shared by
    #: every process; ``memory://``: each process counts alone).
    RATELIMIT_STORAGE_URL: str = ""
    #: Requests allowed per seat token, ``"COUNT/SECONDS"`` (``"0"``: no limit).
    RATELIMIT_PER_TOKEN: str = "1200/60"
    #: Requests allowed per client address, ``"COUNT/SECONDS"`` (``"0"``: no limit).
    RATELIMIT_PER_ADDRESS: str = "6000/60"
    #: Trusted proxies in front of the service: the client address is that many
    #: entries from the right of ``X-Forwarded-For`` (0: the connection's peer).
    RATELIMIT_PROXY_HOPS: int = 0
    #: Port that alone serves ``GET /metrics`` (gunicorn listens on it too, see
    #: deploy/gunicorn.conf.py); 0: ``/metrics`` on the service's own port.
    METRICS_PORT: int = 0
    #: One JSON line per request on stderr.
    ACCESS_LOG: bool = True
    #: Level of the service's logs (``WARNING`` also silences the request lines).
    LOG_LEVEL: str = "INFO"
    #: Simulated turns the ``expert`` bot may spend on one decision (its node budget:
    #: the search's result depends on it, not on the machine's speed).
    BOT_EXPERT_NODES: int = 600
    #: Wall-clock cap of one ``expert`` decision, in seconds (0: no cap); when it cuts
    #: a search short the bot plays on what it found (see docs/bots.md).
    BOT_EXPERT_SECONDS: float = 0.05
    #: Simulated turns a hint (`GET /games/{id}/hint`: the expert's move for the
    #: caller's seat) may spend, within the request (at most `MAX_HINT_NODES`).
    HINT_NODES: int = 1200
    #: Wall-clock cap of one hint's search, in seconds (0: no cap; at most 1 s):
    #: past it the hint rests on the worlds searched so far.
    HINT_SECONDS: float = 0.1
    #: Hints one seat may ask for per minute in one worker process (a bucket
    #: holding a minute's worth; a cached hint counts too). 0: no hints asked
    #: of this server are limited (docs/security.md).
    HINT_PER_MINUTE: int = 12
    #: Hints kept per process, by (game, version, seat): a repeated request is
    #: answered from memory with no search.
    HINT_CACHE: int = 1024
    #: Extra Flask settings, applied last.
    EXTRA: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Build the settings from environment variables (default: ``os.environ``)."""
        env = os.environ if environ is None else environ
        base = cls()
        changes: dict[str, Any] = {}
        if "STORE_URL" in env:
            changes["STORE_URL"] = env["STORE_URL"]
        if "DATA_DIR" in env:
            changes["DATA_DIR"] = env["DATA_DIR"]
        if "STORE_PASSWORD" in env:
            changes["STORE_PASSWORD"] = env["STORE_PASSWORD"]
        if "STORE_WAIT_REPLICAS" in env:
            changes["STORE_WAIT_REPLICAS"] = max(0, int(env["STORE_WAIT_REPLICAS"]))
        if "STORE_WAIT_TIMEOUT_MS" in env:
            changes["STORE_WAIT_TIMEOUT_MS"] = max(1, int(env["STORE_WAIT_TIMEOUT_MS"]))
        if "STORE_PREFIX" in env:
            changes["STORE_PREFIX"] = env["STORE_PREFIX"]
        if "MAX_CONTENT_LENGTH" in env:
            changes["MAX_CONTENT_LENGTH"] = int(env["MAX_CONTENT_LENGTH"])
        if "BODY_READ_TIMEOUT" in env:
            changes["BODY_READ_TIMEOUT"] = max(0.1, float(env["BODY_READ_TIMEOUT"]))
        if "SEND_TIMEOUT" in env:
            changes["SEND_TIMEOUT"] = max(0.1, float(env["SEND_TIMEOUT"]))
        if "MAX_REQUESTS_PER_CONNECTION" in env:
            changes["MAX_REQUESTS_PER_CONNECTION"] = max(0, int(env["MAX_REQUESTS_PER_CONNECTION"]))
        if "CORS_ORIGINS" in env:
            changes["CORS_ORIGINS"] = _split_origins(env["CORS_ORIGINS"])
        if "IDLE_TTL" in env:
            changes["IDLE_TTL"] = int(env["IDLE_TTL"])
        for name in (
            "WAITING_TTL",
            "FINISHED_TTL",
            "QUOTA_WAITING_GAMES",
            "QUOTA_ACTIVE_GAMES",
            "QUOTA_BOT_GAMES",
            "LONGPOLL_WAITING_MAX",
            "LONGPOLL_PER_ADDRESS",
        ):
            if name in env:
                changes[name] = max(0, int(env[name]))
        if "RECORD_TTL" in env:
            changes["RECORD_TTL"] = min(max(0, int(env["RECORD_TTL"])), MAX_RECORD_TTL)
        for name in ("QUEUE_TICKETS_PER_CLIENT", "QUEUE_MAX_LENGTH"):
            if name in env:
                changes[name] = max(0, int(env[name]))
        if "QUEUE_BOT_FILL_SECONDS" in env:
            changes["QUEUE_BOT_FILL_SECONDS"] = max(0.0, float(env["QUEUE_BOT_FILL_SECONDS"]))
        if "QUEUE_TICKET_TTL" in env:
            changes["QUEUE_TICKET_TTL"] = min(max(1.0, float(env["QUEUE_TICKET_TTL"])), 86400.0)
        if "QUEUE_MATCH_LEASE" in env:
            changes["QUEUE_MATCH_LEASE"] = max(0.1, float(env["QUEUE_MATCH_LEASE"]))
        if "QUEUE_BOT" in env:
            if env["QUEUE_BOT"] not in QUEUE_BOTS:
                raise ValueError(f"QUEUE_BOT must be one of {', '.join(QUEUE_BOTS)}")
            changes["QUEUE_BOT"] = env["QUEUE_BOT"]
        if "REMATCH_SECONDS" in env:
            changes["REMATCH_SECONDS"] = min(
                max(1, int(env["REMATCH_SECONDS"])), MAX_REMATCH_SECONDS
            )
        if "QUOTA_PENDING" in env:
            changes["QUOTA_PENDING"] = max(0.0, float(env["QUOTA_PENDING"]))
        if "LONGPOLL_MAX" in env:
            changes["LONGPOLL_MAX"] = min(float(env["LONGPOLL_MAX"]), 30.0)
        if "IDEMPOTENCY_BYTES" in env:
            changes["IDEMPOTENCY_BYTES"] = max(1, int(env["IDEMPOTENCY_BYTES"]))
        if "MAX_EVENTS" in env:
            changes["MAX_EVENTS"] = max(1, int(env["MAX_EVENTS"]))
        if "FEED_EVENTS" in env:
            changes["FEED_EVENTS"] = max(1, int(env["FEED_EVENTS"]))
        if "LONGPOLL_SUBSCRIBERS" in env:
            changes["LONGPOLL_SUBSCRIBERS"] = max(1, int(env["LONGPOLL_SUBSCRIBERS"]))
        if "STREAM_MAX" in env:
            changes["STREAM_MAX"] = max(0, int(env["STREAM_MAX"]))
        for name in ("STREAM_HEARTBEAT", "STREAM_LIFETIME"):
            if name in env:
                changes[name] = max(0.1, float(env[name]))
        for name in ("STREAM_PUSH_INTERVAL", "WAKEUP_READ_INTERVAL"):
            if name in env:
                changes[name] = min(max(0.0, float(env[name])), 1.0)
        if "STORE_MAX_CONNECTIONS" in env or "GUNICORN_WORKER_CONNECTIONS" in env:
            connections = env.get("STORE_MAX_CONNECTIONS") or env["GUNICORN_WORKER_CONNECTIONS"]
            changes["STORE_MAX_CONNECTIONS"] = max(1, int(connections))
        if "STORE_POOL_TIMEOUT" in env:
            changes["STORE_POOL_TIMEOUT"] = max(0.0, float(env["STORE_POOL_TIMEOUT"]))
        if "SAVE_RETRIES" in env:
            changes["SAVE_RETRIES"] = max(1, int(env["SAVE_RETRIES"]))
        for name in ("BOT_MOVES_PER_REQUEST", "RUNNER_BATCH", "RUNNER_BOT_MOVES"):
            if name in env:
                changes[name] = max(0 if name == "BOT_MOVES_PER_REQUEST" else 1, int(env[name]))
        seconds = (
            "BOT_SECONDS_PER_REQUEST",
            "BOT_SECONDS_PER_OWNER",
            "RUNNER_LEASE",
            "RUNNER_IDLE",
            "RUNNER_BOT_SECONDS",
            "RUNNER_REPAIR_SECONDS",
        )
        for name in seconds:
            if name in env:
                changes[name] = max(0.0, float(env[name]))
        flags = (
            "RATELIMIT_ENABLED",
            "ACCESS_LOG",
            "STORE_PIPELINING",
            "RUNNER_IN_PROCESS",
        )
        for name in flags:
            if name in env:
                changes[name] = _flag(env[name])
        for name in (
            "RATELIMIT_STORAGE_URL",
            "RATELIMIT_PER_TOKEN",
            "RATELIMIT_PER_ADDRESS",
            "LOG_LEVEL",
        ):
            if name in env:
                changes[name] = env[name]
        if "BOT_EXPERT_NODES" in env:
            changes["BOT_EXPERT_NODES"] = min(max(1, int(env["BOT_EXPERT_NODES"])), 100_000)
        if "BOT_EXPERT_SECONDS" in env:
            changes["BOT_EXPERT_SECONDS"] = min(max(0.0, float(env["BOT_EXPERT_SECONDS"])), 5.0)
        if "HINT_NODES" in env:
            changes["HINT_NODES"] = min(max(1, int(env["HINT_NODES"])), MAX_HINT_NODES)
        if "HINT_SECONDS" in env:
            changes["HINT_SECONDS"] = min(max(0.0, float(env["HINT_SECONDS"])), MAX_HINT_SECONDS)
        if "HINT_PER_MINUTE" in env:
            changes["HINT_PER_MINUTE"] = max(0, int(env["HINT_PER_MINUTE"]))
        if "HINT_CACHE" in env:
            changes["HINT_CACHE"] = min(max(1, int(env["HINT_CACHE"])), 65_536)
        if "METRICS_PORT" in env:
            changes["METRICS_PORT"] = max(0, int(env["METRICS_PORT"] or 0))
        if "RATELIMIT_PROXY_HOPS" in env:
            changes["RATELIMIT_PROXY_HOPS"] = max(0, int(env["RATELIMIT_PROXY_HOPS"]))
        return replace(base, **changes)

    def flask_settings(self) -> dict[str, Any]:
        """The settings as a Flask config mapping."""
        settings = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "EXTRA"}
        settings.update(self.EXTRA)
        return settings


def store_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """The store's settings (``open_store`` keywords besides the URL) from a config
    mapping (`Config.flask_settings` or a Flask app's config): the web process and
    the runner process open the same store alike."""
    return {
        "prefix": values["STORE_PREFIX"],
        "idle_ttl": values["IDLE_TTL"],
        "waiting_ttl": max(values["WAITING_TTL"], 1),
        "finished_ttl": max(values["FINISHED_TTL"], 1),
        "record_ttl": min(max(values["RECORD_TTL"], 0), MAX_RECORD_TTL),
        "max_wait": values["LONGPOLL_MAX"],
        "max_events": values["MAX_EVENTS"],
        "max_subscribers": values["LONGPOLL_SUBSCRIBERS"],
        "pipelining": values["STORE_PIPELINING"],
        "max_connections": values["STORE_MAX_CONNECTIONS"],
        "pool_timeout": values["STORE_POOL_TIMEOUT"],
        "password": values["STORE_PASSWORD"] or None,
        "quota_pending": values["QUOTA_PENDING"],
        "idempotency_bytes": values["IDEMPOTENCY_BYTES"],
        "wakeup_read_interval": values["WAKEUP_READ_INTERVAL"],
        "wait_replicas": values["STORE_WAIT_REPLICAS"],
        "wait_timeout_ms": values["STORE_WAIT_TIMEOUT_MS"],
    }


@dataclass(frozen=True)
class TestConfig(Config):
    """Settings for the test suite: memory store, unexpected errors raised."""

    __test__ = False  # not a pytest test class

    #: Bot turns bounded by moves only: what a test sees must not depend on the
    #: machine's speed.
    BOT_SECONDS_PER_REQUEST: float = 3600.0
    BOT_SECONDS_PER_OWNER: float = 0.0
    RAISE_UNEXPECTED: bool = True
    #: Tests send bursts from one address; the rate-limit tests turn it on.
    RATELIMIT_ENABLED: bool = False
    #: A hint's search bounded by its nodes only, like the bots' in tests.
    HINT_SECONDS: float = 0.0
    EXTRA: Mapping[str, Any] = field(default_factory=lambda: {"TESTING": True})
