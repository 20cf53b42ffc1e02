"""A fair runner (real gunicorn + redis-server + the runner process).

- 40 games of expert bots only from one client once delayed another client's
  5 s turn clock by 34 s: the runner advanced games first in, first out, up to
  a second each. Now due clocks are claimed before bot games and owners take
  turns, so the clock is played within one slice of its deadline.
- A Redis hiccup once stalled every claimed game for the 30 s lease; now a
  runner gives its claims back at once (as soon as Redis answers again).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from datetime import datetime
from typing import Any

import pytest

from tests.security.conftest import RedisFactory, ServeFactory
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow

#: Clients told apart by the address a trusted proxy forwards (one hop).
ATTACKER = {"X-Forwarded-For": "198.51.100.7"}
VICTIM = {"X-Forwarded-For": "203.0.113.9"}
#: One proxy in front; the attack as filed is 40 bot games, past a bot-game
#: quota (where one is set) that is raised here: it is the runner under test.
ENV = {"RATELIMIT_PROXY_HOPS": "1", "QUOTA_BOT_GAMES": "40", "QUOTA_ACTIVE_GAMES": "100"}


def call(
    server: GunicornServer,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One request; the status and the JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.url + path,
        data=data,
        method=method,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def when(text: str) -> float:
    """Epoch seconds of an RFC 3339 time of the API."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def bot_games(
    server: GunicornServer, count: int, options: dict[str, Any] | None = None
) -> list[str]:
    """``count`` games of four expert bots, created by the attacker."""
    body = {"preset": "standard", "options": options or {}, "seats": [{"bot": "expert"}] * 4}
    games = []
    for _ in range(count):
        status, created = call(server, "POST", "/games", body, ATTACKER)
        assert status == 201, created
        games.append(created["id"])
    return games


def test_forty_bot_games_of_one_client_do_not_hold_up_another_clients_turn_clock(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    server = serve(redis_factory(), ENV, workers=1)
    bot_games(server, 40)
    body = {
        "preset": "standard",
        "options": {"turn_seconds": 5},
        "seats": [{"name": "Ann"}, {"name": "Bob"}],
    }
    status, created = call(server, "POST", "/games", body, VICTIM)
    assert status == 201, created
    game = created["id"]
    _, view = call(server, "GET", f"/games/{game}")
    deadline = when(view["turn_deadline"])
    # Nobody moves: the runner plays the timed-out turn (a draw, then a discard).
    while True:
        _, found = call(server, "GET", f"/games/{game}/events?after=0")
        played = [e for e in found["events"] if e["type"] == "drew"]
        if played:
            break
        assert time.time() < deadline + 10, "the timeout was not played within 10 s"
        time.sleep(0.1)
    late = when(played[0]["at"]) - deadline
    assert 0 <= late <= 2.0, f"the clock was played {late:.2f} s after its deadline"


def diagnose(server: GunicornServer, redis: Any) -> str:
    """What a failure shows: the runner's state, the queue of due games, each
    game's entry and version, and the server's log."""
    client = redis.client()
    out = [f"runner exit: {server.runner_process and server.runner_process.poll()}"]
    for key in client.keys("*"):
        kind = client.type(key)
        if kind == b"zset":
            out.append(f"{key!r}: {client.zrange(key, 0, -1, withscores=True)}")
        elif kind == b"hash" and b"due" in key:
            out.append(f"{key!r}: {client.hgetall(key)}")
        elif kind == b"hash":
            entry, version = client.hmget(key, "due", "version")
            out.append(f"{key!r}: due={entry!r} version={version!r}")
            game = key.decode().split("{")[1].split("}")[0]
            _, view = call(server, "GET", f"/games/{game}")
            round_ = view.get("round") or {}
            out.append(
                f"  view: {view.get('status')} round {round_.get('number')} turn "
                f"{round_.get('turn')} {round_.get('phase')} rounds {len(view.get('rounds', []))}"
            )
            _, found = call(server, "GET", f"/games/{game}/events?after=0")
            out.append(f"  last events: {[e['type'] for e in found['events'][-8:]]}")
    out.append(f"now: {int(time.time() * 1000)} ms")
    return "\n".join(out) + "\n" + server.log_tail(60)


def test_a_redis_hiccup_does_not_stall_the_runners_claims_for_their_lease(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    redis = redis_factory()
    # A long lease, so that a game the runner gave back (resumed within a
    # fraction of it) is told apart from one whose lease ran out, however busy
    # the machine.
    lease = 120.0
    server = serve(redis, {**ENV, "RUNNER_LEASE": str(lease), "LOG_LEVEL": "INFO"}, workers=1)
    # The runner holds its claim nearly all the time. Fifty rounds: four experts
    # play a game to 200 in a second or two, the creating request's budget and
    # a slice or two; this one outlasts the test.
    (game,) = bot_games(server, 1, {"end": "rounds", "rounds": 50})
    version = 0
    # Until the runner advances it (each advance: a 1 s slice); the runner process
    # may take a while to start on a busy machine.
    started = time.monotonic()
    while time.monotonic() - started < 60:
        _, view = call(server, "GET", f"/games/{game}")
        version = view["version"]
        if version >= 3:
            break
        time.sleep(0.1)
    assert version >= 3, f"the runner is not advancing the game:\n{diagnose(server, redis)}"
    # Writes held for 2.5 s: the slice's save times out (1 s) while the claim is
    # held, then the runner's first attempt to give it back too.
    redis.client().execute_command("CLIENT", "PAUSE", 2500, "WRITE")
    time.sleep(2.5)
    thawed = time.monotonic()
    _, view = call(server, "GET", f"/games/{game}")
    before = view["version"]
    while view["version"] == before:
        assert view["status"] == "active", "the game ended: it cannot show the runner resume"
        # Given back and claimed again: advanced a slice or so later, not after
        # the lease.
        assert time.monotonic() - thawed < lease / 4, diagnose(server, redis)
        time.sleep(0.1)
        _, view = call(server, "GET", f"/games/{game}")
    assert "released 1 of 1 claims" in server.log_tail(200), server.log_tail(40)
