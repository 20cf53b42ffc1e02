"""Commands of the store's hot path, without redis-py's per-command machinery.

`redis.Redis.execute_command` wraps every command in observability hooks,
event dispatch, deprecation checks, a retry closure and response callbacks,
and its connection pool does bookkeeping on every checkout and return: in
profiles of a move (two ``EVALSHA``) that took about a quarter of the app's
CPU, against a few percent for the socket work itself. A game's load and its
compare-and-set go through `LeanConnections` instead: connections made with
the client's own settings (address, timeouts, TLS, retry policy), kept on a
free list, and the reply as the server sent it (the store's commands need no
response callback). A cluster client is left to redis-py, which routes each
command to its slot's node.

With hiredis installed (the default install), a command is packed by
`hiredis.pack_command` at once: what redis-py's own packer does, less its
per-argument conversion pass (most of the packing's time for a save;
docs/performance.md, "What a move costs", has the figures).

In a gevent worker (sockets patched) the commands take one shared, pipelined
connection instead (`service.serving.pipelining`), unless built with
``pipelining=False``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol, cast

import redis
from redis.commands.core import Script
from redis.exceptions import NoScriptError, ResponseError
from redis.typing import EncodableT
from redis.utils import HIREDIS_AVAILABLE

from service.serving.pipelining import PipelinedConnection, gevent_is_patched

#: This process's id, kept by a fork hook: `os.getpid` is a system call, and the
#: fork check ran it on every command (two a move), which wall-clock time pays and
#: valgrind does not count (strace -c of bench/wsgi_calls.py, docs/performance.md).
#: A child made by `os.fork` (gunicorn's workers, multiprocessing) runs the hook.
_PID = os.getpid()


def _forked_child() -> None:
    global _PID
    _PID = os.getpid()


os.register_at_fork(after_in_child=_forked_child)

if HIREDIS_AVAILABLE:
    from hiredis import pack_command as _hiredis_pack

    from service.store.scriptpack import ScriptPacker

__all__ = ["ClientCommands", "Commands", "LeanConnections"]


class Commands(Protocol):
    """How the store sends its hot commands: one object, picked when it connects."""

    def call(self, *command: EncodableT) -> Any:
        """Send ``command``; its reply (an error reply raises)."""

    def run_script(
        self, script: Script, keys: Sequence[Any], args: Sequence[Any], leading: int = 0
    ) -> Any:
        """Run ``script`` (``EVALSHA``, or ``EVAL`` when the server lacks it); its
        first ``leading`` arguments tend to repeat from call to call."""

    def close(self) -> None:
        """Close what this object opened."""


class ClientCommands:
    """`Commands` through a redis-py client's own machinery: for a cluster client,
    which routes each command to its slot's node."""

    def __init__(self, client: redis.Redis | redis.RedisCluster) -> None:
        self._client = client

    def call(self, *command: EncodableT) -> Any:
        """``client.execute_command(*command)`` (with its response callbacks)."""
        return self._client.execute_command(*command)  # type: ignore[no-untyped-call]

    def run_script(
        self, script: Script, keys: Sequence[Any], args: Sequence[Any], leading: int = 0
    ) -> Any:
        """``script(keys=keys, args=args)`` (``leading`` makes no difference here)."""
        return script(keys=keys, args=args)

    def close(self) -> None:
        """Nothing: the client's pools belong to the client."""


class LeanConnections:
    """Connections to the server of one `redis.Redis` client, one per command in flight."""

    def __init__(self, client: redis.Redis, *, pipelining: bool = True) -> None:
        pool = client.connection_pool
        self._connection_class = pool.connection_class
        self._settings = dict(pool.connection_kwargs)
        #: redis-py packs with hiredis too, unless the client names its own packer.
        hiredis = HIREDIS_AVAILABLE and self._settings.get("command_packer") is None
        self._send = _send_and_read_hiredis if hiredis else _send_and_read
        self._pack = _pack_hiredis if hiredis else _pack_redis_py
        #: Packs the scripts' calls with their heads kept (hiredis only).
        self._scripts: ScriptPacker | None = ScriptPacker() if hiredis else None
        #: Packs the pipeline's commands (never connected).
        self._packer = self._connection_class(**self._settings)
        self._idle: list[Any] = []
        #: Free connections of `run_script_then` (a longer socket timeout).
        self._waiting_idle: list[Any] = []
        self._made: list[Any] = []
        self._pid = _PID
        #: Bumped by `close`: a connection taken before is closed, not kept.
        self._generation = 0
        self._pipelining = pipelining
        self._pipeline = self._pipeline_here()

    def _pipeline_here(self) -> PipelinedConnection | None:
        """This process's pipelined connection, if it is to have one (a gevent worker)."""
        if self._pipelining and gevent_is_patched():
            return PipelinedConnection(self._connection_class, self._settings)
        return None

    @property
    def pipelined(self) -> bool:
        """Whether this process's commands share one pipelined connection."""
        if self._pid != _PID:
            self._forked()
        return self._pipeline is not None

    def _forked(self) -> None:
        # A forked child must not share the parent's sockets (and a gunicorn
        # worker patches its sockets after the fork).
        self._idle, self._made, self._pid = [], [], _PID
        self._waiting_idle = []
        self._pipeline = self._pipeline_here()

    def call(self, *command: EncodableT) -> Any:
        """Send ``command`` and return its raw reply; an error reply raises.

        A dropped connection is reopened and the command sent again under the
        client's retry policy (the store's scripts are safe to repeat).
        """
        if self._pid != _PID:
            self._forked()
        if self._pipeline is not None:
            return self._pipeline.call(self._pack(self._packer, command))
        return self._direct(self._send, command)

    def _direct(self, send: Any, payload: Any) -> Any:
        """``send(conn, payload)`` on a free connection of this process, and its reply."""
        generation = self._generation
        try:
            conn = self._idle.pop()
        except IndexError:
            conn = self._connection_class(**self._settings)
            self._made.append(conn)
        try:
            return conn.retry.call_with_retry(
                lambda: send(conn, payload), lambda _error: conn.disconnect()
            )
        except ResponseError:
            raise  # a whole error reply was read: the connection is clean
        except BaseException:
            conn.disconnect()  # a reply may be half read: start afresh next time
            raise
        finally:
            if generation == self._generation:
                self._idle.append(conn)
            else:
                conn.disconnect()  # closed while this command was in flight

    def run_script(
        self, script: Script, keys: Sequence[Any], args: Sequence[Any], leading: int = 0
    ) -> Any:
        """``script(keys=keys, args=args)``: one ``EVALSHA`` (``EVAL`` when the server
        has not cached the script, as after a restart or ``SCRIPT FLUSH``); the
        first ``leading`` arguments are packed with the kept head (`ScriptPacker`)."""
        try:
            scripts = self._scripts
            packed = None if scripts is None else scripts.pack(script.sha, keys, args, leading)
            if packed is None:
                return self.call("EVALSHA", script.sha, len(keys), *keys, *args)
            if self._pid != _PID:
                self._forked()
            if self._pipeline is not None:
                return self._pipeline.call(packed)
            return self._direct(_send_packed, packed)
        except NoScriptError:
            return self.call("EVAL", script.script, len(keys), *keys, *args)

    def run_script_then(
        self,
        script: Script,
        keys: Sequence[Any],
        args: Sequence[Any],
        then: Sequence[EncodableT],
        extra_timeout: float,
    ) -> tuple[Any, Any]:
        """``script`` (as `run_script`) and then the command ``then``, in one write
        on one connection of their own, and both replies (the script's error
        reply, as an exception object, in place of its reply).

        For a ``WAIT`` after a save: it waits for the writes of its own
        connection, and it blocks that connection until answered, so never on
        the shared pipelined one. Its connections' socket timeout is
        ``extra_timeout`` s longer (the longest the command may block)."""
        if self._pid != _PID:
            self._forked()
        then_packed = self._pack(self._packer, tuple(then))
        script_packed = self._pack(self._packer, ("EVALSHA", script.sha, len(keys), *keys, *args))
        try:
            return self._waiting(script_packed + then_packed, extra_timeout)
        except NoScriptError:
            script_packed = self._pack(
                self._packer, ("EVAL", script.script, len(keys), *keys, *args)
            )
            return self._waiting(script_packed + then_packed, extra_timeout)

    def _waiting(self, packed: bytes, extra_timeout: float) -> tuple[Any, Any]:
        """`run_script_then`'s round trip on a free connection of its own kind."""
        generation = self._generation
        try:
            conn = self._waiting_idle.pop()
        except IndexError:
            settings = dict(self._settings)
            settings["socket_timeout"] = (settings.get("socket_timeout") or 1.0) + extra_timeout
            conn = self._connection_class(**settings)
            self._made.append(conn)
        try:
            first, second = conn.retry.call_with_retry(
                lambda: _send_packed_read_two(conn, packed), lambda _error: conn.disconnect()
            )
        except BaseException:
            conn.disconnect()  # a reply may be half read: start afresh next time
            raise
        finally:
            if generation == self._generation:
                self._waiting_idle.append(conn)
            else:
                conn.disconnect()  # closed while this command was in flight
        if isinstance(first, ResponseError):
            raise first  # both replies were read: the connection is clean
        return first, second

    def close(self) -> None:
        """Close every connection made here (a later call opens new ones)."""
        self._generation += 1
        if self._pipeline is not None:
            self._pipeline.close()
        made, self._made, self._idle, self._waiting_idle = self._made, [], [], []
        for conn in made:
            conn.disconnect()


def _send_and_read(conn: Any, command: Sequence[EncodableT]) -> Any:
    conn.send_packed_command(conn.pack_command(*command))
    return cast(Any, conn.read_response())


def _send_packed_read_two(conn: Any, packed: bytes) -> tuple[Any, Any]:
    """Send two packed commands; their two replies (the first's error reply as
    an exception object: the second reply must be read all the same)."""
    conn.send_packed_command([packed])
    try:
        first = conn.read_response()
    except ResponseError as error:
        first = error
    return first, conn.read_response()


def _send_packed(conn: Any, packed: bytes) -> Any:
    conn.send_packed_command([packed])
    return cast(Any, conn.read_response())


def _send_and_read_hiredis(conn: Any, command: Sequence[EncodableT]) -> Any:
    conn.send_packed_command([_pack_hiredis(conn, command)])
    return cast(Any, conn.read_response())


def _pack_redis_py(conn: Any, command: Sequence[EncodableT]) -> bytes:
    return b"".join(conn.pack_command(*command))


def _pack_hiredis(conn: Any, command: Sequence[EncodableT]) -> bytes:
    # The store's commands are one word and their arguments str, bytes or int,
    # which redis-py would hand to hiredis unchanged; anything else (a
    # bytearray, an unsupported type) takes redis-py's way, and its errors.
    # No `typing.cast` (a call of its own): two commands a move come here.
    arguments: Any = command if type(command) is tuple else tuple(command)
    try:
        packed: bytes = _hiredis_pack(arguments)
        return packed
    except TypeError:
        return _pack_redis_py(conn, command)
