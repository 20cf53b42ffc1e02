"""The re-engage decision of the built-in bots (elimination games, between rounds).

A seat the round's end eliminated is offered `Reengage` and `DeclineReengage`;
the view's ``reengage`` says the total it would come back with (the highest
among the players still in) and, with a stake, the chips it costs. A bot
re-engages when that can still win it the game: its comeback total is below the
target, so a round it wins (or loses lightly) keeps it in. With a stake it also
wants at least `STAKED_MARGIN` points of room: with less, one ordinary round
puts it out again and the half stake is lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.rules.moves import DeclineReengage, Move, Reengage

#: Points of room under the target a bot wants before paying to re-engage.
STAKED_MARGIN = 10


def _target(options: Mapping[str, Any], players: int) -> int:
    target = options["target_score"]
    if isinstance(target, Mapping):
        by_count = {int(k): v for k, v in target.items()}
        return int(by_count.get(players, max(by_count.values())))
    return int(target)


def wants_reengage(view: Mapping[str, Any]) -> bool:
    """Whether re-engaging can still win this seat the game (module docstring)."""
    offer = view.get("reengage") or {}
    room = _target(view["options"], len(view["seats"])) - int(offer.get("score", 0))
    if offer.get("chips") is not None:
        return room >= STAKED_MARGIN
    return room > 0


def reengage_choice(view: Mapping[str, Any], moves: Sequence[Move]) -> Move | None:
    """The bot's answer when ``moves`` are the re-engage decision, else ``None``."""
    choices = {type(m): m for m in moves}
    if Reengage not in choices and DeclineReengage not in choices:
        return None
    if Reengage in choices and wants_reengage(view):
        return choices[Reengage]
    return choices.get(DeclineReengage, moves[0])


__all__ = ["STAKED_MARGIN", "reengage_choice", "wants_reengage"]
