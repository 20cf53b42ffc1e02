"""The end of the stock (docs/rules.md "Rulings"): ``last_stock: when_empty``
(traditional, meld_first) and the blocked rounds that end early only where
`Options.blocked_ends_early` (not in the block preset, nor with limited refills and
counted hands).

``when_empty``: when the last card of a stock that may not be refilled is drawn,
the drawer finishes the turn; unless they go out, the round ends
``stock_exhausted`` right after their discard. ``next_draw`` (the default): the
round ends when the next player finds the stock empty and does not take the discard.
"""

from __future__ import annotations

import pytest

from service.rules.blocked import round_blocked
from service.rules.cards import build_deck
from service.rules.engine import Event, legal_moves
from service.rules.moves import Draw
from service.rules.options import PRESETS
from service.rules.state import GameState
from tests.rules.scripted import play, scripted, types

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def suit_run(suit: str, count: int = 13) -> str:
    """The first ``count`` cards of a suit, ace up: one run."""
    return " ".join(f"{suit}{r}" for r in RANKS[:count])


#: Two hands of 25 (clubs and diamonds A-Q; hearts and spades A-Q), up-card DK and
#: a stock of one card, SK: the first stock runs out on the first draw.
CLUBS_DIAMONDS = f"{suit_run('C')} {suit_run('D', 12)}"
HEARTS_SPADES = f"{suit_run('H')} {suit_run('S', 12)}"


def short_stock(preset: str, **options: object) -> GameState:
    """Two seats dealt 25 cards each: one card (SK) in the stock, DK face up."""
    state, _ = scripted(
        preset, [CLUBS_DIAMONDS, HEARTS_SPADES], up="DK", stock="SK", dealer=1,
        options={"hand_size": 25, **options},
    )  # fmt: skip
    return state


def drawn(events: list[Event]) -> str:
    """The card the last ``drew`` event shows its drawer."""
    return next(e["card"] for e in reversed(events) if e["type"] == "drew")


def to_the_second_stocks_last_card(preset: str, **options: object) -> GameState:
    """Play ``short_stock`` until seat 0 has drawn the last card of the refilled stock.

    Seat 0 draws SK (the first stock's last card: the stock may be refilled once, so
    play goes on) and discards it; seat 1 draws from the refilled stock of two
    (DK, SK) and discards; seat 0 draws its last card."""
    state = short_stock(preset, **options)
    state, ev = play(state, 0, "draw stock", "discard SK")
    assert "round_ended" not in types(ev)
    assert state.round is not None and state.round.stock == () and state.round.refills == 0
    state, ev = play(state, 1, "draw stock")
    assert types(ev) == ["stock_refilled", "drew"]
    state, ev = play(state, 1, f"discard {drawn(ev)}")
    assert "round_ended" not in types(ev)
    state, ev = play(state, 0, "draw stock")
    assert state.round is not None and state.round.stock == () and state.round.refills == 1
    assert not state.options.may_refill(state.round.refills)
    return state


@pytest.mark.parametrize("preset", ["traditional", "meld_first"])
def test_when_empty_presets(preset: str) -> None:
    assert PRESETS[preset].options.last_stock == "when_empty"
    assert PRESETS[preset].options.max_refills == 1
    assert PRESETS["standard"].options.last_stock == "next_draw"


@pytest.mark.parametrize("preset", ["traditional", "meld_first"])
def test_when_empty_second_stocks_last_card_ends_the_round_after_that_turn(preset: str) -> None:
    state = to_the_second_stocks_last_card(preset)
    # Drawing the last card does not end the round: the drawer finishes the turn.
    assert state.round is not None and state.round.phase == "play"
    assert state.round.number == 1
    state, ev = play(state, 0, f"discard {state.round.hands[0][0]}")
    assert types(ev) == ["discarded", "round_ended", "round_started"]
    ended = ev[1]
    assert ended["reason"] == "stock_exhausted" and ended["winner"] is None
    record = state.rounds[-1]
    assert record.reason == "stock_exhausted" and record.ender == 0  # seat 0's discard ended it
    assert record.points == (0, 0)  # no_winner void
    assert state.round is not None and state.round.number == 2


@pytest.mark.parametrize("preset", ["traditional", "meld_first"])
def test_when_empty_the_drawer_of_the_last_card_may_still_go_out(preset: str) -> None:
    state = to_the_second_stocks_last_card(preset)
    assert state.round is not None
    # Seat 0 holds two runs; whatever it drew is discarded last.
    last = next(c for c in state.round.hands[0] if c not in CLUBS_DIAMONDS.split())
    state, ev = play(
        state, 0, f"meld {suit_run('C')}", f"meld {suit_run('D', 12)}", f"discard {last}"
    )
    assert "went_out" in types(ev)
    record = state.rounds[-1]
    assert record.reason == "went_out" and record.winner == 0


@pytest.mark.parametrize("preset", ["traditional", "meld_first"])
def test_next_draw_override_the_same_turn_does_not_end_the_round(preset: str) -> None:
    # The rule before the ruling: the round goes on until seat 1 finds the stock empty.
    state = to_the_second_stocks_last_card(preset, last_stock="next_draw")
    assert state.round is not None
    state, ev = play(state, 0, f"discard {state.round.hands[0][0]}")
    assert types(ev) == ["discarded"] and state.round is not None and state.round.number == 1
    assert legal_moves(state, 1) == [Draw("discard"), Draw("stock")]
    ended, ev = play(state, 1, "draw stock")
    assert types(ev) == ["round_ended", "round_started"]
    assert ended.rounds[-1].reason == "stock_exhausted" and ended.rounds[-1].ender == 1
    # Or seat 1 takes the discard and plays on.
    on, ev = play(state, 1, "draw discard")
    assert on.round is not None and on.round.number == 1


def full_deal(preset: str, **options: object) -> GameState:
    """Three hands of 17 and the up-card SK use the whole deck: the stock starts empty."""
    deck = build_deck()
    hands = [" ".join(deck[i * 17 : (i + 1) * 17]) for i in range(3)]
    state, _ = scripted(preset, hands, up="SK", dealer=2, options={"hand_size": 17, **options})
    return state


@pytest.mark.parametrize("preset", ["traditional", "meld_first"])
def test_when_empty_a_refill_of_one_card_drawn_ends_the_round_after_the_turn(preset: str) -> None:
    state = full_deal(preset)
    state, ev = play(state, 0, "draw stock")
    assert types(ev) == ["stock_refilled", "drew"] and drawn(ev) == "SK"
    assert state.round is not None and state.round.stock == ()
    state, ev = play(state, 0, "discard D4")
    assert types(ev) == ["discarded", "round_ended", "round_started"]
    assert state.rounds[-1].reason == "stock_exhausted"


def test_block_when_empty_override_a_stock_empty_from_the_deal_ends_after_the_first_turn() -> None:
    state = full_deal("block", last_stock="when_empty")
    state, _ = play(state, 0, "draw discard")
    state, ev = play(state, 0, "discard D4")
    assert types(ev)[:2] == ["discarded", "round_ended"]
    assert state.rounds[-1].reason == "stock_exhausted"
    # Under the block preset's own next_draw the turn ends and play goes on.
    state = full_deal("block")
    state, _ = play(state, 0, "draw discard")
    state, ev = play(state, 0, "discard D4")
    assert types(ev) == ["discarded"] and state.round is not None and state.round.number == 1


def test_standard_when_empty_override_never_ends_a_stock_refilled_without_limit() -> None:
    state = short_stock("standard", last_stock="when_empty")
    for _ in range(3):  # three stocks' last cards drawn, each refilled
        assert state.round is not None
        seat = state.round.turn
        state, ev = play(state, seat, "draw stock")
        state, ev = play(state, seat, f"discard {drawn(ev)}")
        assert "round_ended" not in types(ev)


# ---------------------------------------------------------------------------
# Blocked rounds end early only where it cannot change the result


def sets_game(preset: str, **options: object) -> GameState:
    """Each seat melds a full set and keeps one card (C2, D3): the round is blocked."""
    state, _ = scripted(
        preset, ["C7 D7 H7 S7 C2", "C8 D8 H8 S8 D3"], up="HK", stock="SK DK", dealer=1,
        options={"hand_size": 5, "target_score": 500, **options},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld C7 D7 H7 S7", "discard SK")
    return state


def play_draws_to_the_end(state: GameState, limit: int = 500) -> tuple[GameState, list[Event]]:
    """Each seat draws from the stock and discards the card drawn, until the round ends."""
    number = state.round.number if state.round is not None else 0
    ev: list[Event] = []
    for _ in range(limit):
        if state.round is None or state.round.number != number:
            return state, ev
        seat = state.round.turn
        state, ev = play(state, seat, "draw stock")
        if state.round is None or state.round.number != number:
            return state, ev
        state, ev = play(state, seat, f"discard {drawn(ev)}")
    raise AssertionError("the round did not end")


def test_block_preset_plays_a_blocked_round_on_to_the_stocks_end() -> None:
    state = sets_game("block")
    assert not state.options.blocked_ends_early()
    state, ev = play(state, 1, "draw stock", "meld C8 D8 H8 S8", "discard DK")
    # The old shortcut would have ended the round here ("blocked", 1 point to seat 0) ...
    assert state.round is not None and round_blocked(state.round, state.options)
    assert types(ev) == ["drew", "melded", "discarded"] and state.round.number == 1
    # ... but the hands still change: seat 0 draws CA and keeps it.
    state, ev = play(state, 0, "draw stock")
    assert drawn(ev) == "CA"
    state, _ = play(state, 0, "discard C2")
    state, ev = play_draws_to_the_end(state)
    record = state.rounds[-1]
    assert record.reason == "stock_exhausted" and record.winner is None
    assert record.hands == (("CA",), ("D3",))
    assert record.points == (2, 0)  # lowest takes the difference: 3 - 1


@pytest.mark.parametrize(
    ("options", "ends_early"),
    [
        ({"no_winner": "count"}, True),  # refilled without limit: it would never end
        ({"no_winner": "lowest_takes_difference"}, True),
        ({"no_winner": "void", "max_refills": 1}, True),  # void: ending early changes nothing
        ({"no_winner": "void", "stock_refill": "none"}, True),
        ({"no_winner": "count", "max_refills": 1}, False),  # limited refills, counted hands
        ({"no_winner": "lowest_takes_difference", "stock_refill": "none"}, False),
    ],
)
def test_standard_blocked_round_ends_early_only_where_it_cannot_change_the_result(
    options: dict[str, object], ends_early: bool
) -> None:
    state = sets_game("standard", **options)
    assert state.options.blocked_ends_early() == ends_early
    state, ev = play(state, 1, "draw stock", "meld C8 D8 H8 S8", "discard DK")
    if ends_early:
        assert types(ev)[-3:] == ["discarded", "round_ended", "round_started"]
        assert state.rounds[-1].reason == "blocked"
    else:
        assert types(ev) == ["drew", "melded", "discarded"]
        state, _ = play_draws_to_the_end(state)
        assert state.rounds[-1].reason == "stock_exhausted"


def test_only_the_block_preset_plays_blocked_rounds_on() -> None:
    on = {name for name, p in PRESETS.items() if not p.options.blocked_ends_early()}
    assert on == {"block"}


def test_block_a_round_that_reaches_the_turn_limit_ends_as_blocked() -> None:
    """Once Block's stock is gone the players may take the discard for ever: the
    round ends as blocked at `MAX_ROUND_TURNS` turns, not a turn before."""
    import dataclasses

    from service.rules import engine
    from service.rules.engine import SeatSpec, apply, legal_moves, new_game
    from service.rules.moves import Discard, Draw
    from service.rules.options import PRESETS

    state, _ = new_game(PRESETS["block"].options, "block", [SeatSpec("A"), SeatSpec("B")], seed=3)
    assert state.round is not None
    # One turn before the limit: a turn of taking the discard and giving it back.
    state = dataclasses.replace(
        state, round=dataclasses.replace(state.round, turns=engine.MAX_ROUND_TURNS - 2)
    )
    for expected in (None, "blocked"):
        seat = state.round.turn  # type: ignore[union-attr]
        state, _ = apply(state, seat, Draw("stock"))
        card = next(m for m in legal_moves(state, seat) if isinstance(m, Discard))
        state, _ = apply(state, seat, card)
        reason = state.rounds[-1].reason if state.rounds else None
        assert reason == expected
