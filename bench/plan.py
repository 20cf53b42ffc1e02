"""Scripted games for the HTTP benchmark: every move real and legal, chosen offline.

A game created with a `seed` deals the same cards every time, so the moves of
a seeded game can be chosen here with the engine and replayed over HTTP by a
load generator that never parses a view: any game created later with the same
seed, preset and seat count accepts exactly the same moves.

The player: meld when it can (largest meld first), lay off when it can, draw
from the stock (now and then from the discard pile), discard a random card
it may discard, and re-engage when offered. So the replay covers draws, melds,
lay-offs, discards, going out and new rounds.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import orjson

from service.rules.cards import is_joker, rank, suit
from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.moves import Discard, Draw, LayOff, Meld, Move, Reengage
from service.rules.options import resolve_options
from service.rules.state import GameState


@dataclass
class Plan:
    """The moves of one seeded game: (seat, JSON body) in order."""

    seed: int
    players: int
    preset: str
    moves: list[tuple[int, bytes]] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    finished: bool = False
    final: GameState | None = None


def _keep_score(card: str, hand: list[str]) -> int:
    """How much a card helps form melds: same-rank cards, near same-suit cards."""
    if is_joker(card):
        return 100
    near = 0
    for other in hand:
        if other == card or is_joker(other):
            continue
        if rank(other) == rank(card):
            near += 2
        elif suit(other) == suit(card) and abs(rank(other) - rank(card)) <= 2:
            near += 3 - abs(rank(other) - rank(card))
    return near


def _choose(moves: list[Move], rng: random.Random) -> Move:
    melds = [m for m in moves if isinstance(m, Meld)]
    if melds:
        return max(melds, key=lambda m: len(m.cards))
    layoffs = [m for m in moves if isinstance(m, LayOff)]
    if layoffs:
        return layoffs[0]
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws:
        by_source = {m.source: m for m in draws}
        if "discard" in by_source and (rng.random() < 0.2 or "stock" not in by_source):
            return by_source["discard"]
        return by_source.get("stock", draws[0])
    discards = [m for m in moves if isinstance(m, Discard)]
    if discards:
        hand = [m.card for m in discards]
        return min(discards, key=lambda m: (_keep_score(m.card, hand), -rank(m.card), rng.random()))
    reengage = [m for m in moves if isinstance(m, Reengage)]
    return reengage[0] if reengage else moves[0]


def plan_game(seed: int, players: int, preset: str = "standard", max_moves: int = 600) -> Plan:
    """Play a seeded game of human seats offline, up to `max_moves` moves."""
    options = resolve_options(preset, {}, players)
    seats = [SeatSpec(f"p{i}", "human", None, None) for i in range(players)]
    state, _ = new_game(options, preset, seats, seed=seed)
    rng = random.Random(seed)
    plan = Plan(seed, players, preset)
    while len(plan.moves) < max_moves and state.status == "active" and state.round is not None:
        seat = state.round.turn
        moves = legal_moves(state, seat)
        if not moves:
            break
        move = _choose(moves, rng)
        state, events = apply(state, seat, move)
        plan.moves.append((seat, orjson.dumps(move.to_json())))
        plan.kinds[type(move).__name__.lower()] += 1
        plan.kinds.update(e["type"] for e in events if e["type"] in _COUNTED_EVENTS)
    plan.finished = state.status == "finished"
    plan.final = state
    return plan


_COUNTED_EVENTS = {"went_out", "round_ended", "round_started", "stock_refilled", "game_ended"}
