"""Bounded work per request: no request can hold a worker (real gunicorn + redis-server
+ the runner process).

- A game of bots only with the largest target once ran inside `POST /games`
  until gunicorn killed the worker; now the request plays a bounded number of
  bot moves, answers `201` `active`, and the runner process finishes the game
  while the worker keeps answering.
- Options past their upper bound (or padded) are refused with a 422 naming
  the option.
- The costliest hand the bounds allow lists its moves (at most a known number)
  and has its moves validated (bench/worst_case.py measures the time).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

import pytest

from service.config import Config
from service.rules.cards import build_deck
from service.rules.options import MAX_FIRST_MELD_POINTS, MAX_ROUNDS, MAX_TARGET_SCORE
from tests.security.conftest import RedisFactory, ServeFactory
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow


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


def test_a_game_of_bots_to_the_largest_target_answers_at_once_and_the_runner_finishes_it(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    server = serve(redis_factory(), workers=1)  # one worker: it must stay free
    body = {
        "preset": "standard",
        "options": {"target_score": MAX_TARGET_SCORE},
        "seats": [{"bot": "greedy"}, {"bot": "greedy"}],
    }
    status, created = call(server, "POST", "/games", body)
    assert status == 201 and created["status"] == "active"
    game = created["id"]
    _, events = call(server, "GET", f"/games/{game}/events?after=0")
    bot_moves = sum(e["type"] in ("drew", "discarded") for e in events["events"])
    assert bot_moves <= Config().BOT_MOVES_PER_REQUEST  # the request's budget

    versions = []
    deadline = time.monotonic() + 600
    while True:
        # The worker answers throughout, while the runner process plays the game.
        assert call(server, "GET", "/healthz")[0] == 200
        status, view = call(server, "GET", f"/games/{game}")
        assert status == 200
        versions.append(view["version"])
        if view["status"] == "finished":
            break
        assert time.monotonic() < deadline, "the runner did not finish the game"
        time.sleep(0.2)
    assert view["winners"] and max(s["score"] for s in view["seats"]) >= MAX_TARGET_SCORE
    assert len(set(versions)) > 1  # saved by the runner, in several advances


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"target_score": 10**15}, "target_score"),
        ({"target_score": {"2": 10**15}}, "target_score"),
        ({"end": "rounds", "rounds": MAX_ROUNDS + 1}, "rounds"),
        ({"concealed_rounds": [1] * 9000}, "concealed_rounds"),
        ({"hand_size": 22, "concealed_rounds": [1]}, "hand_size"),
        ({"first_meld_min_points": 500, "hand_size": 30}, "first_meld_min_points"),
        ({"ace": "x" * 5000}, "ace"),
    ],
)
def test_options_past_their_bounds_are_refused_with_a_clear_422(
    hardened: GunicornServer, options: dict[str, Any], field: str
) -> None:
    body = {"preset": "romme", "options": options, "seats": [{"name": "Ann"}, {"name": "Bob"}]}
    status, problem = call(hardened, "POST", "/games", body)
    assert status == 422 and problem["code"] == "validation_error"
    assert field in problem["errors"]
    assert len(json.dumps(problem)) < 2000  # a padded value is not echoed back in full


#: A hand of the largest allowed size (13 dealt, one more for the first player)
#: with four jokers and a long run of clubs: the costliest listing bench/worst_case.py
#: found (docs/performance.md), 3,361 moves.
WORST_HAND = ["JK", "JK", "JK", "JK", "C7", "C8", "C9", "C10", "CJ", "CQ", "C3", "C4", "C5", "C6"]
MOST_MOVES = 3_500


def deck_dealing(hand: list[str], decks: int, jokers: int, size: int) -> list[str]:
    """A deck that deals ``hand`` to seat 0 of two (seat 1 deals; one extra card)."""
    rest = Counter(build_deck(decks, jokers))
    rest.subtract(hand)
    others = list(rest.elements())
    mine = list(hand)
    deck = [mine.pop(0) if i % 2 == 0 else others.pop() for i in range(2 * size)]
    return deck + mine + others


@pytest.mark.parametrize(
    "options",
    [{}, {"first_meld_min_points": MAX_FIRST_MELD_POINTS}, {"concealed_rounds": [1]}],
    ids=["romme", "first-meld-bound", "concealed"],
)
def test_the_worst_hand_lists_its_moves_and_validates_a_meld(
    hardened: GunicornServer, options: dict[str, Any]
) -> None:
    body = {
        "preset": "romme",
        "options": options,
        "seats": [{"name": "Ann"}, {"name": "Bob"}],
        "deck": deck_dealing(WORST_HAND, 2, 6, 13),
        "first_dealer": 1,
    }
    status, created = call(hardened, "POST", "/games", body)
    assert status == 201, created
    game, token = created["id"], created["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    status, listed = call(hardened, "GET", f"/games/{game}/legal-moves", headers=auth)
    assert status == 200 and 0 < len(listed["moves"]) <= MOST_MOVES
    melds = [m for m in listed["moves"] if m["type"] == "meld"]
    if melds:  # a listed meld is accepted
        status, _ = call(hardened, "POST", f"/games/{game}/moves", melds[-1], headers=auth)
        assert status == 200
    else:  # nothing reaches the minimum: a meld is refused, with the rule's code
        meld = {"type": "meld", "cards": ["C3", "C4", "C5"]}
        status, problem = call(hardened, "POST", f"/games/{game}/moves", meld, headers=auth)
        assert status == 409 and problem["code"] == "first_meld_minimum"
