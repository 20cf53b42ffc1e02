"""The service as operated: a 2-worker gunicorn on Redis, scraped, logged and rate limited.

One server for the module (deploy/gunicorn.conf.py, the production config).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.parser import text_string_to_metric_families

from tests.ops.webclient import Game, call
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer, find_free_port

# Each test starts a real gunicorn.
pytestmark = pytest.mark.slow

TOKEN_LIMIT = 60
MOVE_ROUTE = "/games/<string:game_id>/moves"


class Ops:
    """The running server, its metric files' directory, and every token it issued."""

    def __init__(self, server: GunicornServer, metrics_dir: Path) -> None:
        self.server = server
        self.metrics_dir = metrics_dir
        self.tokens: list[str] = []

    @property
    def url(self) -> str:
        return self.server.url

    def game(self, seed: int) -> Game:
        game = Game.create(self.url, seed)
        self.tokens += game.tokens
        return game

    def log_text(self) -> str:
        return self.server.log_tail(lines=1_000_000)

    def log_lines(self) -> list[dict[str, Any]]:
        """The JSON request lines the workers wrote."""
        lines = []
        for text in self.log_text().splitlines():
            if text.startswith("{"):
                lines.append(orjson.loads(text))
        return lines


def start_server(redis_server: RedisServer, metrics_dir: str, **env: str) -> Ops:
    """A 2-worker gunicorn on the test Redis, with its own key prefix."""
    settings = {
        "STORE_URL": redis_server.url,
        "STORE_PREFIX": f"ops{find_free_port()}",
        "PROMETHEUS_MULTIPROC_DIR": metrics_dir,
        "RATELIMIT_ENABLED": "true",
        "RATELIMIT_PER_TOKEN": f"{TOKEN_LIMIT}/60",
        "RATELIMIT_PER_ADDRESS": "100000/60",
        **env,
    }
    # A generous start-up time: the machine may be busy with other tests.
    return Ops(GunicornServer(settings, workers=2).start(timeout=90), Path(metrics_dir))


@pytest.fixture(scope="module")
def ops(redis_server: RedisServer) -> Iterator[Ops]:
    """The server for the log and rate-limit tests."""
    with tempfile.TemporaryDirectory(prefix="metrics-") as metrics_dir:
        running = start_server(redis_server, metrics_dir)
        try:
            yield running
        finally:
            running.server.stop()


@pytest.fixture
def recycling(redis_server: RedisServer) -> Iterator[Ops]:
    """A server whose workers are replaced every few requests (gunicorn
    --max-requests), so the moves are sure to be counted by several processes."""
    with tempfile.TemporaryDirectory(prefix="metrics-") as metrics_dir:
        running = start_server(redis_server, metrics_dir, GUNICORN_CMD_ARGS="--max-requests 12")
        try:
            yield running
        finally:
            running.server.stop()


#: Samples of a scrape by (name, labels).
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str) -> Samples:
    """Every sample of ``/metrics`` by (name, labels)."""
    answer = call(url, "GET", "/metrics")
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(answer.body.decode()):
        for s in family.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value, 0 when absent."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def moves_by_worker(metrics_dir: Path) -> dict[str, float]:
    """Applied-or-not moves each process counted, read from its own metric file."""
    counted: dict[str, float] = {}
    for path in metrics_dir.glob("counter_*.db"):
        pid = path.stem.split("_", 1)[1]
        for key, count, *_ in MmapedDict.read_all_values_from_file(str(path)):
            if json.loads(key)[1] == "rummy_moves_total" and count:
                counted[pid] = counted.get(pid, 0.0) + count
    return counted


def test_metrics_are_summed_across_workers(recycling: Ops) -> None:
    ops = recycling
    before = scrape(ops.url)
    games = [ops.game(seed) for seed in range(1, 5)]
    # Both workers, and the workers that replaced them, count moves. A gevent
    # worker past --max-requests notices it within a second, so a few rounds
    # (with pauses) may pass before a replacement serves.
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(20):
            list(pool.map(lambda game: game.play_turn(), games))
            per_worker = moves_by_worker(ops.metrics_dir)
            if len(per_worker) >= 3:
                break
            time.sleep(0.3)
    assert len(per_worker) >= 3, per_worker
    # One move refused by the rules, one refused as stale (If-Match).
    game = games[0]
    token = game.to_move()
    refused = game.move({"type": "discard", "card": "SK"}, token)
    assert refused.status == 409 and refused.json()["code"] == "must_draw_first"
    stale = game.move({"type": "draw", "source": "stock"}, token, {"If-Match": '"1"'})
    assert stale.status == 412
    # A game of bots only answers at once; what its request's budget leaves, the
    # runner process plays (its counts reach /metrics through the same directory).
    bots = call(ops.url, "POST", "/games", {"seats": [{"bot": "greedy"}, {"bot": "random"}]})
    assert bots.status == 201
    deadline = time.monotonic() + 120
    while call(ops.url, "GET", f"/games/{bots.json()['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the runner did not finish the bots' game"
        time.sleep(0.2)

    draws = sum(g.moves["draw"] for g in games)
    discards = sum(g.moves["discard"] for g in games)
    # Any worker may answer a scrape: every answer reports the whole server.
    for _ in range(6):
        after = scrape(ops.url)

        def delta(name: str, **labels: str) -> float:
            return value(after, name, **labels) - value(before, name, **labels)  # noqa: B023

        moves = "rummy_moves_total"
        assert delta(moves, type="draw", result="applied", code="") == draws
        assert delta(moves, type="discard", result="applied", code="") == discards
        assert delta(moves, type="discard", result="refused", code="must_draw_first") == 1
        assert delta(moves, type="draw", result="stale", code="") == 1
        assert delta("rummy_games_created_total") == len(games) + 1
        assert delta("rummy_games_finished_total") == 1
        requests = "rummy_http_request_duration_seconds_count"
        assert delta(requests, method="POST", route=MOVE_ROUTE, status="200") == draws + discards
        assert delta(requests, method="POST", route="/games", status="201") == len(games) + 1
        saves = "rummy_store_operation_duration_seconds_count"
        assert delta(saves, operation="save") >= draws + discards
        assert delta(saves, operation="load") >= draws + discards
        assert ("rummy_store_cas_conflicts_total", frozenset()) in after
    assert sum(per_worker.values()) <= draws + discards + 2


def test_a_move_is_logged_as_one_json_line_without_token(ops: Ops) -> None:
    game = ops.game(seed=11)
    token = game.to_move()
    seat = game.tokens.index(token)
    answer = game.move(
        {"type": "draw", "source": "stock"}, token, {"X-Request-ID": "ops-move-0001"}
    )
    assert answer.status == 200
    assert answer.headers["x-request-id"] == "ops-move-0001"
    generated = call(ops.url, "GET", f"/games/{game.id}").headers["x-request-id"]

    lines = ops.log_lines()
    (line,) = [line for line in lines if line["request_id"] == "ops-move-0001"]
    assert line["method"] == "POST"
    assert line["route"] == MOVE_ROUTE
    assert line["path"] == f"/games/{game.id}/moves"
    assert line["status"] == 200
    assert line["duration_ms"] > 0
    assert line["game_id"] == game.id
    assert line["seat"] == seat
    assert line["move_type"] == "draw"
    assert any(line["request_id"] == generated for line in lines)
    # No token issued by this server appears anywhere in its output.
    text = ops.log_text()
    assert ops.tokens
    for issued in ops.tokens:
        assert issued not in text


def test_a_client_past_its_limit_gets_429_with_retry_after(ops: Ops) -> None:
    game = ops.game(seed=21)
    token = game.tokens[0]
    # Counted in Redis across both workers. A window may end mid-burst, so
    # up to two windows' worth of requests may be needed.
    statuses = []
    for _ in range(2 * TOKEN_LIMIT + 2):
        answer = call(ops.url, "GET", f"/games/{game.id}", token=token)
        statuses.append(answer.status)
        if answer.status == 429:
            break
    assert statuses[-1] == 429, statuses
    assert set(statuses[:-1]) == {200}
    assert len(statuses) > TOKEN_LIMIT
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "rate_limited"
    assert 1 <= int(answer.headers["retry-after"]) <= 60
    # The other seat's token, the probes and the metrics still answer.
    assert call(ops.url, "GET", f"/games/{game.id}", token=game.tokens[1]).status == 200
    assert call(ops.url, "GET", "/healthz").status == 200
    limited = value(scrape(ops.url), "rummy_rate_limited_total", scope="token")
    assert limited >= 1
