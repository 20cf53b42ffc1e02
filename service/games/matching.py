"""Quick-play matching: tables made of queued tickets (`service.store.tickets`).

`Matcher.run_once` is called by the runner (`service.worker`, every pass of its
loop; with the memory store, its thread in the web process). Each pass:

1. completes the pending matches whose lease has passed (a matcher died
   between its claim and its game, or is stuck): `TicketQueue.stale_matches`
   hands each to one matcher, leased anew;
2. offers the open seats of the lobby's waiting games (the newest
   `LOBBY_LOOK`) to the tickets of their table (preset and seat count),
   one ticket per claim, seated by a join (`transact`, as `POST
   /games/{id}/join`); a game gone, started or full meanwhile gives the
   ticket back to its queues (`TicketQueue.release`);
3. for each bucket (a preset and player count), the one with the oldest
   ticket first: claims full tables of its oldest tickets while it has
   enough (`TicketQueue.claim`, atomic);
4. then, if bots may fill tables (`bot_fill` seconds, not ``None``): claims
   the tickets that allow bots, when the oldest of them has waited that long,
   up to a table, the rest of the seats bots.

A claimed match becomes its game: the seats in the match's order (oldest
ticket first), humans by their ticket's name, client seed and seat-token
digest, then the bots; the options of the preset for that many players; a
random deal, committed (`engine.new_game` without a seed: docs/fairness.md).
The game is created under the match's id (`GameStore.create`'s ``game_id``),
so a second matcher completing the same match after a crash finds it made
(`GameExists`) rather than making another; then `TicketQueue.finish` seats the
tickets. A store error leaves the match pending: it is completed after its
lease.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.bots.play import UNBOUNDED, Budget
from service.config import Config
from service.games.errors import Busy
from service.games.transact import Context, after_step, transact
from service.games.values import Change, LoadedGame
from service.rules import engine
from service.rules.moves import IllegalMove
from service.rules.options import OptionsError, resolve_options
from service.rules.state import GameState, encode_state
from service.store.base import GameStore
from service.store.codec import new_game_id
from service.store.errors import GameExists, GameNotFound, StoreUnavailable
from service.store.tickets import Match, TicketQueue, bucket_name, parse_bucket

__all__ = ["MatchSettings", "Matcher"]

_log = logging.getLogger(__name__)

#: Tables one bucket gives per pass (the next pass takes the rest).
TABLES_PER_PASS = 64
#: Waiting games of the lobby (the newest listed) whose open seats a pass offers
#: to queued tickets: one lobby page, whatever its length.
LOBBY_LOOK = 50
#: The bot play of a join that fills a game (a request's; the rest is queued).
JOIN_BUDGET = Budget(moves=Config.BOT_MOVES_PER_REQUEST, seconds=Config.BOT_SECONDS_PER_REQUEST)


def _seat_of(state: GameState, seat_hash: str) -> int | None:
    """The seat whose token digest is ``seat_hash``, if any."""
    for index, seat in enumerate(state.seats):
        if seat.token_hash == seat_hash:
            return index
    return None


@dataclass(frozen=True)
class MatchSettings:
    """How tables are made: the bot fill's delay (s; ``None``: never), its
    strategy, and how long a claim is held before another matcher may finish it."""

    bot_fill: float | None = 30.0
    bot: str = "greedy"
    lease: float = 10.0


class Matcher:
    """Makes games of queued tickets (see the module docstring)."""

    def __init__(
        self,
        store: GameStore,
        tickets: TicketQueue,
        settings: MatchSettings | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.tickets = tickets
        self.settings = settings or MatchSettings()
        self.clock = clock
        self._context = Context(store, 1, UNBOUNDED, clock=lambda: self.clock())
        #: How a join is written: retried on a lost race, its bots within a
        #: request's budget (the rest is queued for the runner).
        self._joining = Context(store, Config.SAVE_RETRIES, JOIN_BUDGET, clock=lambda: self.clock())
        #: Games made, and waiting games joined, by this matcher (for tests and the log).
        self.made = 0
        self.joined = 0

    def run_once(self) -> int:
        """One pass (see the module docstring): how many matches it completed."""
        settings = self.settings
        lease_ms = int(settings.lease * 1000)
        done = 0
        for match in self.tickets.stale_matches(self._now_ms(), lease_ms, TABLES_PER_PASS):
            _log.warning("matcher: completing match %s left pending", match.id)
            done += self.complete(match)
        done += self._fill_waiting_games()
        for bucket in self.tickets.buckets():
            players = parse_bucket(bucket)[1]
            done += self._claim_all(bucket, players, None)
            if settings.bot_fill is not None:
                before = self._now_ms() - int(settings.bot_fill * 1000)
                done += self._claim_all(bucket, players, before)
        return done

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _fill_waiting_games(self) -> int:
        """Seat waiting tickets in the open seats of the lobby's waiting games
        (the newest `LOBBY_LOOK` listed), each of a table a ticket accepts: its
        preset and seat count. One ticket per claim, the oldest first."""
        demand = self.tickets.demand()
        if not demand:
            return 0
        lease_ms = int(self.settings.lease * 1000)
        games, _ = self.store.lobby(LOBBY_LOOK)
        done = 0
        for summary in games:
            seats = summary.get("seats") or ()
            bucket = bucket_name(str(summary.get("preset", "")), len(seats))
            for _ in range(sum(1 for seat in seats if seat.get("open"))):
                if not demand.get(bucket):
                    break
                match = self.tickets.claim(
                    bucket, 1, new_game_id(), self._now_ms(), lease_ms, game=str(summary["id"])
                )
                if match is None:
                    break
                demand[bucket] -= 1
                done += self.complete(match)
        return done

    def _claim_all(self, bucket: str, players: int, bots_before: int | None) -> int:
        lease_ms = int(self.settings.lease * 1000)
        done = 0
        while done < TABLES_PER_PASS:
            match = self.tickets.claim(
                bucket, players, new_game_id(), self._now_ms(), lease_ms, bots_before
            )
            if match is None:
                break
            if not self.complete(match):
                break  # the next pass (or another matcher, after the lease) tries again
            done += 1
        return done

    def complete(self, match: Match) -> bool:
        """Make the match's game (unless made already) and seat its tickets;
        whether it did. A store error is raised (the match stays pending, and is
        completed after its lease); any other failure is logged and leaves it
        pending too, so one broken match never stops the runner."""
        try:
            if match.game:
                return self._join(match)
            if match.tickets:
                self._create(match)
            self.tickets.finish(match, match.id)
        except StoreUnavailable:
            raise
        except Exception:
            _log.exception("matcher: match %s of %s failed", match.id, match.bucket)
            return False
        return True

    def _join(self, match: Match) -> bool:
        """Seat the match's tickets in the open seats of its waiting game (a
        ticket seated there already, by a matcher that died before finishing,
        keeps its seat); the tickets go back to their queues when the game is
        gone, started or full meanwhile."""
        taken: dict[str, int] = {}

        def join(game: LoadedGame, _seat: int | None) -> Change | None:
            taken.clear()
            state = game.state
            events: list[dict[str, Any]] = []
            for ticket in match.tickets:
                seat = _seat_of(state, ticket.seat_hash)
                if seat is None:
                    state, more = engine.take_seat(
                        state, None, ticket.name, ticket.seat_hash, ticket.client_seed
                    )
                    events += more
                    seat = _seat_of(state, ticket.seat_hash)
                assert seat is not None
                taken[ticket.id] = seat
            return Change(state, events) if events else None

        try:
            transact(self._joining, match.game, join)
        except (GameNotFound, IllegalMove, OptionsError, Busy):
            self.tickets.release(match)
            return False
        self.tickets.finish(match, match.game, [taken[t.id] for t in match.tickets])
        self.joined += 1
        return True

    def _create(self, match: Match) -> None:
        preset, players = parse_bucket(match.bucket)
        options = resolve_options(preset, {}, players)
        specs = [
            engine.SeatSpec(ticket.name, "human", None, ticket.seat_hash, ticket.client_seed)
            for ticket in match.tickets
        ]
        specs += [
            engine.SeatSpec(None, "bot", self.settings.bot, None)
            for _ in range(players - len(specs))
        ]
        state, events = engine.new_game(options, preset, specs)
        # Bots that deal first are left to the runner (queued in the create).
        state, _, due = after_step(self._context, None, state, lambda: "", play=False)
        try:
            self.store.create(encode_state(state), events, None, due=due, game_id=match.id)
        except GameExists:
            return  # made by the matcher that claimed it first
        self.made += 1
