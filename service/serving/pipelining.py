"""One connection for a gevent worker's store commands: a loop turn's commands go out in one write.

Under gevent a worker's requests are greenlets on one thread. On connections
of their own, each of their Redis round trips costs a write, a wake-up of
redis-server, a reply and a wake-up of the worker, and on these machines two
thirds of a round trip's CPU is those wake-ups (docs/performance.md). Here
the process's store commands share one connection: a command is queued, and
the commands queued while the event loop runs its ready greenlets go out
together in one write once they have all yielded (a writer greenlet, started
through the loop's callbacks, which run after the ready greenlets). Redis
answers a connection's commands in the order it read them, so one reader
greenlet hands the replies out in the order the commands were sent. The
commands are not a transaction: each runs alone, as on a connection of its
own, and an error reply fails only its own command.

A connection that fails (reset, closed, timed out) fails every command in
flight on it, and the next write opens a new one. A command that failed with
a connection error is sent again under the client's retry policy, as
`service.serving.leancall` does (the store's scripts are safe to repeat).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import gevent
from gevent.event import AsyncResult
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["PipelinedConnection", "gevent_is_patched"]


def gevent_is_patched() -> bool:
    """Whether this process's sockets are gevent's (gunicorn's gevent workers patch them)."""
    from gevent import monkey

    return bool(monkey.is_module_patched("socket"))


class _Link:
    """One opened connection and the replies it owes, in the order the commands went out."""

    __slots__ = ("conn", "owed", "reading")

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.owed: deque[AsyncResult] = deque()
        self.reading = False


class PipelinedConnection:
    """The store commands of one process's greenlets, pipelined on one connection
    (a forked child makes its own: `service.serving.leancall` does)."""

    def __init__(self, connection_class: type, settings: dict[str, Any]) -> None:
        self._connection_class = connection_class
        self._settings = settings
        first = connection_class(**settings)  # connects on its first write
        #: The client's retry policy, as its connections apply it.
        self._retry = first.retry
        self._link: _Link | None = _Link(first)
        self._queued: list[tuple[bytes, AsyncResult]] = []
        #: Whether a writer greenlet is started (one at a time writes on the socket).
        self._writing = False

    def call(self, packed: bytes) -> Any:
        """Send one packed command and return its raw reply; an error reply raises.

        A failed command is handed to the client's retry policy as its first
        attempt (the policy decides whether and when to send it again): the
        policy's own wrapper around every command took two Python calls and a
        closure each time (valgrind; docs/performance.md, "What a move costs",
        has the figures).
        """
        try:
            return self._round_trip(packed)
        except Exception as error:
            first: list[Exception] = [error]

            def attempt() -> Any:
                if first:
                    raise first.pop()
                return self._round_trip(packed)

            return self._retry.call_with_retry(attempt, _keep_going)

    def _round_trip(self, packed: bytes) -> Any:
        result = AsyncResult()
        self._queued.append((packed, result))
        if not self._writing:
            self._writing = True
            gevent.spawn(self._write)  # runs once the ready greenlets have yielded
        return result.get()

    def _write(self) -> None:
        try:
            while self._queued:
                queued, self._queued = self._queued, []
                self._send(queued)
        finally:
            self._writing = False

    def _send(self, queued: list[tuple[bytes, AsyncResult]]) -> None:
        link = self._link
        if link is None:
            link = self._link = _Link(self._connection_class(**self._settings))
        link.owed.extend([result for _, result in queued])  # before the write: replies may follow
        try:
            _write(link.conn, b"".join([packed for packed, _ in queued]))
        except Exception as error:
            self._fail(link, error)
            return
        except BaseException:  # this greenlet is killed: the commands may go again
            self._fail(link, _interrupted())
            raise
        if not link.reading:
            link.reading = True
            gevent.spawn(self._read, link)

    def _read(self, link: _Link) -> None:
        conn, owed = link.conn, link.owed
        try:
            while owed:
                try:
                    reply = conn.read_response()
                except ResponseError as error:
                    owed.popleft().set_exception(error)
                else:
                    owed.popleft().set(reply)
        except Exception as error:
            self._fail(link, error)
        except BaseException:  # this greenlet is killed: the commands may go again
            self._fail(link, _interrupted())
            raise
        finally:
            link.reading = False

    def _fail(self, link: _Link, error: BaseException) -> None:
        """Give up `link`: every command awaiting a reply on it fails with `error`."""
        if self._link is link:
            self._link = None
        link.conn.disconnect()
        while link.owed:
            link.owed.popleft().set_exception(error)

    def close(self) -> None:
        """Close the connection; commands awaiting a reply fail, the next one reconnects."""
        link = self._link
        if link is not None:
            self._fail(link, RedisConnectionError("the store was closed"))


def _write(conn: Any, data: bytes) -> None:
    """``conn.send_packed_command([data], check_health=False)``, with one plain
    ``send`` first: gevent's ``sendall`` asks the socket's buffer size
    (``getsockopt``, a system call) on every write before sending, and takes
    four Python calls to get there (strace -c of bench/wsgi_calls.py,
    docs/performance.md). Only what that one ``send`` left (a full socket
    buffer) goes through ``sendall``, which waits for the socket."""
    sock = conn._sock
    if sock is None:  # not connected: redis-py connects first
        conn.send_packed_command([data], check_health=False)
        return
    # redis-py's own handling of a failed write (send_packed_command).
    try:
        sent = sock.send(data)
        if sent < len(data):
            sock.sendall(memoryview(data)[sent:])
    except TimeoutError:  # socket.timeout
        conn.disconnect()
        raise RedisTimeoutError("Timeout writing to socket")  # noqa: B904 - as redis-py
    except OSError as e:
        conn.disconnect()
        if len(e.args) == 1:
            errno, errmsg = "UNKNOWN", e.args[0]
        else:
            errno, errmsg = e.args[0], e.args[1]
        raise RedisConnectionError(f"Error {errno} while writing to socket. {errmsg}.")  # noqa: B904
    except BaseException:
        conn.disconnect()
        raise


def _interrupted() -> RedisConnectionError:
    # A connection error, which the waiting commands' retry policy sends again.
    return RedisConnectionError("the pipelined connection was interrupted")


def _keep_going(_error: Exception) -> None:
    """Between retries: nothing to undo (a failed connection was already given up)."""
