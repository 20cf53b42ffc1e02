"""The bot kit sends a random `client_seed` by default when it takes a seat, and
checks the game shows it (docs/fairness.md); over HTTP against the app."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from werkzeug.serving import make_server

from service.app import create_app, shutdown
from service.bots import client as bot_client
from service.bots.client import ClientError, join_seat
from service.bots.http import Answer, Api, new_client_seed, seed_used
from service.config import TestConfig
from service.rules.fairness import CLIENT_SEED_PATTERN, round_secret


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    app = create_app(replace(TestConfig(), ACCESS_LOG=False))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    shutdown(app)


def _open_game(url: str, seats: int = 3) -> str:
    created = Api(url).post(
        "/games",
        {"preset": "express", "seats": [{"bot": "greedy"}] + [{"name": None}] * (seats - 1)},
    )
    assert created.status == 201, created.body
    return str(created.body["id"])


def test_a_new_client_seed_is_random_and_acceptable() -> None:
    seeds = {new_client_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(re.fullmatch(CLIENT_SEED_PATTERN, seed) and len(seed) == 32 for seed in seeds)


def test_joining_sends_a_random_client_seed_the_game_then_shows(service_url: str) -> None:
    game = _open_game(service_url)
    first = join_seat(service_url, game, "Botty")
    second = join_seat(service_url, game, "Other", client_seed="chosen-seed")
    views = [Api(service_url, token).get(f"/games/{game}").body for token in (first, second)]
    mine, theirs = views[0]["seats"][views[0]["you"]], views[1]["seats"][views[1]["you"]]
    assert re.fullmatch(CLIENT_SEED_PATTERN, mine["client_seed"]) and len(mine["client_seed"]) == 32
    assert theirs["client_seed"] == "chosen-seed"
    # Every seat's seed goes into the round's secret: a different seed, another deal.
    seeds = [seat["client_seed"] for seat in views[0]["seats"]]
    assert seeds[0] is None and None not in seeds[1:]
    assert round_secret(bytes(32), 1, seeds) != round_secret(bytes(32), 1, [None, None, None])


def test_a_join_whose_seed_the_game_does_not_show_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown = {"seat": 1, "token": "t", "game": {"seats": [{}, {"client_seed": "someone-else"}]}}
    monkeypatch.setattr(Api, "join", lambda *args, **kw: Answer(201, {}, shown))
    with pytest.raises(ClientError, match="client_seed"):
        join_seat("http://127.0.0.1:9", "g", "Botty")
    assert not seed_used(shown["game"], 1, "mine") and seed_used(shown["game"], 1, "someone-else")


def test_the_command_joins_with_a_random_seed(
    service_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _open_game(service_url, seats=2)
    played: list[str | None] = []

    def play(self: bot_client.BotClient) -> dict[str, object]:
        played.append(self.api.token)
        return {"you": 1, "winners": None}

    monkeypatch.setattr(bot_client.BotClient, "play", play)
    assert bot_client.main(["--url", service_url, "--game", game, "--join", "Botty"]) == 0
    view = Api(service_url, played[0]).get(f"/games/{game}").body
    assert len(view["seats"][1]["client_seed"]) == 32
