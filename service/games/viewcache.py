"""Speed: the public part of a game's view built once per state, not once per answer.

Why (the measurement): building the view (`public_view`: every seat, the round,
the finished rounds, the options' JSON, the commitments) was the largest piece of a
seat's `GET /games/{id}` that is the game's own, while `legal-moves`, whose answer
is kept per version, skipped its equivalent. A state is immutable and the
decoded-state cache (`service.games.caches.STATES`) hands out the same object for the same
stored bytes, so the public view of a state is made once and shared by every
seat's view of it (each seat reloads the view after every move) and by the
mover's answer; the seat's own part (`you`, its hand) is added per answer by
`views.seat_view`, which stays the one description of a view's shape. With it
(and the header reads of the same change) a seat's view took noticeably fewer
instructions in-process (`bench/wsgi_calls.py --phase view` under valgrind;
docs/performance.md, "What a move costs", has the figures).

The parts a state's view shares with the views of the states before it (the
options, the seats' entries a move left as they were, the table's melds, the
finished rounds: the rules keep those objects, `views.public_view`) are kept
here serialised, as `orjson.Fragment`s, so an answer serialises only what its
state changed: orjson's share of a move falls by more than a third, and a move
costs fewer instructions even with the fragments' look-ups (`bench/wsgi_calls.py
--phase moves` under valgrind; orjson writes the same bytes; docs/performance.md,
"What a move costs", has the figures).

The one seam: `service.api.access.game_view` asks `public_view(game_id, state)` here. The views
handed out are shared: read them, never change them; their kept parts are
fragments, for orjson to serialise (the answers only serialise them).
"""

from __future__ import annotations

import time
from typing import Any, Final

import orjson

from service.games.lru import Lru
from service.rules import views
from service.rules.identity import by_identity
from service.rules.state import GameState

#: Games whose last public view is kept, per process (as many as `service.games.caches.STATES`).
SIZE: Final = 1024


#: Serialised parts kept per process before the table is emptied (each holds its
#: part, so an id is never reused while it is kept; docs/security.md).
FRAGMENTS_KEPT: Final = 4096


@by_identity(FRAGMENTS_KEPT)
def fragment(part: Any) -> orjson.Fragment:
    """`part` (a JSON part the rules keep and share between views: never changed)
    serialised once, as a fragment orjson writes as it is."""
    return orjson.Fragment(orjson.dumps(part))


def wire_view(view: dict[str, Any]) -> dict[str, Any]:
    """`view` (a `views.public_view`) with its shared parts as kept fragments: the
    options, each seat's entry, the table's melds and the finished rounds."""
    wire = dict(view)
    wire["options"] = fragment(view["options"])
    wire["seats"] = [fragment(part) for part in view["seats"]]
    round_view = view["round"]
    if round_view is not None:
        round_view = wire["round"] = dict(round_view)
        round_view["melds"] = fragment(round_view["melds"])
    wire["rounds"] = fragment(view["rounds"])
    return wire


class PublicViews:
    """`views.public_view(state)` of each game's last state asked (LRU by game,
    `lru.Lru`; the state known by identity), its shared parts serialised
    (`wire_view`). One entry per game: an older state of a game is not asked
    again, and each kept entry is objects every full garbage collection walks."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._views: Lru[str, tuple[GameState, dict[str, Any]]] = Lru(size)
        #: Public views built (misses), for tests and benchmarks.
        self.built = 0

    def get(self, game_id: str, state: GameState) -> dict[str, Any]:
        """The public view of `game_id`'s `state`, built on its first request
        (shared: do not change it)."""
        found = self._views.get(game_id)
        if found is not None and found[0] is state:
            return found[1]
        view = wire_view(views.public_view(state))
        self.built += 1
        self._views.put(game_id, (state, view))
        return view


PUBLIC_VIEWS: Final = PublicViews(SIZE)


def public_view(game_id: str, state: GameState) -> dict[str, Any]:
    """`views.public_view(state)` of `game_id`, made once per state object, its
    shared parts serialised (`wire_view`: for orjson; shared, do not change it)."""
    return PUBLIC_VIEWS.get(game_id, state)


_second: tuple[int, str] = (-1, "")


def now_text() -> str:
    """`views.rfc3339` of the current time, its date and time of day made once per second."""
    global _second
    seconds, millis = divmod(time.time_ns() // 1_000_000, 1000)
    second, text = _second
    if second != seconds:
        # "2026-12-01T11:05:46.000Z" without its ".000Z"
        text = str(views.rfc3339(seconds * 1000))[:-5]
        _second = (seconds, text)
    return f"{text}.{millis:03d}Z"
