"""Property tests of two rulings, beside the random-play invariants
(tests/rules/test_random_play.py, tests/rules/test_jokers_random.py):

- ``joker_limit: one_natural``: every meld `legal_moves` lists applies and holds a
  natural card; `make_meld` of any 3-6 cards with a natural card never crashes and
  what it answers is a consistent meld (the one-natural ruling included), and
  whatever ``natural_majority`` accepts, ``one_natural`` reads the same way;
- ``last_stock: when_empty`` (traditional, meld_first): in random games a round
  that ends ``stock_exhausted`` ends right after the turn whose draw emptied a
  stock that may not be refilled, such a turn always ends the round, and every
  card is accounted for throughout.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from service.rules.cards import JOKER, NATURAL_CARDS, build_deck, rank, suit
from service.rules.engine import SeatSpec, apply, cards_in_play, legal_moves, new_game
from service.rules.melds import ACE_MODES, make_meld
from service.rules.moves import Discard, Draw, LayOff, Meld, Move, SwapJoker
from service.rules.options import resolve_options
from service.rules.state import GameState
from tests.rules.scripted import scripted

ONE = "one_natural"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _naturals(cards: tuple[str, ...]) -> list[str]:
    return [c for c in cards if c != JOKER]


def _check_shape(cards: list[str], ace: str) -> None:
    """`make_meld` under one_natural answers a consistent meld for ``cards``, or ``None``."""
    shape = make_meld(cards, ace, ONE)
    majority = make_meld(cards, ace, "natural_majority")
    if majority is not None:  # natural_majority's melds are one_natural's, read the same
        assert shape == majority
    if shape is None:
        return
    assert Counter(shape.cards) == Counter(cards)
    assert len(shape.stands_for) == len(shape.cards)
    assert len(set(shape.stands_for)) == len(shape.stands_for)
    for card, stands in zip(shape.cards, shape.stands_for, strict=True):
        assert stands != JOKER and card in (JOKER, stands)
    naturals = _naturals(shape.cards)
    assert naturals
    if shape.kind == "set":
        assert 3 <= len(shape.cards) <= 4
        assert len({rank(c) for c in shape.stands_for}) == 1
    else:
        assert len(shape.cards) >= (5 if len(naturals) == 1 else 3)
        assert len({suit(c) for c in shape.stands_for}) == 1
    if len(naturals) == 1:
        # The ruling: one natural card with two or three jokers is a set of its rank,
        # the jokers standing for the missing suits in the order C D H S.
        if len(shape.cards) <= 4:
            assert shape.kind == "set"
            missing = [s for s in "CDHS" if s != suit(naturals[0])][: len(shape.cards) - 1]
            jokers = [st_ for c, st_ in zip(shape.cards, shape.stands_for, strict=True)
                      if c == JOKER]  # fmt: skip
            assert [suit(c) for c in jokers] == missing
        else:
            assert shape.kind == "run"
    # What the jokers stand for, given in their place, is the same meld.
    again = make_meld(list(shape.stands_for), ace, ONE)
    assert again is not None and sorted(again.stands_for) == sorted(shape.stands_for)


@settings(max_examples=400, deadline=None)
@given(
    naturals=st.lists(st.sampled_from(NATURAL_CARDS), min_size=1, max_size=6),
    # (cards repeat as in two decks: a meld never holds one twice)
    jokers=st.integers(0, 5),
    ace=st.sampled_from(ACE_MODES),
    data=st.data(),
)
def test_one_natural_make_meld_of_3_to_6_cards_is_consistent(
    naturals: list[str], jokers: int, ace: str, data: st.DataObject
) -> None:
    cards = (naturals + [JOKER] * jokers)[:6]
    assume(len(cards) >= 3)
    order = data.draw(st.permutations(cards), label="order")
    _check_shape(list(order), ace)


@settings(max_examples=200, deadline=None)
@given(
    natural=st.sampled_from(NATURAL_CARDS),
    jokers=st.integers(2, 5),
    at=st.integers(0, 5),
    ace=st.sampled_from(ACE_MODES),
)
def test_one_natural_make_meld_of_one_natural_card_follows_the_ruling(
    natural: str, jokers: int, at: int, ace: str
) -> None:
    cards = [JOKER] * jokers
    cards.insert(min(at, jokers), natural)
    _check_shape(cards, ace)
    shape = make_meld(cards, ace, ONE)
    if jokers <= 3:
        assert shape is not None and shape.kind == "set"  # always a set: never refused


# ---------------------------------------------------------------------------
# Every listed meld under one_natural applies


def _one_natural_game(hand: list[str], ace: str, jokers: int) -> GameState:
    """Seat 0 to play with ``hand`` (8 cards, no draw: first_turn_no_draw) in a
    2-player game of ``jokers`` jokers under one_natural, joker swaps on."""
    deck = [*NATURAL_CARDS, *[JOKER] * jokers]
    rest = Counter(deck)
    rest.subtract(Counter(hand))
    other = [c for c in NATURAL_CARDS if rest[c] > 0][:7]
    state, _ = scripted(
        "vrotham", [" ".join(hand), " ".join(other)], dealer=1,
        options={"ace": ace, "jokers": jokers},
    )  # fmt: skip
    return state


@st.composite
def one_natural_hands(draw: st.DrawFn) -> tuple[list[str], str, int]:
    jokers = draw(st.integers(1, 4), label="jokers")
    in_hand = draw(st.integers(1, jokers), label="jokers in hand")
    # Naturals near each other, so that runs and sets form.
    suit_ = draw(st.sampled_from("CDHS"))
    low = draw(st.integers(0, 8))
    near = [f"{suit_}{r}" for r in RANKS[low : low + 5]]  # a run's cards
    near += [f"{s}{r}" for s in "CDHS" for r in RANKS[low : low + 2] if s != suit_]  # sets
    pool = sorted(set(near) | set(draw(st.lists(st.sampled_from(NATURAL_CARDS), max_size=6))))
    naturals = draw(
        st.lists(st.sampled_from(pool), min_size=8 - in_hand, max_size=8 - in_hand, unique=True)
    )
    ace = draw(st.sampled_from(ACE_MODES))
    return [*naturals, *[JOKER] * in_hand], ace, jokers


def _check_listed(state: GameState, seat: int) -> list[Move]:
    """Every meld and lay-off listed applies, holds a natural card and makes the
    meld `make_meld` reads; returns the moves."""
    moves = legal_moves(state, seat)
    assert state.round is not None
    for move in moves:
        if not isinstance(move, Meld | LayOff):
            continue
        after, events = apply(state, seat, move)
        assert after.round is not None or after.rounds[-1].reason == "went_out"
        done = next(e for e in events if e["type"] in ("melded", "laid_off"))
        shown = done["meld"] if done["type"] == "melded" else done["result"]
        assert [c for c in shown["cards"] if c != JOKER], move
        if isinstance(move, Meld):
            shape = make_meld(move.cards, state.options.ace, ONE)
            assert shape is not None and list(shape.cards) == shown["cards"]
    return moves


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(one_natural_hands(), st.randoms(use_true_random=False))
def test_one_natural_every_listed_meld_applies_and_has_a_natural_card(
    drawn: tuple[list[str], str, int], rng: random.Random
) -> None:
    hand, ace, jokers = drawn
    state = _one_natural_game(hand, ace, jokers)
    assert state.options.joker_limit == ONE
    moves = _check_listed(state, 0)
    # Then one meld down, and the lay-offs and swaps listed on it.
    melds = [m for m in moves if isinstance(m, Meld)]
    if melds:
        state, _ = apply(state, 0, rng.choice(melds))
        if state.round is not None and state.round.turn == 0:
            for move in _check_listed(state, 0):
                if isinstance(move, SwapJoker):
                    apply(state, 0, move)


# ---------------------------------------------------------------------------
# last_stock when_empty in random games


def _policy(state: GameState, seat: int, moves: list[Move], rng: random.Random) -> Move:
    """Draw (mostly from the stock), meld now and then, discard at random: rounds
    mostly run to the stock's end, some go out."""
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws:
        stock = [m for m in draws if m.source == "stock"]
        return rng.choice(stock) if stock and rng.random() < 0.8 else rng.choice(draws)
    acts = [m for m in moves if isinstance(m, Meld | LayOff)]
    if acts and rng.random() < 0.15:
        return rng.choice(acts)
    discards = [m for m in moves if isinstance(m, Discard)]
    return rng.choice(discards or moves)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["traditional", "meld_first"]),
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    hand_size=st.sampled_from([None, 10, 12]),
)
def test_when_empty_rounds_end_right_after_the_turn_that_emptied_the_last_stock(
    preset: str, players: int, seed: int, hand_size: int | None
) -> None:
    overrides: dict[str, object] = {"target_score": 20}
    if hand_size is not None:
        overrides["hand_size"] = hand_size
    options = resolve_options(preset, overrides, players)
    assert options.last_stock == "when_empty"
    state, _ = new_game(options, preset, [SeatSpec(f"p{i}") for i in range(players)], seed=seed)
    rng = random.Random(seed)
    deck = Counter(build_deck(options.decks, options.jokers))
    emptied_by: int | None = None  # the seat whose draw emptied a last stock, this round
    ends = Counter[str]()
    for _ in range(2_000):
        if state.status != "active":
            break
        r = state.round
        assert r is not None and cards_in_play(state) == deck
        seat = r.turn
        moves = legal_moves(state, seat)
        move = _policy(state, seat, moves, rng)
        state, events = apply(state, seat, move)
        ended = [e for e in events if e["type"] == "round_ended"]
        if isinstance(move, Draw) and state.round is not None and state.round.number == r.number:
            now = state.round
            if move.source == "stock" and not now.stock and not options.may_refill(now.refills):
                emptied_by = seat
        if ended:
            reason = ended[0]["reason"]
            ends[reason] += 1
            if reason == "stock_exhausted":
                # Right after the discard of the seat whose draw emptied the last stock
                # (a stock refilled to nothing ends at the draw that finds it so).
                if isinstance(move, Discard):
                    assert emptied_by == seat
                else:
                    assert isinstance(move, Draw) and emptied_by is None
            else:
                assert reason in ("went_out", "blocked")
            emptied_by = None
        elif emptied_by is not None:
            # The turn that drew the last card goes on until it ends: then the round ends.
            assert emptied_by == seat and not isinstance(move, Discard)
    assert sum(ends.values()) >= 1
