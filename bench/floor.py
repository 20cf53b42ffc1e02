"""The floor of a move under the production gunicorn config: a bare Flask app.

`bench.http` serves this app with ``deploy/gunicorn.conf.py`` (same worker
class and garbage-collector settings as the service) and measures,
in the same run as the service's phases:

- ``GET /healthz``: a constant JSON answer (this app's ``hello``);
- ``POST /floor/<key>``: the least a move can do: one ``HMGET`` of a stored
  4-player game state and its version, ``orjson`` decode, a trivial change,
  ``orjson`` encode, and one Lua compare-and-set on the version; the answer is
  the new state document. No flask-smorest, no schemas, no request log,
  metrics, rate limiting, authentication or rules: the ratio of the two is
  how fast a move could be against ``hello`` if it did nothing else.

Plain redis-py calls (``hmget`` and a registered script), as a minimal
implementation would write them. The keys are written by `seed` before the
phase, each holding a real encoded state.
"""

from __future__ import annotations

import os
from typing import Any

import orjson
import redis
from flask import Flask, Response, request

#: Keys of the floor's documents: ``floor:{<n>}``.
PREFIX = "floor:"

CAS_SCRIPT = """
-- KEYS[1] the document's hash; ARGV[1] expected version, ARGV[2] new state
if redis.call('HMGET', KEYS[1], 'version')[1] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'version', tonumber(ARGV[1]) + 1)
return 1
"""

app = Flask(__name__)
_client = redis.Redis.from_url(os.environ.get("STORE_URL", "redis://127.0.0.1:6379/0"))
_cas = _client.register_script(CAS_SCRIPT)


def seed(client: redis.Redis, count: int, state: bytes) -> list[str]:
    """Write `count` documents holding `state` at version 1; their request paths."""
    pipe = client.pipeline(transaction=False)
    for n in range(count):
        pipe.hset(f"{PREFIX}{{{n}}}", mapping={"state": state, "version": 1})
    pipe.execute()
    return [f"/floor/{n}" for n in range(count)]


@app.get("/healthz")
def hello() -> Response:
    """A constant JSON answer."""
    return Response(b'{"status":"ok"}', mimetype="application/json")


@app.post("/floor/<int:n>")
def move(n: int) -> Any:
    """Read, decode, change, encode and compare-and-set one document."""
    request.get_data()  # the move's body is read, as a real move's would be
    key = f"{PREFIX}{{{n}}}"
    for _attempt in range(5):
        state, version = _client.hmget(key, ["state", "version"])
        if state is None or version is None:
            return Response(b'{"error":"no such document"}', 404, mimetype="application/json")
        doc = orjson.loads(state)
        doc[-1] += 1  # the state's step counter
        body = orjson.dumps(doc)
        if _cas(keys=[key], args=[int(version), body]) == 1:
            return Response(body, mimetype="application/json")
    return Response(b'{"error":"busy"}', 503, mimetype="application/json")
