"""No view and no event ever shows a card of another hand, the stock order, the seed
or a secret before its round (or game) is over.

At least 200 random games over HTTP (every preset, 2 to 6 seats, people and bots);
after every move, the mover's answer, another seat's view, the public view and
the events of a seat are checked against the full state read from the store,
and every few moves a seat's record of the game (`GET /games/{id}/record`).
"""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from service.rules.state import GameState, decode_state
from tests.e2e.http import Client
from tests.robustness.cards import (
    assert_all_cards_accounted_for,
    assert_event_hides_what_it_must,
    assert_no_secret_shows,
    assert_record_hides_what_it_must,
    assert_view_hides_what_it_must,
)
from tests.robustness.conftest import Live

pytestmark = pytest.mark.slow

GAMES = 200
#: Moves of people per game: enough to cross draws, melds, lay-offs and, with
#: the bots' help, round ends; the games that end sooner are finished games.
MOVES_PER_GAME = 14
PLAYERS = 4


def _check_events(
    client: Client, live: Live, game: str, token: str | None, seat: int | None
) -> None:
    seen = client.get(f"/games/{game}/events?after=0", token).json["events"]
    raw = {event["seq"]: event for event in live.events(game)}
    assert [event["seq"] for event in seen] == sorted(raw)
    for event in seen:
        assert_event_hides_what_it_must(event, raw[event["seq"]], seat)
    assert_no_secret_shows(seen, live.state(game))


def _check_record(
    client: Client, live: Live, game: str, token: str | None, seat: int | None
) -> None:
    """A seat's record of the game (or the public one), while it runs: nothing of
    another hand or of the stock, `known_cards` allowed (docs/records.md)."""
    for _ in range(50):
        record = client.get(f"/games/{game}/record", token).json
        loaded = live.store.load(game)
        if loaded.version == record["version"]:
            break
    else:
        raise AssertionError(f"game {game} kept moving under 50 reads")
    state = decode_state(loaded.state)
    if state.status == "finished":
        return  # over: every card is public now
    raw = live.events(game)
    assert_record_hides_what_it_must(record, raw, state, seat, same_version=True)


def view_and_state(
    live: Live, client: Client, game: str, token: str | None
) -> tuple[dict[str, Any], GameState]:
    """A view of the game and the stored state at the view's version: the runner may
    play a bot between the two reads, so they are read again until they agree."""
    for _ in range(50):
        view: dict[str, Any] = client.get(f"/games/{game}", token).json
        loaded = live.store.load(game)
        if loaded.version == view["version"]:
            return view, decode_state(loaded.state)
    raise AssertionError(f"game {game} kept moving under 50 reads")


def _play(live: Live, number: int, presets: dict[str, tuple[int, int]]) -> dict[str, int]:
    rng = random.Random(number)
    client = Client(live.url)
    preset = sorted(presets)[number % len(presets)]
    low, high = presets[preset]
    seats_count = rng.randint(low, min(high, 6))
    people = rng.randint(1, seats_count)
    seats: list[dict[str, Any]] = [{"name": f"P{i}"} for i in range(people)]
    seats += [{"bot": rng.choice(["random", "greedy"])} for _ in range(seats_count - people)]
    rng.shuffle(seats)
    # Half the games are dealt at random (committed secrets), half from a seed.
    fixed = {"seed": number} if number % 2 else {}
    created = client.post("/games", {"preset": preset, "seats": seats, **fixed})
    assert created.status == 201, created
    game = created.json["id"]
    tokens = {s["seat"]: s["token"] for s in created.json["seats"] if "token" in s}
    moves = 0
    for _step in range(MOVES_PER_GAME):
        state = live.state(game)
        assert_all_cards_accounted_for(state)
        if state.status != "active" or state.round is None:
            break
        mover = state.round.turn
        if mover not in tokens:  # the request's bot budget ran out: the runner plays on
            time.sleep(0.05)
            continue
        legal = client.get(f"/games/{game}/legal-moves", tokens[mover]).json["moves"]
        answer = client.post(f"/games/{game}/moves", rng.choice(legal), tokens[mover])
        assert answer.status == 200, answer
        moves += 1
        loaded = live.store.load(game)
        if loaded.version == answer.json["version"]:  # else the runner played on since
            assert_view_hides_what_it_must(answer.json, decode_state(loaded.state), mover)
        other = rng.choice(sorted(tokens))
        assert_view_hides_what_it_must(*view_and_state(live, client, game, tokens[other]), other)
        assert_view_hides_what_it_must(*view_and_state(live, client, game, None), None)
        if _step % 5 == 4:
            _check_record(client, live, game, tokens[other], other)
    viewer = rng.choice([None, *sorted(tokens)])
    _check_events(client, live, game, tokens.get(viewer) if viewer is not None else None, viewer)
    client.close()
    return {"moves": moves, "finished": int(live.state(game).status == "finished")}


def test_random_games_never_leak_a_hidden_card(live: Live) -> None:
    presets = {
        p["name"]: tuple(p["options"]["players"])
        for p in Client(live.url).get("/presets").json["presets"]
    }
    with ThreadPoolExecutor(PLAYERS) as pool:
        results = list(pool.map(lambda n: _play(live, n, presets), range(GAMES)))
    assert len(results) == GAMES
    assert sum(r["moves"] for r in results) > GAMES * 5
