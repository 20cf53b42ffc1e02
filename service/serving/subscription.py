"""The streams' wake-up subscription read without redis-py's Pub/Sub machinery.

A process's streams learn of every save of every game from one pattern
subscription (`service.store.watch.RedisHub`). Read through redis-py's
``PubSub.get_message``, each message cost a ``poll`` of the socket (a gevent
watcher and timer), the client's retry wrapper, push-notification handling
that looks its logger up every time, and a dict of six entries: in a sampling
profile of a worker holding 1,000 streams (``python -m bench.streams
--pushes-only --profile DIR``, docs/performance.md, "Open event streams") a
large share of its CPU. Here the subscription is one
connection made with the client's own settings (address, TLS, password,
database) by redis-py, whose replies are then read here with hiredis's reader:
a message is one parsed reply, a buffered one without touching the socket,
else one ``recv`` bounded by the caller's timeout that takes every message
already arrived: about half the instructions a message of redis-py's
``read_response`` (``python -m bench.push_calls --read`` under valgrind;
docs/performance.md, "Open event streams", has the figures).

The connection speaks RESP2 whatever the client's protocol: under RESP3 a
message is a push notification, which redis-py hands through handlers that
format the whole message for a debug log each time. Only a client of one
server is read this way (a cluster client picks its node itself): `RedisStore`
falls back to ``PubSub`` for a cluster.
"""

from __future__ import annotations

import time
from typing import Any

import hiredis
import redis
from redis.exceptions import ConnectionError as RedisConnectionError

__all__ = ["PatternSubscription", "readable_leanly"]


def readable_leanly(client: Any) -> bool:
    """Whether `client`'s subscriptions can be a `PatternSubscription` (one server's)."""
    return isinstance(client, redis.Redis)


class PatternSubscription:
    """One ``PSUBSCRIBE`` on a connection of its own; `get_message` as ``PubSub``'s,
    for the messages only (``{"channel": ..., "data": ...}``)."""

    #: Most bytes one read takes off the socket: every message already there.
    READ_SIZE = 65536

    def __init__(
        self, client: redis.Redis, pattern: str, timeout: float, read_interval: float = 0.0
    ) -> None:
        """Connect and subscribe; raise a redis-py error when the server does not
        confirm the subscription within `timeout` s.

        `read_interval`: once a read has taken everything that had arrived, the
        next waits until this many seconds have passed since it, so that the
        messages published meanwhile are taken in one read and handed on
        together (0: each read at once). A worker holding many streams of games
        saved tens of times a second was woken, and switched from its requests
        to the streams' work, once per save: reading every 50 ms halved what the
        streams cost the moves beside them (`bench.streams`; docs/performance.md,
        "Open event streams"). A read that filled `READ_SIZE` is followed at once."""
        self._read_interval = read_interval
        #: When the last read took everything that had arrived (`None`: it did not).
        self._drained_at: float | None = None
        pool = client.connection_pool
        self._conn = pool.connection_class(**{**pool.connection_kwargs, "protocol": 2})
        #: The replies read so far, parsed (hiredis's reader: a dependency).
        self._reader = hiredis.Reader()
        #: The socket's current timeout (`None`: not set here yet).
        self._timeout: float | None = None
        try:
            # redis-py connects (address, TLS, password, database) and reads its
            # handshake's answers; every reply after that is read here.
            self._conn.connect()
            self._sock: Any = self._conn._sock
            self._conn.send_command("PSUBSCRIBE", pattern)
            reply = self._read(timeout)
            if not (isinstance(reply, list) and reply and reply[0] == b"psubscribe"):
                raise RedisConnectionError(f"unexpected answer to PSUBSCRIBE: {reply!r}")
            self._drained_at = None  # the first message is read at once
        except BaseException:
            self._conn.disconnect()
            raise

    def _read(self, timeout: float) -> Any:
        """The next reply: a parsed one already read, else one ``recv`` (waiting up
        to `timeout` s) of whatever arrived, all of it parsed at once (``None``
        when nothing, or only part of a reply, came)."""
        reply = self._reader.gets()
        if reply is not False:
            return reply
        return self._receive(timeout)

    def _receive(self, timeout: float) -> Any:
        """`_read` once no parsed reply is left: one ``recv``, parsed."""
        if timeout != self._timeout:
            self._sock.settimeout(timeout)
            self._timeout = timeout
        try:
            data = self._sock.recv(self.READ_SIZE)
        except (TimeoutError, BlockingIOError):
            self._drained_at = None  # waited and nothing came: the next read is at once
            return None
        except OSError as error:
            raise RedisConnectionError(f"reading the subscription failed: {error}") from error
        if not data:
            raise RedisConnectionError("the server closed the subscription's connection")
        self._drained_at = time.monotonic() if len(data) < self.READ_SIZE else None
        self._reader.feed(data)
        reply = self._reader.gets()
        return None if reply is False else reply

    def get_message(self, ignore_subscribe_messages: bool = True, timeout: float = 0.0) -> Any:
        """The next message published on a channel of the pattern, waiting up to
        `timeout` s (``None`` without one); a lost connection raises."""
        # `_read`, its first step here: a message already read and parsed, as
        # most are, without one more Python call (`bench.push_calls --read`).
        reply = self._reader.gets()
        if reply is False:
            if self._drained_at is not None and self._read_interval:
                wait = self._drained_at + self._read_interval - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            reply = self._receive(timeout)
        if isinstance(reply, list) and len(reply) == 4 and reply[0] == b"pmessage":
            return {"channel": reply[2], "data": reply[3]}
        return None  # nothing yet, or a confirmation

    def close(self) -> None:
        """Close the connection."""
        self._conn.disconnect()
