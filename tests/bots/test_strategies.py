"""Built-in strategies: legal choices only, no hidden information, and greedy's habits."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import random
import zlib
from typing import Any

import pytest

from service.bots.hand import Scoring, best_split, outs, unseen_cards
from service.bots.memory import Memory
from service.bots.play import UNBOUNDED, play_bots
from service.bots.strategies import STRATEGIES, choose_move
from service.rules.cards import build_deck, card_points
from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.melds import candidate_melds
from service.rules.moves import DeclineReengage, Discard, Draw, LayOff, Meld, Move, Reengage
from service.rules.options import PRESETS, resolve_options
from service.rules.state import GameState
from service.rules.views import redact_event, seat_view

MAX_MOVES = 500  # per game: enough to cross rounds, refills and (elimination) re-engaging


def _game(preset: str, players: int, seed: int) -> GameState:
    opts = resolve_options(preset, {}, players)
    seats = [SeatSpec(name=f"p{i}") for i in range(players)]
    state, _ = new_game(opts, preset, seats, seed=seed)
    return state


def _strategies() -> list[Any]:
    """Every strategy; the expert and its searching levels (a search per choice) in the
    slow tier."""
    searching = {"expert", "expert3", "expert4", "expert5"}
    return [
        pytest.param(name, marks=pytest.mark.slow) if name in searching else name
        for name in sorted(STRATEGIES)
    ]


@pytest.mark.parametrize("strategy", _strategies())
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_choice_is_a_listed_legal_move(strategy: str, preset: str) -> None:
    players = 3 if preset != "express" else 2
    state = _game(preset, players, seed=zlib.crc32(f"{strategy}/{preset}".encode()))
    memory = Memory(round=1)
    rng = random.Random(1)
    kinds: set[str] = set()
    for _ in range(MAX_MOVES):
        if state.status != "active":
            break
        seat = next(s for s in range(players) if legal_moves(state, s))
        moves = legal_moves(state, seat)
        move = choose_move(strategy, seat_view(state, seat), moves, rng, memory)
        assert move in moves, (strategy, preset, move, moves)
        kinds.add(type(move).__name__)
        state, events = apply(state, seat, move)
        memory.observe_all(redact_event(e, None) for e in events)
    assert {"Draw", "Discard"} <= kinds or state.status == "finished"


def test_strategies_take_only_the_view_the_moves_a_generator_and_memory() -> None:
    for name, strategy in STRATEGIES.items():
        params = list(inspect.signature(strategy).parameters)
        assert params == ["view", "moves", "rng", "memory"], name


def _swap_hidden(state: GameState, seat: int) -> GameState:
    """The same game except that another seat's first card and the top of the stock trade places."""
    r = state.round
    assert r is not None and r.stock
    other = (seat + 1) % state.players
    hands = list(r.hands)
    hidden, top = hands[other][0], r.stock[-1]
    assert hidden != top
    hands[other] = (top, *hands[other][1:])
    stock = (*r.stock[:-1], hidden)
    return dataclasses.replace(state, round=dataclasses.replace(r, hands=tuple(hands), stock=stock))


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_states_differing_only_in_hidden_cards_get_the_same_choice(strategy: str) -> None:
    state = _game("standard", 3, seed=11)
    checked = 0
    for step in range(120):
        if state.status != "active" or state.round is None or not state.round.stock:
            break
        seat = state.round.turn
        moves = legal_moves(state, seat)
        twin = _swap_hidden(state, seat)
        assert twin.round != state.round  # the hidden cards really differ
        view, twin_view = seat_view(state, seat), seat_view(twin, seat)
        assert view == twin_view
        assert legal_moves(twin, seat) == moves
        here = choose_move(strategy, view, moves, random.Random(step))
        there = choose_move(strategy, twin_view, moves, random.Random(step))
        assert here == there
        checked += 1
        state, _ = apply(state, seat, choose_move("greedy", view, moves, random.Random(step)))
    assert checked >= 60


def test_greedy_beats_random_in_every_one_of_ten_seeded_games() -> None:
    for seed in range(10):
        opts = resolve_options("standard", {}, 2)
        seats = [SeatSpec(kind="bot", bot="greedy"), SeatSpec(kind="bot", bot="random")]
        if seed % 2:
            seats.reverse()
        state, _ = new_game(opts, "standard", seats, seed=seed)
        state = play_bots(state, UNBOUNDED).state
        assert state.winners == ((seed % 2),)


# --- greedy's habits, on views written out by hand --------------------------------


def _view(
    hand: list[str],
    *,
    pile: list[str] | None = None,
    melds: list[dict[str, Any]] | None = None,
    phase: str = "play",
    hand_sizes: tuple[int, ...] = (10, 10, 10),
    preset: str = "standard",
) -> dict[str, Any]:
    """A seat view (docs/api.md shape) of seat 0 in round 1."""
    sizes = [len(hand), *hand_sizes[1:]]
    return {
        "status": "active",
        "preset": preset,
        "options": PRESETS[preset].options.to_json(),
        "you": 0,
        "hand": hand,
        "seats": [
            {
                "seat": i,
                "name": f"p{i}",
                "kind": "human",
                "hand_size": n,
                "score": 0,
                "has_melded": False,
                "eliminated": False,
            }
            for i, n in enumerate(sizes)
        ],
        "round": {
            "number": 1,
            "dealer": 2,
            "turn": 0,
            "phase": phase,
            "stock_size": 20,
            "refills": 0,
            "discard_pile": pile or [],
            "taken_discard": None,
            "melds": melds or [],
        },
        "rounds": [],
        "winners": None,
    }


def _discards(hand: list[str]) -> list[Move]:
    return [Discard(c) for c in hand]


def _greedy(view: dict[str, Any], moves: list[Move], memory: Memory | None = None) -> set[Move]:
    """Every move greedy makes here over a few generators (ties are broken at random)."""
    return {choose_move("greedy", view, moves, random.Random(i), memory) for i in range(8)}


def test_greedy_takes_the_discard_only_when_it_completes_or_extends_a_meld() -> None:
    draws: list[Move] = [Draw("discard"), Draw("stock")]
    hand = ["C2", "D9", "H5", "H6", "SK"]
    assert _greedy(_view(hand, pile=["C9", "H7"], phase="draw"), draws) == {Draw("discard")}
    assert _greedy(_view(hand, pile=["H7", "SQ"], phase="draw"), draws) == {Draw("stock")}
    # H8 can be laid off on the run on the table at once.
    run = {"id": 1, "type": "run", "cards": ["H9", "H10", "HJ"], "owner": 1}
    assert _greedy(_view(hand, pile=["H8"], melds=[run], phase="draw"), draws) == {Draw("discard")}


def test_greedy_melds_the_best_split_not_just_the_longest_meld() -> None:
    # C4-C7 is the longest meld, but C4 C5 C6 + C7 D7 H7 leaves only SK in hand.
    hand = ["C4", "C5", "C6", "C7", "D7", "H7", "SK"]
    moves: list[Move] = [Meld(m) for m in candidate_melds(hand, "low")]
    moves += _discards(hand)
    assert Meld(("C4", "C5", "C6", "C7")) in moves
    assert _greedy(_view(hand), moves) <= {Meld(("C4", "C5", "C6")), Meld(("C7", "D7", "H7"))}


def test_greedy_lays_off_deadwood_before_discarding() -> None:
    run = {"id": 3, "type": "run", "cards": ["S4", "S5", "S6"], "owner": 2}
    hand = ["D2", "S7", "HQ"]
    moves: list[Move] = [LayOff(3, ("S7",)), *_discards(hand)]
    assert _greedy(_view(hand, melds=[run]), moves) == {LayOff(3, ("S7",))}


def test_greedy_discards_the_highest_card_that_helps_least() -> None:
    # C2 C3 wait for CA or C4; DK is worth 10 and melds with nothing.
    hand = ["C2", "C3", "DK", "H9", "S5"]
    assert _greedy(_view(hand), _discards(hand)) == {Discard("DK")}
    # A partial meld is kept while nobody is close to going out...
    hand = ["C9", "C10", "D8"]
    assert _greedy(_view(hand), _discards(hand)) == {Discard("D8")}
    # ... but when an opponent holds one card the high cards go first.
    close = _view(hand, hand_sizes=(3, 1, 6))
    assert _greedy(close, _discards(hand)) == {Discard("C10")}


def test_greedy_keeps_a_partial_meld_whose_outs_are_still_live() -> None:
    hand = ["H4", "H5", "S2", "CA"]
    assert _greedy(_view(hand), _discards(hand)) == {Discard("S2")}
    # Once H3 and H6 are both on the table, H4 H5 is dead: shed it, H5 first.
    melds = [
        {"id": 1, "type": "set", "cards": ["C3", "D3", "H3"], "owner": 1},
        {"id": 2, "type": "set", "cards": ["C6", "D6", "H6"], "owner": 2},
    ]
    assert _greedy(_view(hand, melds=melds), _discards(hand)) == {Discard("H5")}


def test_greedy_does_not_feed_the_next_seat_what_it_collects() -> None:
    hand = ["HK", "DQ", "C2"]
    without_memory = _greedy(_view(hand), _discards(hand))
    assert without_memory == {Discard("HK"), Discard("DQ")}  # equal points: either
    memory = Memory()
    memory.observe_all(
        [
            {"type": "round_started", "number": 1},
            {"type": "discarded", "seat": 0, "card": "CK"},
            {"type": "drew", "seat": 1, "source": "discard", "card": "CK"},
        ]
    )
    assert memory.collected == {1: ["CK"]}
    assert _greedy(_view(hand), _discards(hand), memory) == {Discard("DQ")}


def _offer(score: int, stake: int | None = None) -> dict[str, Any]:
    """Seat 0's view between the rounds of an elimination game (target 100), offered
    to re-engage with ``score`` (the highest total among the players still in)."""
    view = _view([], preset="elimination")
    view["round"] = None
    if stake is not None:
        view["options"] = {**view["options"], "stake": stake}
    chips = None if stake is None else -(-stake // 2)
    view["reengage"] = {"seats": [0], "score": score, "chips": chips, "deadline": None}
    return view


DECISION: list[Move] = [Reengage(), DeclineReengage()]


@pytest.mark.parametrize("strategy", ["greedy", "expert"])
@pytest.mark.parametrize(
    ("score", "stake", "choice"),
    [
        (40, None, Reengage()),  # well below the target: back in
        (99, None, Reengage()),  # one point of room still can win
        (100, None, DeclineReengage()),  # at the target: it would be out again at once
        (120, None, DeclineReengage()),
        (90, 10, Reengage()),  # with a stake: ten points of room are enough
        (91, 10, DeclineReengage()),  # less: the half stake is likely lost
    ],
)
def test_bots_decide_the_reengage_by_the_comeback_total(
    strategy: str, score: int, stake: int | None, choice: Move
) -> None:
    view = _offer(score, stake)
    picked = {choose_move(strategy, view, DECISION, random.Random(i)) for i in range(4)}
    assert picked == {choice}


# --- memory and hand arithmetic ---------------------------------------------------


def test_memory_keeps_public_facts_of_the_current_round_only() -> None:
    memory = Memory()
    memory.observe_all(
        [
            {"type": "round_started", "number": 2, "hand": ["C2"]},
            {"type": "drew", "seat": 1, "source": "stock", "card": "S9"},  # the drawer's own view
            {"type": "drew", "seat": 1, "source": "discard", "card": "H7"},
            {"type": "drew", "seat": 2, "source": "discard", "card": "D4"},
            {"type": "melded", "seat": 2, "meld": {"cards": ["D2", "D3", "D4"]}},
            {"type": "discarded", "seat": 1, "card": "SK"},
            {"type": "laid_off", "seat": 1, "meld": 5, "cards": ["C8"]},
        ]
    )
    assert memory.round == 2
    assert memory.collected == {1: ["H7"], 2: []}
    assert memory.discarded == {1: ["SK"]}
    memory.observe({"type": "round_started", "number": 3})
    assert memory.round == 3 and not memory.collected and not memory.discarded


def _brute_force_deadwood(hand: list[str], scoring: Scoring) -> int:
    melds = candidate_melds(hand, scoring.ace)
    best = sum(scoring.points(c) for c in hand)
    for k in range(1, len(hand) // 3 + 1):
        for combo in itertools.combinations(melds, k):
            rest = list(hand)
            try:
                for meld in combo:
                    for c in meld:
                        rest.remove(c)
            except ValueError:
                continue
            best = min(best, sum(scoring.points(c) for c in rest))
    return best


@pytest.mark.parametrize(
    ("decks", "jokers", "ace"), [(1, 0, "low"), (1, 0, "around"), (2, 2, "low")]
)
def test_best_split_leaves_the_fewest_deadwood_points(decks: int, jokers: int, ace: str) -> None:
    rng = random.Random(f"{decks}{jokers}{ace}")
    deck = build_deck(decks, jokers)
    scoring = Scoring(ace, 1, 15)
    # Draw from the low ranks of two suits plus jokers, where melds overlap most.
    pool = [c for c in deck if c == "JK" or (c[0] in "CH" and c[1:] in "A23456")]
    for _ in range(150):
        hand = rng.sample(pool, 8)
        split = best_split(hand, scoring)
        assert split.points == _brute_force_deadwood(hand, scoring), hand
        assert split.points == sum(scoring.points(c) for c in split.deadwood)
        assert sorted([*split.deadwood, *(c for m in split.melds for c in m)]) == sorted(hand)


def test_outs_count_the_unseen_cards_that_make_a_partial_a_meld() -> None:
    unseen = unseen_cards(1, 0, ["H4", "H5", "D5"])
    # H4 H5: H3 and H6; H5 D5: C5 and S5.
    assert outs("H5", ["H4", "D5"], unseen, "low") == 4
    assert outs("H5", ["H4"], unseen_cards(1, 0, ["H4", "H5", "H3"]), "low") == 1
    assert outs("SK", ["SQ"], unseen, "low") == 1  # SJ only: no ace above the king
    assert outs("SK", ["SQ"], unseen, "high_or_low") == 2
    assert card_points("SK", 1, 0) == 10
