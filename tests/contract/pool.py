"""Real games for generated requests: a pool of games of every status and their seat tokens.

Used by the in-process test (over a Flask test client) and by the hooks of the
live CLI run (over HTTP). `inject(case)` points a generated request that names
a well-formed game id at a real game, in turn: unchanged, that game without a
token, with one of its seat tokens, with another game's token. Requests of the
stateful phase are left alone: their ids and tokens come from the links. A
request with a token is marked as authenticated on purpose, so that the
`ignored_auth` check probes the same request without it and with a wrong one.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.api.helpers import DECK, DRAW

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

#: `post(path, body, headers) -> (status, json body)`.
Post = Callable[[str, Any, dict[str, str]], tuple[int, Any]]


@dataclass(frozen=True)
class Seat:
    """A real game and one of its seat tokens (`None`: a game without human seats)."""

    game_id: str
    token: str | None


def make_games(post: Post) -> list[Seat]:
    """Create the pool's games through the API: active (draw and play phase),
    waiting with an open seat, with bots, finished."""

    def create(body: dict[str, Any]) -> dict[str, Any]:
        status, answer = post("/games", body, {})
        assert status == 201, answer
        return dict(answer)

    seats: list[Seat] = []
    two = {"seats": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK, "first_dealer": 1}
    for preset in ("express", "standard", "express"):
        game = create({"preset": preset, **two})
        seats += [Seat(game["id"], s["token"]) for s in game["seats"]]
    # The last one is in its play phase: Ann drew.
    status, _ = post(
        f"/games/{seats[-2].game_id}/moves", DRAW, {"Authorization": f"Bearer {seats[-2].token}"}
    )
    assert status == 200
    waiting = create({"seats": [{"name": "Cy"}, {"name": None}, {"bot": "random"}]})
    seats.append(Seat(waiting["id"], waiting["seats"][0]["token"]))
    bots = create({"seats": [{"name": "Di"}, {"bot": "greedy"}, {"bot": "random"}]})
    seats.append(Seat(bots["id"], bots["seats"][0]["token"]))
    finished = create({"seats": [{"bot": "greedy"}, {"bot": "random"}], "seed": 7})
    seats.append(Seat(finished["id"], None))
    return seats


class Pool:
    """The games and the rotation of `inject`."""

    def __init__(self, seats: list[Seat]) -> None:
        self.seats = seats
        self._turn = itertools.count()

    def inject(self, case: Any) -> None:
        """Point `case` at a real game and seat (see the module docstring)."""
        meta = getattr(case, "meta", None)
        if meta is not None and str(meta.phase.name) == "stateful":
            declare_auth(case)
            return
        game_id = case.path_parameters.get("game_id") if case.path_parameters else None
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            return
        turn = next(self._turn)
        mode = turn % 4
        if mode in (2, 3) and _must_lack_a_token(meta):
            mode = 1  # the coverage phase checks the answer without `Authorization`
        if mode == 2 and str(case.method).upper() == "DELETE":
            mode = 3  # the pool's games are shared: never deleted by their creator
        if mode == 0:
            return
        seat = self.seats[(turn // 4) % len(self.seats)]
        case.path_parameters["game_id"] = seat.game_id
        headers = dict(case.headers or {})
        if mode == 1:
            headers.pop("Authorization", None)
        else:
            other = self.seats[(turn // 4 + 3) % len(self.seats)]
            token = seat.token if mode == 2 else other.token
            if token is not None:
                headers["Authorization"] = f"Bearer {token}"
        case.headers = headers
        declare_auth(case)


def _must_lack_a_token(meta: Any) -> bool:
    """Whether the case is the coverage phase's request without `Authorization`."""
    data = getattr(getattr(meta, "phase", None), "data", None)
    parameter = str(getattr(data, "parameter", "") or "")
    return (
        parameter.lower() == "authorization"
        and "MISSING" in str(getattr(data, "scenario", "")).upper()
    )


def declare_auth(case: Any) -> None:
    """Tell Schemathesis that a seat token the request carries is meant to be valid.

    A request answered 2xx with a token carried a real one (from the pool or from
    a link); the `ignored_auth` check then sends it again without a token and
    with a wrong one, and requires a 401 for both.
    """
    if "Authorization" in (case.headers or {}):
        case._has_explicit_auth = True
