"""Random games across every preset and 2-6 players, with invariants after every step.

A Hypothesis state machine starts a game (a preset, a player count, a seed and a
few option variations), then mixes single moves chosen by Hypothesis, attempts
of moves that are not listed (each must be refused) and a play-out to the end of
the game. When a game ends the next one starts in the same example.

To keep thousands of games inside the time budget, the game's goal is shrunk:
``target_score`` is drawn from 1-60 and ``rounds`` from 1-2; every other option
keeps the preset's value or a drawn variation.

Invariants (checked after every step):

- every card of the deck is in exactly one place (hands, stock, discard pile, table);
- the seat to move always has at least one legal move, listed sorted and without repeats,
  and no other seat has any; between the rounds of an elimination game (no round),
  the seats deciding whether to re-engage have exactly ``Reengage`` and
  ``DeclineReengage``, and a seat that re-engages comes back with the highest total
  among the players still in (the random player picks among the legal moves of any
  seat that has some);
- with a stake, each seat has put in the stake plus half of it per re-engagement,
  and a finished game's winners took the whole pot (the rest to the first winner);
- every listed move applies; sampled unlisted moves are refused with ``IllegalMove``;
- no view and no redacted event shows another seat's cards or the stock;
- each seat's total equals the points of its recorded rounds (plus what re-engaging carried);
- the state survives encode/decode unchanged;
- every round ends within ``MAX_ROUND_STEPS`` moves: a blocked round ends at once, and
  with unlimited refills the random players still go out with probability 1; the bound
  is far above the longest round seen. A game need not end (rounds that end void score
  nothing, and players who rarely meld may void round after round), so ``play_out``
  stops after ``MAX_GAME_STEPS`` moves.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from service.rules.cards import JOKER, NATURAL_CARDS, build_deck, rank, suit
from service.rules.engine import SeatSpec, apply, cards_in_play, legal_moves, new_game
from service.rules.melds import candidate_melds
from service.rules.moves import (
    DeclineReengage,
    Discard,
    Draw,
    IllegalMove,
    LayOff,
    Meld,
    Move,
    Reengage,
    SwapJoker,
    move_sort_key,
)
from service.rules.options import PRESETS, resolve_options
from service.rules.state import GameState, decode_state, encode_state
from service.rules.views import (
    EVERYONE,
    is_public_event,
    public_view,
    redact_event,
    seat_view,
    shared_view,
)

pytestmark = pytest.mark.slow

MAX_ROUND_STEPS = 20_000
MAX_GAME_STEPS = 20_000


@st.composite
def variations(draw: st.DrawFn, preset: str) -> dict[str, Any]:
    """Option overrides: a shrunk goal plus a few drawn rule variations."""
    base = PRESETS[preset].options
    out: dict[str, Any] = {}
    if base.end in ("target", "elimination"):
        out["target_score"] = draw(st.integers(1, 60))
    if base.end == "rounds":
        out["rounds"] = draw(st.integers(1, 2))
    pool: dict[str, st.SearchStrategy[Any]] = {
        "ace": st.sampled_from(["low", "high_or_low", "around"]),
        "go_out_requires_discard": st.booleans(),
        "rummy_bonus": st.sampled_from(["double", "plus10", "none"]),
        "stock_refill": st.sampled_from(["shuffle", "turn_over", "none"]),
        "refill_keeps_top": st.booleans(),
        "max_refills": st.sampled_from([None, 0, 1, 2]),
        "no_winner": st.sampled_from(["void", "lowest_takes_difference", "count"]),
        "melds_per_turn": st.sampled_from([None, 1]),
        "layoff_requires_own_meld": st.booleans(),
        "ace_points": st.sampled_from([1, 15]),
        "first_turn_no_draw": st.booleans(),
        "last_stock": st.sampled_from(["next_draw", "when_empty"]),
        "stake": st.sampled_from([None, 1, 7, 100]),
    }
    for name in draw(st.lists(st.sampled_from(sorted(pool)), max_size=3, unique=True)):
        out[name] = draw(pool[name])
    return out


def _allowed_cards(state: GameState, viewer: int | None) -> set[str]:
    """Cards a viewer may see in the current round's part of a view."""
    r = state.round
    if r is None:
        return set()
    seen = set(r.discard)
    if r.taken is not None:
        seen.add(r.taken)  # it was the top of the discard pile: public
    for m in r.melds:
        seen.update(m.shape.cards)
        seen.update(m.shape.stands_for)
    for known in r.known:
        seen.update(known)  # seen taken from the discard pile by everybody: public
    if viewer is not None:
        seen.update(r.hands[viewer])
    return seen


CARD_CODES = {*NATURAL_CARDS, JOKER}


def _cards_in(obj: object) -> set[str]:
    text = json.dumps(obj)
    return {
        t for t in text.replace('"', " ").replace(",", " ").replace("]", " ").split()
    } & CARD_CODES


def _unordered(move: Move) -> tuple[object, ...]:
    """The move with the order of its cards forgotten."""
    if isinstance(move, Meld | LayOff):
        return (type(move).__name__, getattr(move, "meld", None), tuple(sorted(move.cards)))
    return (move,)


def _near(card: str, hand: tuple[str, ...]) -> bool:
    """Whether another card of the hand shares the rank or is within two of it in suit."""
    if card == JOKER:
        return True
    r, su = rank(card), suit(card)
    for other in hand:
        if other in (card, JOKER):
            continue
        if rank(other) == r or (suit(other) == su and abs(rank(other) - r) <= 2):
            return True
    return False


def _keys_in(value: object) -> set[str]:
    """Every key of every mapping inside ``value`` (JSON-like data)."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys_in(v)}
    return set()


class RandomGames(RuleBasedStateMachine):
    """One random game per example; see the module docstring."""

    #: Games started, by preset: each run gives the machine a counter of its own
    #: (a subclass), so what a test asserts comes from its own games only.
    played: Counter[str]

    def __init__(self) -> None:
        super().__init__()
        self.state: GameState | None = None
        self.steps = 0
        self.round_steps = 0
        self.rng = random.Random(0)
        self.deck: Counter[str] = Counter()
        self.new_events: list[dict[str, Any]] = []

    @initialize(
        preset=st.sampled_from(sorted(PRESETS)),
        data=st.data(),
        seed=st.integers(0, 2**40),
    )
    def start(self, preset: str, data: st.DataObject, seed: int) -> None:
        self._new_game(preset, data, seed)

    @precondition(lambda self: not self.active)
    @rule(preset=st.sampled_from(sorted(PRESETS)), data=st.data(), seed=st.integers(0, 2**40))
    def next_game(self, preset: str, data: st.DataObject, seed: int) -> None:
        """After a game ends, start another in the same example."""
        self._new_game(preset, data, seed)

    def _new_game(self, preset: str, data: st.DataObject, seed: int) -> None:
        lo, hi = PRESETS[preset].options.players
        players = data.draw(st.integers(lo, hi), label="players")
        overrides = data.draw(variations(preset), label="overrides")
        options = resolve_options(preset, overrides, players)
        seats = [SeatSpec(f"P{i}", token_hash=f"secret-token-hash-{i}") for i in range(players)]
        self.state, self.new_events = new_game(options, preset, seats, seed=seed)
        self.rng = random.Random(seed)
        self.deck = Counter(build_deck(options.decks, options.jokers))
        self.steps = 0
        self.round_steps = 0
        self.played[preset] += 1

    # -- helpers -------------------------------------------------------------

    def _actor(self) -> int | None:
        """A seat that has legal moves: the seat to move, or between the rounds of an
        elimination game one of the seats deciding whether to re-engage."""
        s = self.state
        assert s is not None
        if s.status != "active":
            return None
        actors = [i for i in range(s.players) if legal_moves(s, i)]
        assert actors, "an active game where no seat has a legal move"
        return self.rng.choice(actors)

    def _pick(self, moves: list[Move], choice: int) -> Move:
        """A random move with a bias towards progress, so that games end sooner: melds
        and lay-offs two times in three, the discard when it completes a meld, and
        (half the time) a discard of a card that is in no meld and next to no card."""
        s = self.state
        assert s is not None
        if s.round is None:  # a re-engage decision
            return moves[choice % len(moves)]
        useful = [m for m in moves if isinstance(m, Meld | LayOff | SwapJoker)]
        if useful and choice % 3:
            return useful[choice % len(useful)]
        r = s.round
        hand = r.hands[r.turn]
        if Draw("discard") in moves and r.discard and choice % 2:
            top = r.discard[-1]
            if any(top in m for m in candidate_melds((*hand, top), s.options.ace)):
                return Draw("discard")
        discards = [m for m in moves if isinstance(m, Discard)]
        if discards and choice % 2:
            lonely = [m for m in discards if not _near(m.card, hand)]
            if lonely:
                return lonely[choice % len(lonely)]
        return moves[choice % len(moves)]

    def _apply(self, seat: int, move: Move) -> None:
        assert self.state is not None
        before = self.state.round.number if self.state.round is not None else None
        comeback = self.state.comeback_total
        self.state, events = apply(self.state, seat, move)
        if isinstance(move, Reengage):
            # Back with the highest total among the players still in at that moment.
            assert self.state.seats[seat].score == comeback
            assert not self.state.seats[seat].eliminated
        self.new_events.extend(events)
        self.steps += 1
        after = self.state.round.number if self.state.round is not None else None
        self.round_steps = 0 if after != before else self.round_steps + 1
        assert self.round_steps < MAX_ROUND_STEPS, "the round did not end"

    @property
    def active(self) -> bool:
        return self.state is not None and self.state.status == "active"

    # -- rules ---------------------------------------------------------------

    @precondition(lambda self: self.active)
    @rule(choice=st.integers(0, 2**16))
    def step(self, choice: int) -> None:
        """Every listed move applies; then play one of them."""
        seat = self._actor()
        assert seat is not None and self.state is not None
        moves = legal_moves(self.state, seat)
        for move in moves:
            apply(self.state, seat, move)  # must not raise
        self._apply(seat, self._pick(moves, choice))

    @precondition(lambda self: self.active)
    @rule(data=st.data())
    def refuse_unlisted(self, data: st.DataObject) -> None:
        """Sampled moves that are not listed are refused, for any seat."""
        s = self.state
        assert s is not None
        seat = data.draw(st.integers(0, s.players - 1), label="seat")
        r = s.round
        hand = (list(r.hands[seat]) if r is not None else []) or ["C2"]
        cards = sorted(CARD_CODES)
        meld_ids = [m.id for m in r.melds] if r is not None else []
        meld_ids = meld_ids or [1]
        candidates: list[Move] = [
            Draw("stock"),
            Draw("discard"),
            Reengage(),
            DeclineReengage(),
            Discard(data.draw(st.sampled_from(cards))),
            Discard(data.draw(st.sampled_from(hand))),
            Meld(tuple(data.draw(st.lists(st.sampled_from(hand), min_size=1, max_size=5)))),
            LayOff(
                data.draw(st.sampled_from(meld_ids)),
                tuple(data.draw(st.lists(st.sampled_from(hand), min_size=1, max_size=3))),
            ),
            SwapJoker(data.draw(st.sampled_from(meld_ids)), data.draw(st.sampled_from(cards))),
        ]
        # Legal means listed up to card order (a meld may be given in any order that
        # makes the same meld), so moves are compared with their cards sorted.
        listed = {_unordered(m) for m in legal_moves(s, seat)}
        for move in candidates:
            if _unordered(move) in listed:
                continue
            try:
                apply(s, seat, move)
            except IllegalMove:
                continue
            raise AssertionError(f"unlisted move {move} of seat {seat} was applied")

    @precondition(lambda self: self.active)
    @rule()
    def play_out(self) -> None:
        """Play random moves to the end of the game, or `MAX_GAME_STEPS` (light checks)."""
        while self.active and self.steps < MAX_GAME_STEPS:
            seat = self._actor()
            assert seat is not None and self.state is not None
            moves = legal_moves(self.state, seat)
            assert moves, "the seat to move has no legal move"
            self._apply(seat, self._pick(moves, self.rng.randrange(2**16)))
            self.check_cards()
            self.check_scores()
        self.check_views()

    # -- invariants ----------------------------------------------------------

    @invariant()
    def check_cards(self) -> None:
        s = self.state
        if s is not None and s.round is not None:
            assert cards_in_play(s) == self.deck

    @invariant()
    def check_moves(self) -> None:
        s = self.state
        if s is None or s.status != "active":
            return
        if s.round is None:
            # Between rounds: the deal waits for the seats deciding whether to re-engage,
            # and they alone have moves.
            assert s.options.end == "elimination" and s.deciding
            assert sum(not x.eliminated for x in s.seats) >= 1
            for seat in range(s.players):
                decision = [Reengage(), DeclineReengage()] if s.seats[seat].deciding else []
                assert legal_moves(s, seat) == decision
            return
        assert not s.deciding
        moves = legal_moves(s, s.round.turn)
        assert moves, "the seat to move has no legal move"
        assert moves == sorted(moves, key=move_sort_key) and len(set(moves)) == len(moves)
        for seat in range(s.players):
            if seat != s.round.turn:
                assert legal_moves(s, seat) == []

    @invariant()
    def check_scores(self) -> None:
        s = self.state
        if s is None:
            return
        for i, seat in enumerate(s.seats):
            assert seat.score == seat.carried + sum(r.points[i] for r in s.rounds)
        if s.status == "finished":
            assert s.winners and s.round is None
        stake = s.options.stake
        if stake is None:
            assert s.pot is None and all(x.chips_in == x.chips_out == 0 for x in s.seats)
            return
        half = -(-stake // 2)
        for seat in s.seats:
            if s.status != "waiting":
                assert seat.chips_in == stake + half * seat.reengaged
        if s.status == "finished":
            # The winners share the whole pot: equal shares, the rest to the first winner.
            assert s.pot == 0 and s.winners is not None
            share, rest = divmod(sum(x.chips_in for x in s.seats), len(s.winners))
            first = min(s.winners)
            expected = [
                (share + (rest if i == first else 0)) if i in s.winners else 0
                for i in range(s.players)
            ]
            assert [x.chips_out for x in s.seats] == expected
        else:
            assert s.pot == sum(x.chips_in for x in s.seats)

    @invariant()
    def check_views(self) -> None:
        s = self.state
        if s is None:
            return
        r = s.round
        for viewer in [None, *range(s.players)]:
            view = public_view(s) if viewer is None else seat_view(s, viewer)
            live = {k: v for k, v in view.items() if k not in ("rounds", "options")}
            assert _cards_in(live) <= _allowed_cards(s, viewer)
            text = json.dumps(view)
            assert "secret-token-hash" not in text and "seed" not in _keys_in(view)
            if len(str(s.seed)) >= 6:  # short seeds ("0") are also joker positions, counts…
                assert str(s.seed) not in text
            if viewer is not None and r is not None:
                assert view["hand"] == list(r.hands[viewer])
        for event in self.new_events:
            by_view: dict[int | None, dict[str, Any]] = {}
            for viewer in [None, *range(s.players)]:
                seen = redact_event(event, viewer)
                # Viewers that share a view see the same (the streams encode it once).
                view = shared_view(event, viewer)
                assert by_view.setdefault(view, seen) == seen
                assert (view == EVERYONE) == is_public_event(event)
                if event["type"] == "drew" and event["source"] == "stock":
                    assert ("card" in seen) == (viewer == event["seat"])
                if event["type"] == "round_started":
                    assert "hands" not in seen
                    own = event["hands"][viewer] if viewer is not None else None
                    assert seen.get("hand") == own
        self.new_events = []

    @invariant()
    def check_encoding(self) -> None:
        if self.state is not None:
            assert decode_state(encode_state(self.state)) == self.state


RANDOM_GAMES_SETTINGS = settings(
    max_examples=300,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def test_random_games_keep_every_invariant_and_cover_every_preset() -> None:
    """The state machine's games keep the invariants, and every preset got games."""
    played = Counter[str]()

    class Counted(RandomGames):
        """The machine, counting into this run's own counter."""

        def __init__(self) -> None:
            super().__init__()
            self.played = played

    run_state_machine_as_test(Counted, settings=RANDOM_GAMES_SETTINGS)
    print(f"random games played: {sum(played.values())} {dict(played)}")
    assert set(played) == set(PRESETS)
