"""What a process keeps of the games it served: decoded states and legal-move listings."""

from __future__ import annotations

import orjson

from service.games.lru import Lru
from service.games.values import LoadedGame
from service.rules import engine
from service.rules.state import GameState, decode_state, encode_state
from service.rules.views import joker_layouts


class DecodedStates:
    """The state of each game this process encoded or decoded last, with its
    stored bytes (LRU by game).

    Decoding a state costs more than the rest of a view, and the next request
    on a game usually loads the very bytes this process saved or read a
    moment ago. Encoding is an exact round trip and states are immutable, so
    the same bytes may safely stand for the same state object. One entry per
    game: a game's older versions are never loaded again, and each kept state
    is objects that every full garbage collection walks. The requests of a
    worker (greenlets, or threads under gthread) share it (`lru.Lru`).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._states: Lru[str, tuple[bytes, GameState]] = Lru(size)

    def decode(self, game_id: str, data: bytes) -> GameState:
        """`decode_state(data)` of `game_id`, from memory when these are the bytes
        kept for it."""
        kept = self._states.get(game_id)
        if kept is not None and kept[0] == data:
            return kept[1]
        state = decode_state(data)
        self._states.put(game_id, (data, state))
        return state

    def encode(self, game_id: str, state: GameState) -> bytes:
        """`encode_state(state)`, remembered for the next `decode` of `game_id`."""
        data = encode_state(state)
        self._states.put(game_id, (data, state))
        return data

    def remember(self, game_id: str, data: bytes, state: GameState) -> None:
        """Keep `state`, stored as `data`, for `game_id`, forgetting the oldest game
        past `size`."""
        self._states.put(game_id, (data, state))

    def kept(self, game_id: str) -> GameState | None:
        """The state kept for `game_id`, if any (for tests)."""
        entry = self._states.get(game_id)
        return None if entry is None else entry[1]


#: Per process; the last state of about 1,000 games per worker stays decoded
#: (a few KB each).
STATES = DecodedStates(1024)


class LegalMovesCache:
    """Answers of `GET /games/{id}/legal-moves` by (game, version, epoch, seat) (LRU).

    A game's version and its epoch name one state (the version alone does not
    after a failover: `service.store.base.Loaded.epoch`), so a listing made once serves every
    request for that version and seat (clients and bots poll it), and its
    work — bounded, but the largest of any read — is not done again.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._answers: Lru[tuple[str, int, str, int | None], bytes] = Lru(size)
        #: Listings made (cache misses), for tests and benchmarks.
        self.computed = 0

    def answer(self, game: LoadedGame, seat: int | None) -> bytes:
        """The JSON answer (``{"version", "moves", "unavailable"}``) for ``seat``
        (``None``: no seat)."""
        key = (game.game_id, game.version, game.epoch, seat)
        found = self._answers.get(key)
        if found is not None:
            return found
        moves = [] if seat is None else engine.legal_moves(game.state, seat)
        why = {} if seat is None else engine.unavailable(game.state, seat, moves)
        answer = {
            "version": game.version,
            "moves": [m.to_json() for m in moves],
            "unavailable": {kind: reason.to_json() for kind, reason in why.items()},
        }
        layouts = joker_layouts(game.state.options, moves)
        if layouts:
            answer["laid_out"] = layouts
        body = orjson.dumps(answer)
        self.computed += 1
        self._answers.put(key, body)
        return body


#: Per process: the listings of about the last 1,000 (game, version, seat).
LEGAL_MOVES = LegalMovesCache(1024)
