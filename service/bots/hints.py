"""A hint: the move the expert would make now, from one seat's view, and why.

`hint(view, moves, rng, memory, budget)` takes exactly what a strategy takes
(service/bots/strategies.py): the seat view (its own hand, the table, public
counts), its legal moves, a generator and a `Memory` of public events; never
the game state, so a hint cannot know another hand or the stock. The move is
`expert_choice` on the hint's own budget (not the bots'), and the reason is
worked out from the same view with greedy's hand arithmetic (service/bots/hand.py).

A reason is ``{"code", "detail", ...figures}``; the codes (`REASON_CODES`) are
stable, the detail is an English sentence, and the figures are the facts a
client may word itself:

- ``card`` / ``cards``: the cards the move plays or takes;
- ``meld``: a table meld's id (a lay-off or joker swap);
- ``builds``: the melds of the best split of the hand after the move (what
  the hand builds toward), ``deadwood``: the points left in no meld;
- ``outs``: unseen cards that would meld the thrown card (what throwing it gives up);
- ``feeds_table`` / ``feeds_next``: whether the thrown card fits a table meld,
  or the cards the next seat was seen taking (what the discard gives away).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.bots.expert import Budget, expert_choice
from service.bots.greedy import discard_figures, fits_table
from service.bots.hand import Scoring, best_split, without
from service.bots.memory import Memory
from service.rules.cards import Card
from service.rules.moves import (
    DeclineReengage,
    Discard,
    Draw,
    LayOff,
    Meld,
    Move,
    Reengage,
    SwapJoker,
)

View = Mapping[str, Any]

#: Every reason code a hint gives, with what it means (docs/api.md, "Hints").
REASON_CODES: Mapping[str, str] = {
    "take_discard": "take the top discard: it completes a meld, or can be laid off",
    "draw_stock": "draw from the stock: the top discard helps no meld",
    "meld": "put down a meld of the hand's best split",
    "lay_off": "lay cards off on a table meld",
    "swap_joker": "take a melded joker for the card it stands for",
    "discard": "throw the card that costs least to lose and gives least away",
    "go_out": "the move empties the hand",
    "reengage": "come back into the game: it can still be won",
    "decline_reengage": "stay out: coming back would not pay",
    "only_move": "the one legal move",
}


@dataclass(frozen=True)
class Hint:
    """A hint's move and its reason (``{"code", "detail", ...figures}``)."""

    move: Move
    reason: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The answer's body: ``{"move": <a Move body>, "reason": {...}}``."""
        return {"move": self.move.to_json(), "reason": self.reason}


def hint(
    view: View,
    moves: Sequence[Move],
    rng: random.Random,
    memory: Memory | None,
    budget: Budget,
) -> Hint:
    """The expert's move among ``moves`` (not empty) on ``budget``, with its reason."""
    if not moves:
        raise ValueError("no legal move to hint")
    move = expert_choice(view, moves, rng, memory, budget)
    return Hint(move, reason(view, move, moves, memory))


def _scoring(view: View) -> Scoring:
    opts = view["options"]
    return Scoring(opts["ace"], opts["ace_points"], opts["joker_points"], opts["joker_limit"])


def _shown(cards: Sequence[Card]) -> str:
    return " ".join(cards)


def _builds(melds: Sequence[Sequence[Card]]) -> list[list[Card]]:
    return [list(m) for m in melds]


def _reason(code: str, detail: str, **figures: Any) -> dict[str, Any]:
    """A reason: its code (one of `REASON_CODES`), its sentence and its figures."""
    assert code in REASON_CODES, code
    return {"code": code, "detail": detail, **figures}


def reason(
    view: View, move: Move, moves: Sequence[Move], memory: Memory | None = None
) -> dict[str, Any]:
    """Why ``move`` (one of ``moves``), in words and figures, from ``view`` alone."""
    hand = tuple(view["hand"])
    scoring = _scoring(view)
    if isinstance(move, Reengage):
        return _reason("reengage", "Come back in: the game can still be won.")
    if isinstance(move, DeclineReengage):
        return _reason("decline_reengage", "Stay out: coming back would not pay.")
    if isinstance(move, Draw):
        return _draw_reason(view, move, hand, scoring)
    if isinstance(move, Discard):
        return _discard_reason(view, move.card, hand, moves, memory)
    if not isinstance(move, Meld | LayOff | SwapJoker):  # pragma: no cover - every kind above
        return _reason("only_move", "The one move there is.")
    played = (move.card,) if isinstance(move, SwapJoker) else move.cards
    rest = without(hand, played)
    split = best_split(rest, scoring)
    figures: dict[str, Any] = {"builds": _builds(split.melds), "deadwood": split.points}
    if isinstance(move, Meld):
        cards = _shown(move.cards)
        if not rest:
            return _reason("go_out", f"Meld {cards} and go out.", cards=list(move.cards), **figures)
        detail = f"Meld {cards}: {split.points} points of deadwood stay in hand."
        return _reason("meld", detail, cards=list(move.cards), **figures)
    if isinstance(move, LayOff):
        cards = _shown(move.cards)
        code, detail = (
            ("go_out", f"Lay {cards} off on meld {move.meld} and go out.")
            if not rest
            else ("lay_off", f"Lay {cards} off on meld {move.meld}: it leaves your hand.")
        )
        return _reason(code, detail, meld=move.meld, cards=list(move.cards), **figures)
    detail = f"Put {move.card} in place of the joker of meld {move.meld} and keep the joker."
    return _reason("swap_joker", detail, meld=move.meld, card=move.card, **figures)


def _draw_reason(
    view: View, move: Draw, hand: tuple[Card, ...], scoring: Scoring
) -> dict[str, Any]:
    pile = (view.get("round") or {}).get("discard_pile") or []
    top = pile[-1] if pile else None
    if move.source == "discard" and top is not None:
        after = best_split((*hand, top), scoring)
        meld = next((m for m in after.melds if top in m), None)
        if meld is not None:
            detail = f"Take {top} from the discard pile: it completes {_shown(meld)}."
        elif fits_table(view, top):
            detail = f"Take {top} from the discard pile: it can be laid off on a table meld."
        else:
            detail = f"Take {top} from the discard pile."
        return _reason(
            "take_discard",
            detail,
            card=top,
            builds=_builds(after.melds),
            deadwood=after.points,
        )
    if top is None:
        return _reason("draw_stock", "Draw from the stock.", card=None)
    detail = f"Draw from the stock: {top} on the discard pile completes no meld of yours."
    return _reason("draw_stock", detail, card=top)


def _discard_reason(
    view: View, card: Card, hand: tuple[Card, ...], moves: Sequence[Move], memory: Memory | None
) -> dict[str, Any]:
    figures = discard_figures(view, card, memory)
    rest = figures.rest
    out: dict[str, Any] = {
        "card": card,
        "builds": _builds(rest.melds),
        "deadwood": rest.points,
        "outs": figures.outs,
        "feeds_table": figures.fits_table,
        "feeds_next": figures.feeds_next,
    }
    if len(hand) == 1:
        return _reason("go_out", f"Discard {card} and go out.", **out)
    if sum(isinstance(m, Discard) for m in moves) == 1:
        return _reason("only_move", f"Discard {card}: the one card you may throw.", **out)
    keeps = ", ".join(_shown(m) for m in rest.melds)
    keeps = f"keeps {keeps}" if keeps else "keeps no meld yet"
    gives = []
    if figures.fits_table:
        gives.append("it fits a table meld")
    if figures.feeds_next:
        gives.append("the next player collects cards like it")
    away = "; it gives away little" if not gives else "; but " + " and ".join(gives)
    detail = f"Discard {card}: the hand {keeps} with {rest.points} points of deadwood{away}."
    return _reason("discard", detail, **out)


__all__ = ["REASON_CODES", "Hint", "hint", "reason"]
