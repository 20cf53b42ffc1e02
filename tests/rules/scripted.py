"""Readable scripted games: write the deal out in card codes, get a game dealt exactly so.

``scripted(preset, hands=[...], up="SK", stock="H2 H3", dealer=0)`` builds the
deck that deals ``hands`` (one string of codes per seat, in seat order) with the
deterministic deal of docs/rules.md §3, turns ``up`` face up (omit it under
``first_turn_no_draw``: the first player's string then holds the extra card last),
puts ``stock`` on top of the stock (first code = top) and the unused cards of the
deck below, in deck order.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from service.rules.cards import build_deck, parse_card
from service.rules.engine import Event, SeatSpec, apply, legal_moves, new_game
from service.rules.moves import Move, parse_move
from service.rules.options import MAX_HAND_SIZE, resolve_options
from service.rules.state import GameState


def codes(text: str) -> list[str]:
    """``"H5 H6 10S"`` -> canonical codes."""
    return [parse_card(c) for c in text.split()]


def scripted_deck(
    hands: Sequence[str],
    *,
    dealer: int,
    up: str | None,
    stock: str = "",
    decks: int = 1,
    jokers: int = 0,
    dealt: Sequence[bool] | None = None,
) -> list[str]:
    """The full deck that deals exactly these hands (see the module docstring)."""
    n = len(hands)
    dealt = dealt if dealt is not None else [True] * n
    order = [(dealer + k) % n for k in range(1, n + 1) if dealt[(dealer + k) % n]]
    cards = {seat: codes(hands[seat]) for seat in order}
    size = min(len(cards[s]) for s in order)
    deck: list[str] = []
    for i in range(size):
        for seat in order:
            deck.append(cards[seat][i])
    for seat in order:
        deck.extend(cards[seat][size:])  # the first player's extra card (first_turn_no_draw)
    if up is not None:
        deck.append(parse_card(up))
    deck.extend(codes(stock))
    rest = Counter(build_deck(decks, jokers))
    rest.subtract(Counter(deck))
    if any(v < 0 for v in rest.values()):
        raise ValueError(f"a card is used twice: {[c for c, v in rest.items() if v < 0]}")
    deck.extend(c for c in build_deck(decks, jokers) if rest[c] > 0 and not rest.subtract([c]))
    return deck


def scripted(
    preset: str,
    hands: Sequence[str],
    *,
    up: str | None = None,
    stock: str = "",
    dealer: int = 0,
    options: Mapping[str, Any] | None = None,
    seed: int = 7,
) -> tuple[GameState, list[Event]]:
    """A game of ``preset`` dealt exactly as written, every seat a human."""
    overrides = dict(options or {})
    # The engine deals any hand size; the options' upper bound limits what a
    # client may ask for. Tests that need a short stock deal larger hands.
    big_hands = overrides.get("hand_size", 0) > MAX_HAND_SIZE
    hand_size = overrides.pop("hand_size") if big_hands else None
    opts = resolve_options(preset, overrides, len(hands))
    if big_hands:
        opts = dataclasses.replace(opts, hand_size=hand_size)
    size = opts.hand_size_for(len(hands))
    first = (dealer + 1) % len(hands)
    for seat, text in enumerate(hands):
        want = size + (1 if opts.first_turn_no_draw and seat == first else 0)
        assert len(text.split()) == want, f"seat {seat} needs {want} cards: {text!r}"
    deck = scripted_deck(
        hands, dealer=dealer, up=up, stock=stock, decks=opts.decks, jokers=opts.jokers
    )
    return new_game(
        opts,
        preset,
        [SeatSpec(f"P{i}", token_hash=f"hash-{i}") for i in range(len(hands))],
        seed=seed,
        deck=deck,
        first_dealer=dealer,
    )


def mv(obj: Mapping[str, Any] | str) -> Move:
    """A move from its API shape, or from a short text: ``"draw stock"``, ``"meld H5 H6 H7"``,
    ``"layoff 1 H8"``, ``"discard SK"``, ``"swap 2 H9"``, ``"reengage"``."""
    if not isinstance(obj, str):
        return parse_move(obj)
    word, *rest = obj.split()
    if word == "draw":
        return parse_move({"type": "draw", "source": rest[0]})
    if word == "meld":
        return parse_move({"type": "meld", "cards": rest})
    if word == "layoff":
        return parse_move({"type": "layoff", "meld": int(rest[0]), "cards": rest[1:]})
    if word == "discard":
        return parse_move({"type": "discard", "card": rest[0]})
    if word == "swap":
        return parse_move({"type": "swap_joker", "meld": int(rest[0]), "card": rest[1]})
    return parse_move({"type": word})


def play(state: GameState, seat: int, *moves: str) -> tuple[GameState, list[Event]]:
    """Apply several moves of one seat, checking each was listed as legal first."""
    events: list[Event] = []
    for text in moves:
        move = mv(text)
        assert move in legal_moves(state, seat), (text, legal_moves(state, seat))
        state, more = apply(state, seat, move)
        events.extend(more)
    return state, events


def hand(state: GameState, seat: int) -> list[str]:
    """The seat's hand in the current round."""
    assert state.round is not None
    return list(state.round.hands[seat])


def types(events: Sequence[Event]) -> list[str]:
    """The event types in order."""
    return [e["type"] for e in events]
