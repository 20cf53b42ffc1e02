"""Whole games of the joker presets, ``vrotham`` and ``romme``, to their end.

Each game deals its first round from a written deck and plays it move by move as
scripted; the later rounds are dealt from the game's seed and played by a fixed
policy (largest meld, then largest lay-off, then a joker swap, else shed the
highest card no meld needs). Every event of the game is then checked against the
preset's rules: the first player's extra card and no up-card in every round,
concealed rounds (``vrotham`` 4-6), the 40-point first melds (``romme``), jokers
never outnumbering natural cards on the table, and the totals and the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.rules.cards import JOKER, card_points
from service.rules.engine import Event, apply, cards_in_play, legal_moves
from service.rules.melds import candidate_melds, make_meld, meld_points
from service.rules.moves import Discard, Draw, LayOff, Meld, Move, SwapJoker
from service.rules.state import GameState
from tests.rules.scripted import play, scripted, types


def policy(state: GameState) -> tuple[int, Move]:
    """The fixed policy of the later rounds: the seat to move and its move."""
    assert state.round is not None
    seat = state.round.turn
    moves = legal_moves(state, seat)
    for kind in (Meld, LayOff):
        found = [m for m in moves if isinstance(m, kind)]
        if found:
            return seat, max(found, key=lambda m: len(m.cards))  # type: ignore[union-attr]
    for m in moves:
        if isinstance(m, SwapJoker | Draw):
            return seat, m if not isinstance(m, Draw) else Draw("stock")
    opts = state.options
    hand = state.round.hands[seat]
    useful = {c for meld in candidate_melds(hand, opts.ace) for c in meld}
    discards = [m for m in moves if isinstance(m, Discard)]
    pool = [m for m in discards if m.card not in useful] or discards
    return seat, max(pool, key=lambda m: card_points(m.card, opts.ace_points, opts.joker_points))


def play_out(state: GameState, limit: int = 20_000) -> tuple[GameState, list[Event]]:
    """Play the policy to the end of the game, checking that every card stays accounted for."""
    events: list[Event] = []
    deck_size = state.options.deck_size()
    for _ in range(limit):
        if state.status != "active":
            return state, events
        assert sum(cards_in_play(state).values()) == deck_size
        seat, move = policy(state)
        state, more = apply(state, seat, move)
        events.extend(more)
    raise AssertionError("the game did not end")


def meld_value(meld: dict[str, Any]) -> int:
    """The first-meld points of a meld as an event shows it."""
    jokers = meld.get("jokers", {})
    stands = [jokers.get(str(i), c) for i, c in enumerate(meld["cards"])]
    shape = make_meld(stands, "low")
    assert shape is not None
    return meld_points(shape)


def check_common(state: GameState, events: Sequence[Event], hand_size: int) -> None:
    """Every round starts with no up-card and the first player holding one card more;
    jokers never outnumber natural cards in a meld; totals are the rounds' points."""
    starts = [e for e in events if e["type"] == "round_started"]
    ends = [e for e in events if e["type"] == "round_ended"]
    assert len(starts) == len(ends) == len(state.rounds)
    for e in starts:
        assert e["discard_pile"] == []
        sizes = [len(h) for h in e["hands"]]
        assert sizes[e["first"]] == hand_size + 1
        assert all(s == hand_size for i, s in enumerate(sizes) if i != e["first"])
    for e in events:
        meld = e.get("meld") if e["type"] == "melded" else e.get("result")
        if isinstance(meld, dict):
            jokers = meld["cards"].count(JOKER)
            assert jokers <= len(meld["cards"]) - jokers
            assert len(meld.get("jokers", {})) == jokers
    totals = [sum(rec.points[i] for rec in state.rounds) for i in range(state.players)]
    assert [s.score for s in state.seats] == totals
    assert ends[-1]["scores"] == totals
    assert types(events)[-1] == "game_ended"


# ---------------------------------------------------------------------------
# vrotham: 55 cards, 7-card hands, six rounds, rounds 4-6 concealed


def test_a_whole_game_of_vrotham() -> None:
    state, events = scripted(
        "vrotham",
        ["H7 JK H9 C2 C3 C4 SK D5", "H8 D2 S6 S8 S10 SQ DK"],
        stock="H10 C5",
        dealer=1,
        seed=11,
    )
    # Round 1, seat 0 (eight cards, no draw): a run with a joker for H8, a run, a discard.
    state, ev = play(state, 0, "meld H7 JK H9", "meld C2 C3 C4", "discard SK")
    assert ev[0]["meld"]["jokers"] == {"1": "H8"}
    events += ev
    # Seat 1 swaps H8 for that joker and uses it at once (S9), and lays H10 off.
    state, ev = play(
        state, 1, "draw stock", "swap 1 H8", "layoff 1 H10", "meld S8 JK S10", "discard DK"
    )
    assert ev[1]["result"]["cards"] == ["H7", "H8", "H9"]
    assert ev[3]["meld"] == {
        "id": 3, "type": "run", "cards": ["S8", "JK", "S10"], "owner": 1, "jokers": {"1": "S9"},
    }  # fmt: skip
    events += ev
    # Seat 0 lays C5 off and goes out with the discard of its last card.
    state, ev = play(state, 0, "draw stock", "layoff 2 C5", "discard D5")
    events += ev
    end = next(e for e in ev if e["type"] == "round_ended")
    assert (end["winner"], end["rummy"], end["points"]) == (0, False, [18, 0])  # D2 S6 SQ
    # Rounds 2 to 6, dealt from the seed.
    state, ev = play_out(state)
    events += ev
    assert state.status == "finished" and len(state.rounds) == 6
    check_common(state, events, 7)
    scores = [s.score for s in state.seats]
    assert list(state.winners or ()) == [i for i, s in enumerate(scores) if s == max(scores)]
    # Rounds 4-6 are concealed: no lay-off, and a seat melds only in the turn it goes out.
    number = 0
    for i, e in enumerate(events):
        if e["type"] == "round_started":
            number = e["number"]
        if number >= 4:
            assert e["type"] != "laid_off"
            if e["type"] == "melded":
                after = [x["type"] for x in events[i:] if x["type"] in ("drew", "went_out")]
                assert after[0] == "went_out"
    assert [r.reason for r in state.rounds[3:]] == ["went_out"] * 3


# ---------------------------------------------------------------------------
# romme: two decks and six jokers, 13-card hands, first melds of 40, to 150


def test_a_whole_game_of_romme() -> None:
    state, events = scripted(
        "romme",
        [
            "CA DA JK S5 S6 S7 D9 D10 DJ H2 H4 C6 C8 SK",
            "HA D5 D6 D7 C10 CJ CQ CK S2 S9 H6 H9 HK",
        ],
        stock="S8 H3 C7 C9",
        dealer=1,
        seed=5,
    )
    # Seat 0 opens with 33 (A A and a joker as HA) + 18 = 51, then melds again.
    assert refused_code(state, 0, Meld(("D9", "D10", "DJ"))) is None
    assert refused_code(state, 0, Meld(("S5", "S6", "S7"))) is None
    state, ev = play(state, 0, "meld CA DA JK", "meld S5 S6 S7", "meld D9 D10 DJ", "discard SK")
    assert ev[0]["meld"]["jokers"] == {"2": "HA"}
    events += ev
    # Seat 1 opens with 40 (C10-CK) and may then lay off in the same turn.
    state, ev = play(state, 1, "draw stock")
    assert refused_code(state, 1, LayOff(2, ("S8",))) == "first_meld_minimum"
    state, more = play(state, 1, "meld C10 CJ CQ CK", "layoff 2 S8", "meld D5 D6 D7", "discard HK")
    events += ev + more
    state, ev = play(state, 0, "draw stock", "meld H2 H3 H4", "discard C6")
    events += ev
    # Seat 1 swaps HA for the joker of the aces and lays the joker off as D8.
    state, ev = play(
        state, 1, "draw stock", "swap 1 HA", "layoff 5 JK", "layoff 2 S9", "discard H9"
    )
    assert ev[2]["result"]["jokers"] == {"3": "D8"}
    events += ev
    # Seat 0 goes out by laying C8 C9 off below C10-CK.
    state, ev = play(state, 0, "draw stock", "layoff 4 C8 C9")
    events += ev
    end = next(e for e in ev if e["type"] == "round_ended")
    assert (end["winner"], end["points"]) == (0, [15, 0])  # S2 H6 C7 left with seat 1
    state, ev = play_out(state)
    events += ev
    assert state.status == "finished"
    check_common(state, events, 13)
    scores = [s.score for s in state.seats]
    before = [sum(r.points[i] for r in state.rounds[:-1]) for i in range(state.players)]
    assert max(before) < 150 <= max(scores)  # the game ends in the round that reaches 150
    assert list(state.winners or ()) == [i for i, s in enumerate(scores) if s == max(scores)]
    # Every seat's first melds of a round, in one turn, reach 40; no lay-off before them.
    opened: set[int] = set()
    pending: dict[int, int] = {}
    for e in events:
        kind, seat = e["type"], e.get("seat")
        if kind == "round_started":
            opened, pending = set(), {}
        elif kind == "melded" and seat not in opened:
            pending[seat] = pending.get(seat, 0) + meld_value(e["meld"])
            if pending[seat] >= 40:
                opened.add(seat)
        elif kind == "laid_off":
            assert seat in opened
        elif kind in ("discarded", "went_out") and seat not in opened:
            assert pending.get(seat, 0) == 0
        elif kind == "joker_swapped":
            assert e["card"] != JOKER


def refused_code(state: GameState, seat: int, move: Move) -> str | None:
    """``None`` if ``move`` is listed, else the code ``apply`` refuses it with."""
    from service.rules.moves import IllegalMove

    if move in legal_moves(state, seat):
        return None
    try:
        apply(state, seat, move)
    except IllegalMove as err:
        return err.code
    raise AssertionError(f"{move} applied but was not listed")
