"""Random play with jokers: a Hypothesis state machine plays random games of the
joker presets (``vrotham``, ``romme``) and of the other presets with jokers and two
decks added, checking after every step what the joker rules could break.

tests/rules/test_random_play.py plays every preset; this machine looks deeper at
games with duplicates and jokers. After every step:

- every card of the deck is in exactly one place (hands, stock, discard pile,
  table), each duplicate and every joker included, and every meld on the table is
  valid with what each joker stands for, and no more jokers than natural cards
  (``joker_limit: natural_majority``) or at least one natural card (``one_natural``:
  vrotham, and sometimes the presets given jokers here);
- the move played was listed by ``legal_moves`` and applies; other listed moves
  apply too (a sample each step, every one of them on some steps);
- sampled unlisted moves are refused, up to the canonical form of a move: a meld
  or lay-off given in another card order is the same move when it makes the same
  meld (``apply`` then gives exactly the state the listed move gives);
- views and redacted events leak nothing hidden: the seed and token hashes never
  show, and a view does not change when the cards the viewer cannot see (other
  hands, the stock) are dealt differently;
- every total is what the recorded rounds gave;
- every round ends within a bound of steps (a game need not end: void rounds
  score nothing), and replaying a game's moves from the same seed gives the
  same events and the same state.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import orjson
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

from service.rules.cards import JOKER, NATURAL_CARDS, Card, build_deck, card_points
from service.rules.engine import Event, SeatSpec, apply, cards_in_play, legal_moves, new_game
from service.rules.melds import candidate_melds, extend_meld, make_meld
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
)
from service.rules.options import MAX_ONE_NATURAL_JOKERS, PRESETS, resolve_options
from service.rules.state import GameState, encode_state
from service.rules.views import public_view, redact_event, seat_view

pytestmark = pytest.mark.slow

#: Moves within which every round ends (stock refills are bounded or the
#: stock runs dry); far above the longest random round seen (about 750).
MAX_ROUND_STEPS = 30_000
#: Moves after which a game is no longer played on: a game does not have to end
#: (with `no_winner="void"`, random players who rarely meld can void round after
#: round; `meld_first` with 3 players took over 60 rounds).
MAX_GAME_STEPS = 30_000
ALL_CARDS: tuple[Card, ...] = (*NATURAL_CARDS, JOKER)
JOKER_PRESETS = ("vrotham", "romme")


# ---------------------------------------------------------------------------
# Games to play


def game_options(preset: str, players: int, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A player count and overrides: jokers added to presets without them, a shorter
    game most of the time, and sometimes a rule variation."""
    base = PRESETS[preset].options
    lo, hi = base.players
    out: dict[str, Any] = {}
    if not base.jokers:
        out.update(
            decks=rng.choice([1, 2]),
            jokers=rng.randint(1, 6),
            joker_points=rng.choice([0, 15, 25]),
            joker_swap=rng.random() < 0.8,
        )
        if out["jokers"] <= MAX_ONE_NATURAL_JOKERS and rng.random() < 0.4:
            out["joker_limit"] = "one_natural"
    if rng.random() < 0.8:  # a shorter game
        if base.end in ("target", "elimination"):
            out["target_score"] = rng.randint(5, 60)
        elif base.end == "rounds":
            rounds = rng.randint(1, 3)
            out["rounds"] = rounds
            if base.concealed_rounds and rng.random() < 0.7:
                out["concealed_rounds"] = [rng.randint(1, rounds)]
    if rng.random() < 0.4:
        if rng.random() < 0.6:
            out["ace"] = rng.choice(["low", "high_or_low", "around"])
        if rng.random() < 0.3:
            out["go_out_requires_discard"] = True
        if rng.random() < 0.3:
            out["melds_per_turn"] = 1
        if rng.random() < 0.3:
            out["first_meld_min_points"] = rng.choice([0, 15, 30, 51])
        if rng.random() < 0.2:
            out["first_turn_no_draw"] = not base.first_turn_no_draw
        if rng.random() < 0.3:
            out["last_stock"] = rng.choice(["next_draw", "when_empty"])
    players = min(max(players, lo), hi)
    return players, out


def make_game(preset: str, players: int, seed: int) -> GameState:
    """A dealt game of ``preset`` for these players (clipped to the preset's range)."""
    rng = random.Random(seed)
    players, overrides = game_options(preset, players, rng)
    try:
        opts = resolve_options(preset, overrides, players)
    except ValueError:  # a hand size the deck cannot deal with these players
        overrides.pop("first_turn_no_draw", None)
        players = PRESETS[preset].options.players[0]
        opts = resolve_options(preset, overrides, players)
    seats = [SeatSpec(f"p{i}", token_hash=f"secret-hash-{seed}-{i}") for i in range(players)]
    state, _ = new_game(opts, preset, seats, seed=f"secret-seed-{seed}")
    return state


# ---------------------------------------------------------------------------
# The random policy


def choose(state: GameState, seat: int, moves: Sequence[Move], rng: random.Random) -> Move:
    """Mostly sensible random play, so rounds end: meld, lay off and swap eagerly, shed
    high cards that are in no meld."""
    if isinstance(moves[0], Reengage | DeclineReengage):
        return rng.choice(moves)
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws:
        return rng.choice(draws)
    acts = [m for m in moves if isinstance(m, Meld | LayOff | SwapJoker)]
    if acts and rng.random() < 0.85:
        return rng.choice(acts)
    discards = [m for m in moves if isinstance(m, Discard)]
    if not discards:
        return rng.choice(moves)
    if rng.random() < 0.5:
        return rng.choice(discards)
    opts = state.options
    assert state.round is not None
    hand = state.round.hands[seat]
    useful = {c for meld in candidate_melds(hand, opts.ace, opts.joker_limit) for c in meld}
    pool = [m for m in discards if m.card not in useful] or discards
    return max(pool, key=lambda m: card_points(m.card, opts.ace_points, opts.joker_points))


# ---------------------------------------------------------------------------
# Checks


def canonical(state: GameState, move: Move) -> object:
    """The move up to card order: melds and lay-offs by the meld they make."""
    ace, limit = state.options.ace, state.options.joker_limit
    if isinstance(move, Meld):
        shape = make_meld(move.cards, ace, limit)
        if shape is not None:
            return ("meld", shape)
    if isinstance(move, LayOff) and state.round is not None:
        target = next((m for m in state.round.melds if m.id == move.meld), None)
        if target is not None:
            grown = extend_meld(target.shape, move.cards, ace, limit)
            if grown is not None:
                return ("layoff", move.meld, grown)
    return move


def check_cards(state: GameState, melds: bool = True) -> None:
    """Every card of the deck is in exactly one place; table melds are valid (checked
    when ``melds``: after a move that changed the table)."""
    r = state.round
    if r is None:
        return
    opts = state.options
    assert cards_in_play(state) == Counter(build_deck(opts.decks, opts.jokers))
    for i, h in enumerate(r.hands):
        assert r.dealt[i] or not h
    for m in r.melds if melds else ():
        shape = m.shape
        jokers = shape.cards.count(JOKER)
        if opts.joker_limit == "natural_majority":
            assert jokers <= len(shape.cards) - jokers
        else:
            assert jokers < len(shape.cards)
        assert len(set(shape.stands_for)) == len(shape.stands_for)  # no card twice in a meld
        for card, stands in zip(shape.cards, shape.stands_for, strict=True):
            assert card in (JOKER, stands)
            assert stands != JOKER
        # What the jokers stand for, given in place of them, makes the same meld
        # (thirteen natural cards always read as A..K: the same cards).
        again = make_meld(shape.stands_for, opts.ace, opts.joker_limit)
        assert again is not None
        assert sorted(again.stands_for) == sorted(shape.stands_for)
        assert len(shape.cards) == 13 or again.stands_for == shape.stands_for


def check_scores(state: GameState) -> None:
    """Totals are the recorded rounds' points plus what re-engaging carried."""
    for i, s in enumerate(state.seats):
        assert s.score == s.carried + sum(rec.points[i] for rec in state.rounds)
    if state.status == "finished":
        assert state.winners and state.round is None


def _hidden_dealt_differently(state: GameState, viewer: int, rng: random.Random) -> GameState:
    """The same game with the cards ``viewer`` cannot see dealt differently, another
    seed and other token hashes."""
    r = state.round
    assert r is not None
    others = [i for i in range(len(r.hands)) if i != viewer]
    pool = [c for i in others for c in r.hands[i]] + list(r.stock)
    rng.shuffle(pool)
    hands = list(r.hands)
    for i in others:
        k = len(hands[i])
        hands[i], pool = tuple(sorted(pool[:k], key=ALL_CARDS.index)), pool[k:]
    seats = tuple(dataclasses.replace(s, token_hash=f"x{i}") for i, s in enumerate(state.seats))
    new_round = dataclasses.replace(r, hands=tuple(hands), stock=tuple(pool))
    return dataclasses.replace(state, seed="another", seats=seats, round=new_round)


def _secrets(state: GameState) -> list[bytes]:
    hashes = [s.token_hash.encode() for s in state.seats if s.token_hash is not None]
    return [state.seed.encode(), *hashes]


def check_views(state: GameState, rng: random.Random, deep: bool) -> None:
    """Views show the viewer's own hand and nothing else that is hidden."""
    secrets = _secrets(state)
    r = state.round
    for viewer in (None, *range(state.players)):
        view = public_view(state) if viewer is None else seat_view(state, viewer)
        text = orjson.dumps(view)
        assert not any(s in text for s in secrets)
        if viewer is None:
            assert "hand" not in view
        elif r is not None:
            assert view["hand"] == list(r.hands[viewer])
        if r is not None:
            assert [s["hand_size"] for s in view["seats"]] == [len(h) for h in r.hands]
            if deep:
                blind = _hidden_dealt_differently(state, -1 if viewer is None else viewer, rng)
                again = public_view(blind) if viewer is None else seat_view(blind, viewer)
                assert again == view


def check_events(state: GameState, events: Sequence[Event]) -> None:
    """Redacted events show a stock draw's card only to the drawer, a dealt hand only
    to its seat, and never a secret."""
    secrets = _secrets(state)
    for event in events:
        for viewer in (None, *range(state.players)):
            seen = redact_event(event, viewer)
            assert not any(s in orjson.dumps(seen) for s in secrets)
            if seen["type"] == "drew" and event["source"] == "stock":
                assert ("card" in seen) == (viewer == event["seat"])
            if seen["type"] == "round_started":
                assert "hands" not in seen
                if viewer is None:
                    assert "hand" not in seen
                elif event["hands"][viewer] is not None:
                    assert seen["hand"] == event["hands"][viewer]


def random_move(state: GameState, seat: int, rng: random.Random) -> Move:
    """A plausible move, legal or not: cards mostly from the hand, ids mostly on the table,
    melds often a listed one in another order or with one card changed."""
    r = state.round
    assert r is not None
    hand = list(r.hands[seat]) or ["SK"]
    ids = [m.id for m in r.melds] + [r.next_meld_id, 0]

    def card() -> Card:
        return rng.choice(hand) if rng.random() < 0.85 else rng.choice(ALL_CARDS)

    def cards(lo: int, hi: int) -> tuple[Card, ...]:
        return tuple(card() for _ in range(rng.randint(lo, hi)))

    kind = rng.randrange(8)
    if kind == 0:
        return Draw(rng.choice(["stock", "discard"]))
    if kind in (1, 2):
        melds = candidate_melds(hand, state.options.ace, state.options.joker_limit)
        if melds and rng.random() < 0.7:
            picked = list(rng.choice(melds))
            if rng.random() < 0.5:
                rng.shuffle(picked)
            else:
                picked[rng.randrange(len(picked))] = card()
            return Meld(tuple(picked))
        return Meld(cards(2, 5))
    if kind in (3, 4):
        return LayOff(rng.choice(ids), cards(1, 3))
    if kind == 5:
        return SwapJoker(rng.choice(ids), card())
    if kind == 6:  # never legal during a round
        return rng.choice([Reengage(), DeclineReengage()])
    return Discard(card())


def check_unlisted(state: GameState, moves: Sequence[Move], rng: random.Random, count: int) -> None:
    """Sampled moves apply if and only if their canonical form is listed."""
    r = state.round
    assert r is not None
    seat = r.turn
    listed = {canonical(state, m): m for m in moves}
    for _ in range(count):
        move = random_move(state, seat, rng)
        key = canonical(state, move)
        try:
            after, _ = apply(state, seat, move)
        except IllegalMove:
            assert key not in listed, (move, "listed, yet refused")
            continue
        assert key in listed, (move, "applied, yet not listed", moves)
        if listed[key] != move:
            same, _ = apply(state, seat, listed[key])
            assert encode_state(same) == encode_state(after)
        # Another seat may not make it.
        other = (seat + 1) % state.players
        if not isinstance(move, Reengage | DeclineReengage):
            try:
                apply(state, other, move)
            except IllegalMove as err:
                assert err.code in ("not_your_turn", "not_in_round")
            else:
                raise AssertionError(f"seat {other} made seat {seat}'s move {move}")


# ---------------------------------------------------------------------------
# The state machine


class JokerGames(RuleBasedStateMachine):
    """Random games with jokers; see the module docstring."""

    #: Games dealt, by preset: each run gives the machine a counter of its own
    #: (a subclass), so what a test asserts comes from its own games only.
    played: Counter[str]

    def __init__(self) -> None:
        super().__init__()
        self.start: GameState | None = None
        self.state: GameState | None = None
        self.history: list[tuple[int, Move]] = []
        self.events: list[Event] = []
        self.rng = random.Random(0)
        self.round_began = 0

    def _begin(self, preset: str, players: int, seed: int) -> None:
        self.start = self.state = make_game(preset, players, seed)
        self.history, self.events = [], []
        self.round_began = 0
        self.rng = random.Random(seed)
        self.played[preset] += 1
        check_cards(self.state)

    @initialize(
        preset=st.sampled_from([*JOKER_PRESETS, *JOKER_PRESETS, *sorted(PRESETS)]),
        players=st.integers(2, 6),
        seed=st.integers(0, 2**32),
    )
    def first_game(self, preset: str, players: int, seed: int) -> None:
        """Deal the first game: a joker preset, or another preset with jokers added."""
        self._begin(preset, players, seed)

    @property
    def active(self) -> bool:
        """A game is being played."""
        return self.state is not None and self.state.status == "active"

    def step(self, checks: int) -> None:
        """One move, by the seat to move or (between the rounds of an elimination game)
        by a seat deciding whether to re-engage, checked."""
        state = self.state
        assert state is not None
        rng = self.rng
        actors = [i for i in range(state.players) if legal_moves(state, i)]
        assert actors, "an active game always has a seat with a legal move"
        if state.round is None:
            assert state.deciding and actors == list(state.deciding)
            for i in actors:
                assert legal_moves(state, i) == [Reengage(), DeclineReengage()]
        else:
            assert actors == [state.round.turn], "only the seat to move has moves"
        seat = rng.choice(actors)
        moves = legal_moves(state, seat)
        assert len(set(moves)) == len(moves)
        move = choose(state, seat, moves, rng)
        if checks:
            deep = rng.random() < 0.05
            sample = moves if deep else rng.sample(list(moves), min(checks, len(moves)))
            for listed in sample:
                apply(state, seat, listed)
            if state.round is not None:
                check_unlisted(state, moves, rng, 2 * checks)
            check_views(state, rng, deep)
        new, events = apply(state, seat, move)
        self.history.append((seat, move))
        self.events.extend(events)
        self.state = new
        check_cards(new, isinstance(move, Meld | LayOff | SwapJoker))
        check_scores(new)
        if checks:
            check_events(new, events)
        if new.round is not None and (
            state.round is None or new.round.number != state.round.number
        ):
            self.round_began = len(self.history)
        assert len(self.history) - self.round_began <= MAX_ROUND_STEPS, "the round does not end"

    @precondition(lambda self: self.active)
    @rule()
    def play_one_move(self) -> None:
        """One move, thoroughly checked."""
        self.step(checks=4)

    @precondition(lambda self: self.active)
    @rule()
    def play_a_round(self) -> None:
        """Moves until the round ends."""
        assert self.state is not None
        while self.active and self.state.round is None:  # re-engage decisions first
            self.step(checks=1)
        if not self.active:
            return
        assert self.state.round is not None
        number = self.state.round.number
        while self.active and self.state.round is not None and self.state.round.number == number:
            self.step(checks=1)

    @precondition(lambda self: self.state is not None)
    @rule(
        preset=st.sampled_from([*JOKER_PRESETS, *sorted(PRESETS)]),
        players=st.integers(2, 6),
        seed=st.integers(0, 2**32),
    )
    def next_game(self, preset: str, players: int, seed: int) -> None:
        """Finish this game, then deal another."""
        self.finish()
        self._begin(preset, players, seed)

    @invariant()
    def cards_and_scores(self) -> None:
        """Card conservation and totals hold between rules too."""
        if self.state is not None:
            check_cards(self.state, melds=False)
            check_scores(self.state)

    def finish(self) -> None:
        """Play to the end (or `MAX_GAME_STEPS`), then replay the game from its seed
        and compare."""
        while self.active and len(self.history) < MAX_GAME_STEPS:
            self.step(checks=0 if len(self.history) % 3 else 1)
        assert self.state is not None and self.start is not None
        state, events = self.start, []
        for seat, move in self.history:
            state, more = apply(state, seat, move)
            events.extend(more)
        assert events == self.events
        assert encode_state(state) == encode_state(self.state)

    def teardown(self) -> None:
        """Every game is played out and replays identically."""
        if self.state is not None:
            self.finish()


JOKER_GAMES_SETTINGS = settings(
    max_examples=60,
    stateful_step_count=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_joker_games_keep_every_invariant_and_cover_both_joker_presets() -> None:
    """The state machine's games keep the invariants, and both joker presets got games."""
    played = Counter[str]()

    class Counted(JokerGames):
        """The machine, counting into this run's own counter."""

        def __init__(self) -> None:
            super().__init__()
            self.played = played

    run_state_machine_as_test(Counted, settings=JOKER_GAMES_SETTINGS)
    assert all(played[p] >= 5 for p in JOKER_PRESETS), played
