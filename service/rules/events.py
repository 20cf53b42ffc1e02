"""The event vocabulary: every event a game records, its fields and what it means.

Events are what a client following a game sees (`GET /games/{id}/events`). Each
event is built by the function of its name below, the only place its fields are
written; the engine and the turn clock emit events through them. `EVENTS` (the
meanings) and `EVENT_FIELDS` are derived from these functions: the API documents
`EVENTS` as the closed enum of an event's `type`, and docs/api.md's table of
events is generated from both.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

#: An event as the engine emits it: ``type`` and the fields of that type.
Event = dict[str, Any]

_Builder = TypeVar("_Builder", bound=Callable[..., Event])

_MEANINGS: dict[str, str] = {}
_FIELDS: dict[str, tuple[tuple[str, bool], ...]] = {}

#: Every event type, in the order of this module, and what it means.
EVENTS: Mapping[str, str] = _MEANINGS

#: Every event type's fields besides ``type``: (name, always present). A field
#: that is not always present is left out when it does not apply.
EVENT_FIELDS: Mapping[str, tuple[tuple[str, bool], ...]] = _FIELDS


def _event(meaning: str) -> Callable[[_Builder], _Builder]:
    """Register a builder: its name is the event's type, its parameters the fields
    (one with a default is left out of the event when it is `None`)."""

    def register(builder: _Builder) -> _Builder:
        parameters = inspect.signature(builder).parameters.values()
        _MEANINGS[builder.__name__] = meaning
        _FIELDS[builder.__name__] = tuple(
            (p.name, p.default is inspect.Parameter.empty) for p in parameters
        )
        return builder

    return register


def _present(event: Event, **optional: Any) -> Event:
    """``event`` with the optional fields that are set."""
    for name, value in optional.items():
        if value is not None:
            event[name] = value
    return event


@_event("the game was created (its preset and seats)")
def game_created(
    preset: str,
    players: int,
    deal: str,
    seats: Sequence[Mapping[str, Any]],
    game_commitment: str | None = None,
) -> Event:
    """``seats``: each seat's number, name and kind; ``game_commitment`` for a
    game whose deals are committed to (docs/fairness.md)."""
    event: Event = {
        "type": "game_created",
        "preset": preset,
        "players": players,
        "deal": deal,
        "seats": list(seats),
    }
    return _present(event, game_commitment=game_commitment)


@_event("an open seat was taken")
def seat_taken(seat: int, name: str, kind: str) -> Event:
    """A player took ``seat``."""
    return {"type": "seat_taken", "seat": seat, "name": name, "kind": kind}


@_event(
    "a seat's player left: the seat is open again (waiting game) or played "
    "by a bot (game being played)"
)
def seat_left(seat: int, kind: str, bot: str | None = None) -> Event:
    """``kind`` is what holds the seat now; ``bot`` the strategy playing it."""
    return _present({"type": "seat_left", "seat": seat, "kind": kind}, bot=bot)


@_event("a seat timed out too often: the server plays its turns until its player is back")
def seat_away(seat: int, timeouts: int) -> Event:
    """``timeouts``: the seat's turns timed out in a row."""
    return {"type": "seat_away", "seat": seat, "timeouts": timeouts}


@_event("an away seat's player is back")
def seat_back(seat: int) -> Event:
    """The player of ``seat`` made a request again."""
    return {"type": "seat_back", "seat": seat}


@_event("a round was dealt: dealer, first player, up card, hand sizes (the viewer's own hand only)")
def round_started(
    number: int,
    dealer: int,
    first: int,
    hands: Sequence[Sequence[str] | None],
    discard_pile: Sequence[str],
    stock_size: int,
    deal_commitment: str | None = None,
) -> Event:
    """``hands``: every seat's dealt hand (`None` for a seat not dealt in)."""
    event: Event = {
        "type": "round_started",
        "number": number,
        "dealer": dealer,
        "first": first,
        "hands": [None if h is None else list(h) for h in hands],
        "discard_pile": list(discard_pile),
        "stock_size": stock_size,
    }
    return _present(event, deal_commitment=deal_commitment)


@_event("a seat drew; the card is shown only to the drawer when it came from the stock")
def drew(seat: int, source: str, card: str) -> Event:
    """``source``: ``stock`` or ``discard``."""
    return {"type": "drew", "seat": seat, "source": source, "card": card}


@_event("a seat put a new meld on the table")
def melded(seat: int, meld: Mapping[str, Any]) -> Event:
    """``meld``: the meld as the table shows it."""
    return {"type": "melded", "seat": seat, "meld": meld}


@_event("a seat added cards to a meld on the table")
def laid_off(seat: int, meld: int, cards: Sequence[str], result: Mapping[str, Any]) -> Event:
    """``meld``: the meld's id; ``result``: the meld after."""
    return {"type": "laid_off", "seat": seat, "meld": meld, "cards": list(cards), "result": result}


@_event("a seat gave a card for the joker standing for it in a meld")
def joker_swapped(seat: int, meld: int, card: str, result: Mapping[str, Any]) -> Event:
    """``card``: the card given; ``result``: the meld after."""
    return {"type": "joker_swapped", "seat": seat, "meld": meld, "card": card, "result": result}


@_event("a seat discarded a card, ending the turn")
def discarded(seat: int, card: str) -> Event:
    """``card`` is on top of the discard pile now."""
    return {"type": "discarded", "seat": seat, "card": card}


@_event("the discard pile became the new stock")
def stock_refilled(refills: int, stock_size: int, discard_pile: Sequence[str]) -> Event:
    """``refills``: how many times this round's stock was refilled."""
    return {
        "type": "stock_refilled",
        "refills": refills,
        "stock_size": stock_size,
        "discard_pile": list(discard_pile),
    }


@_event("a seat's last card left its hand")
def went_out(seat: int, rummy: bool) -> Event:
    """``rummy``: the whole hand went down in one turn."""
    return {"type": "went_out", "seat": seat, "rummy": rummy}


@_event("the round is over: why, who won, the points and every hand")
def round_ended(
    number: int,
    reason: str,
    winner: int | None,
    rummy: bool,
    points: Sequence[int],
    hands: Sequence[Sequence[str]],
    scores: Sequence[int],
    deal_commitment: str | None = None,
    secret: str | None = None,
) -> Event:
    """``secret``: the round's deal secret, revealed once it is over (docs/fairness.md)."""
    event: Event = {
        "type": "round_ended",
        "number": number,
        "reason": reason,
        "winner": winner,
        "rummy": rummy,
        "points": list(points),
        "hands": [list(h) for h in hands],
        "scores": list(scores),
    }
    return _present(event, deal_commitment=deal_commitment, secret=secret)


@_event("a seat's total reached the target (elimination)")
def seat_eliminated(seat: int, score: int) -> Event:
    """``score``: the seat's total."""
    return {"type": "seat_eliminated", "seat": seat, "score": score}


@_event("the round's end eliminated seats that may re-engage: the next deal waits for them")
def reengage_offered(seats: Sequence[int], score: int) -> Event:
    """``seats`` must each decide (`reengage` or `decline_reengage`) before the next
    deal; ``score`` is the total a seat comes back with (the highest among the
    players still in)."""
    return {"type": "reengage_offered", "seats": list(seats), "score": score}


@_event("an eliminated seat re-engaged: it is dealt in at the next deal, with its new total")
def reengaged(seat: int, score: int | None = None, chips: int | None = None) -> Event:
    """``score``: the seat's new total; ``chips``: what it put in the pot (with a stake)."""
    return _present({"type": "reengaged", "seat": seat}, score=score, chips=chips)


@_event("an eliminated seat declined to re-engage (or its time to decide ran out): it is out")
def reengage_declined(seat: int) -> Event:
    """The seat stays eliminated for the rest of the game."""
    return {"type": "reengage_declined", "seat": seat}


@_event("the game started with stakes: every player put the stake in the pot")
def pot_opened(stake: int, pot: int) -> Event:
    """``stake``: chips each player put in; ``pot``: the chips in the pot now."""
    return {"type": "pot_opened", "stake": stake, "pot": pot}


@_event("a re-engaged seat is dealt in again, with its new total")
def seat_rejoined(seat: int, score: int) -> Event:
    """``score``: the total the seat starts again with."""
    return {"type": "seat_rejoined", "seat": seat, "score": score}


@_event("the game is over: the winners and the totals")
def game_ended(
    winners: Sequence[int],
    scores: Sequence[int],
    game_secret: str | None = None,
    payouts: Sequence[int] | None = None,
) -> Event:
    """``game_secret``: revealed at the end of a game whose deals were committed to;
    ``payouts``: with a stake, the chips each seat takes out of the pot."""
    event: Event = {"type": "game_ended", "winners": list(winners), "scores": list(scores)}
    return _present(
        event, game_secret=game_secret, payouts=None if payouts is None else list(payouts)
    )


@_event("a seat holder started the next game of the same players (a rematch): its id")
def rematch_offered(seat: int, next_game: str) -> Event:
    """``seat`` asked for the rematch; each player takes their seat of ``next_game``
    with `POST /games/{id}/rematch` and their token of this game."""
    return {"type": "rematch_offered", "seat": seat, "next_game": next_game}
