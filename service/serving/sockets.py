"""The client's socket under gunicorn's gevent worker, past gevent's socket
class: the plain socket it wraps (its ``_sock``, checked on the version
`versions.py` names), for a send that never waits and a peek that tells a
client that hung up."""

from __future__ import annotations

import _socket
import socket
from collections.abc import Callable
from typing import Any

__all__ = ["client_gone", "nonblocking_send", "pushable_socket"]


def pushable_socket(environ: dict[str, Any]) -> Any | None:
    """The client's socket, when the stream may be written to it directly: a GET
    over HTTP/1.1 served by gunicorn's gevent worker on a plain socket."""
    sock = environ.get("gunicorn.socket")
    if sock is None or environ.get("REQUEST_METHOD") != "GET":
        return None
    if environ.get("SERVER_PROTOCOL") != "HTTP/1.1":
        return None  # HTTP/1.0: gunicorn sends the body unframed
    try:
        from gevent import socket as gevent_socket
    except ImportError:  # pragma: no cover - gevent is a dependency
        return None
    # Exactly gevent's plain socket: not TLS (whose partial writes differ), not a sync worker's.
    return sock if type(sock) is gevent_socket.socket else None


def nonblocking_send(sock: Any) -> Callable[[bytes], int]:
    """A ``send`` on `sock` that never waits: returns the bytes sent (maybe fewer
    than given) or raises ``BlockingIOError`` when the socket has no room.

    For gevent's socket, the plain socket it wraps (gevent keeps that one
    non-blocking): gevent's own ``send`` is one more Python call per stream and
    save around the same system call (`bench.push_calls`, docs/performance.md,
    "Open event streams"). Once gevent's socket is closed, the plain one is too,
    and a send fails (``EBADF``) instead of reaching another connection."""
    raw = getattr(sock, "_sock", None)
    if isinstance(raw, _socket.socket) and raw.gettimeout() == 0.0:
        return raw.send
    return lambda data: int(sock.send(data, 0, 0.0))  # gevent's: timeout 0, never waits


def client_gone(environ: dict[str, Any]) -> bool:
    """Whether the client of a request served by gunicorn closed its connection
    (a peek at the socket that never waits: an orderly close or a reset reads
    as gone, data or nothing yet as still there). ``False`` where it cannot be
    told (no plain socket, as under the test client or TLS)."""
    sock = environ.get("gunicorn.socket")
    if sock is None or hasattr(sock, "getpeercert"):  # none, or TLS (its records)
        return False
    # gevent's socket wraps a plain one (of a subclass of `_socket.socket`; the
    # name `socket.socket` is gevent's own class once patched).
    raw = getattr(sock, "_sock", sock)
    if not isinstance(raw, _socket.socket):
        return False
    try:
        return raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True  # reset, or closed under us
