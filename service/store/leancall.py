"""One Redis command on a pooled connection, without redis-py's per-command machinery.

`redis.Redis.execute_command` wraps every command in observability hooks,
event dispatch, a retry closure and response callbacks: in profiles of a
move (two ``EVALSHA``) that machinery took about a fifth of the app's CPU,
against a few percent for the socket work itself. The hot path of the store
(a game's load and its compare-and-set) sends its command here instead:
same pool, same connection retry policy, reply as the server sent it (no
response callback; the store's commands need none). A cluster client is
left to redis-py, which routes the command to its slot's node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import redis
from redis.commands.core import Script
from redis.connection import AbstractConnection
from redis.exceptions import NoScriptError
from redis.typing import EncodableT

__all__ = ["call", "run_script"]


def call(client: redis.Redis, *command: EncodableT) -> Any:
    """Send ``command`` and return its raw reply; an error reply raises."""
    pool = client.connection_pool
    conn = pool.get_connection()
    try:
        return conn.retry.call_with_retry(
            lambda: _send_and_read(conn, command),
            lambda _error: cast(Any, conn).disconnect(),
        )
    finally:
        pool.release(conn)


def run_script(client: Any, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:
    """``script(keys=keys, args=args)``: one ``EVALSHA`` (``EVAL`` when the server
    has not cached the script, as after a restart or ``SCRIPT FLUSH``)."""
    if type(client) is not redis.Redis:
        return script(keys=keys, args=args)
    try:
        return call(client, "EVALSHA", script.sha, len(keys), *keys, *args)
    except NoScriptError:
        return call(client, "EVAL", script.script, len(keys), *keys, *args)


def _send_and_read(conn: AbstractConnection, command: Sequence[EncodableT]) -> Any:
    cast(Any, conn).send_command(*command)  # untyped in redis-py
    return conn.read_response()
