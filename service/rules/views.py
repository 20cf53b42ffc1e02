"""What a seat, or a spectator, may see: views of the game and redacted events.

A seat's view shows its own hand; the public view shows no hand. Neither ever
shows another seat's cards, the order of the stock, the seed or a token hash, nor
a round's secret before the round has ended (or the game secret before the game
has: docs/fairness.md).
Finished rounds reveal every hand (that is public). Events are redacted the
same way: a stock draw shows its card only to the drawer, and ``round_started``
shows each viewer only their own dealt hand.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from service.rules import fairness
from service.rules.cards import JOKER
from service.rules.identity import by_identity
from service.rules.melds import MeldShape, make_meld
from service.rules.moves import Meld, Move
from service.rules.options import Options
from service.rules.seatviews import SEAT_VIEWS, seat_entry
from service.rules.state import GameState, RoundRecord, Seat, TableMeld


def shape_json(shape: MeldShape) -> dict[str, Any]:
    """A meld's layout as the table shows it: ``type``, ``cards`` in table order, and
    ``jokers`` (each joker's position → the card it stands for) when it holds any."""
    out: dict[str, Any] = {"type": shape.kind, "cards": list(shape.cards)}
    jokers = {str(i): shape.stands_for[i] for i, c in enumerate(shape.cards) if c == JOKER}
    if jokers:
        out["jokers"] = jokers
    return out


@by_identity(8192)
def meld_json(m: TableMeld) -> dict[str, Any]:
    """A table meld as docs/api.md shows it: its id and owner, then its layout.

    Kept per meld object (shared: read it, do not change it)."""
    return {"id": m.id, "owner": m.owner, **shape_json(m.shape)}


def joker_layouts(options: Options, moves: Sequence[Move]) -> dict[str, dict[str, Any]]:
    """For each meld of ``moves`` that holds a joker, by its index in ``moves``: the meld
    as the table would show it once made (what each joker would stand for)."""
    out: dict[str, dict[str, Any]] = {}
    for index, move in enumerate(moves):
        if isinstance(move, Meld) and JOKER in move.cards:
            shape = make_meld(move.cards, options.ace, options.joker_limit)
            if shape is not None:
                out[str(index)] = shape_json(shape)
    return out


@by_identity(1024)
def _melds_json(melds: tuple[TableMeld, ...]) -> list[dict[str, Any]]:
    # Kept per tuple of melds (shared: read it): the same object from one move
    # to the next until a meld is made or laid off on.
    return [meld_json(m) for m in melds]


@by_identity(256)
def options_json(options: Options) -> dict[str, Any]:
    """`options.to_json()`, built once per option set (games share a few; Options is
    frozen). The answer is shared: read it, do not change it."""
    return options.to_json()


def public_view(state: GameState) -> dict[str, Any]:
    """The spectator's view: docs/api.md's view without ``id``, ``version``, ``last_event``,
    ``you`` and ``hand``."""
    # The parts are kept per part object (`by_identity`): a move's new state
    # shares them with the state before.
    r = state.round
    seeds = _client_seeds(state.seats)
    seats = []
    kept = SEAT_VIEWS  # `seatviews`: the entries of seats a move left as they were
    for i, s in enumerate(state.seats):
        if r is not None:
            hand_size, melded, known = len(r.hands[i]), r.melded[i], r.known[i] if r.known else ()
        else:
            hand_size, melded, known = 0, False, ()
        found = kept.get((id(s), i, hand_size, melded, id(known)))
        if found is not None and found[0] is s and found[1] is known:
            seats.append(found[2])
        else:
            seats.append(seat_entry(i, s, hand_size, melded, known))
    round_view: dict[str, Any] | None = None
    secret = state.game_secret
    if r is not None:
        melds_json = _melds_json(r.melds)
        commitment = _deal_commitment(seeds, secret, r.number)
        round_view = {
            "number": r.number,
            "dealer": r.dealer,
            "turn": r.turn,
            "phase": r.phase,
            "stock_size": len(r.stock),
            "refills": r.refills,
            "discard_pile": list(r.discard),
            "taken_discard": r.taken,
            "melds": melds_json,
            "deal_commitment": commitment,
        }
    options_view = options_json(state.options)
    rounds = _rounds_json(state.rounds, secret, seeds)
    return {
        "status": state.status,
        "preset": state.preset,
        "options": options_view,
        "deal": state.deal,
        "game_commitment": _game_commitment(secret),
        "game_secret": secret if state.status == "finished" else None,
        "seats": seats,
        "round": round_view,
        "rounds": rounds,
        "winners": None if state.winners is None else list(state.winners),
        "turn_deadline": None if state.turn_deadline is None else rfc3339(state.turn_deadline),
        "pot": state.pot,
        "reengage": _reengage_view(state),
        "next_game": state.next_game,
    }


def _reengage_view(state: GameState) -> dict[str, Any] | None:
    """The decision the next deal waits for (elimination), or ``None``: who must
    decide, the total they would come back with, the chips it costs and by when."""
    deciding = state.deciding
    if not deciding or state.status != "active":
        return None
    options = state.options
    return {
        "seats": list(deciding),
        "score": state.comeback_total,
        "chips": options.reengage_chips() if options.stake is not None else None,
        "deadline": rfc3339(state.turn_deadline),
    }


def rfc3339(epoch_ms: int | None) -> str | None:
    """Epoch milliseconds as an RFC 3339 UTC time with milliseconds (``None`` stays)."""
    if epoch_ms is None:
        return None
    seconds, millis = divmod(epoch_ms, 1000)
    moment = datetime.fromtimestamp(seconds, UTC).replace(microsecond=millis * 1000)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@functools.lru_cache(maxsize=1024)
def _game_commitment(game_secret: str | None) -> str | None:
    return None if game_secret is None else fairness.commitment(bytes.fromhex(game_secret))


@by_identity(1024)
def _client_seeds(seats: tuple[Seat, ...]) -> tuple[str | None, ...]:
    # The same tuple object for the same seats: the caches below key on it.
    return tuple([s.client_seed for s in seats])


@by_identity(1024)
def _deal_commitment(
    seeds: tuple[str | None, ...], game_secret: str | None, number: int
) -> str | None:
    # Kept per seeds object (`_client_seeds`), game secret and round: a round's
    # commitment is the same all round.
    from service.rules.engine import round_secret_of

    secret = round_secret_of(game_secret, number, seeds)
    return None if secret is None else _commitment(secret)


@functools.lru_cache(maxsize=1024)
def _commitment(secret: bytes) -> str:
    # A round's secret stays the same all round: its SHA-256 is taken once.
    return fairness.commitment(secret)


@by_identity(1024)
def _rounds_json(
    rounds: tuple[RoundRecord, ...], game_secret: str | None, seeds: tuple[str | None, ...]
) -> list[dict[str, Any]]:
    """The finished rounds as the view shows them, with their secrets (now public).

    Kept per tuple of records (shared: read it, do not change it): it stays the
    same object all round, and the secrets depend only on the game's secret and
    the client seeds, the arguments after it."""
    from service.rules.engine import round_secret_of

    shown = []
    for rec in rounds:
        secret = round_secret_of(game_secret, rec.number, seeds)
        shown.append(
            {
                "number": rec.number,
                "reason": rec.reason,
                "winner": rec.winner,
                "rummy": rec.rummy,
                "points": list(rec.points),
                "hands": [list(h) for h in rec.hands],
                "deal_commitment": None if secret is None else _commitment(secret),
                "secret": None if secret is None else secret.hex(),
            }
        )
    return shown


def spectator_view(state: GameState) -> tuple[dict[str, Any], int]:
    """The public view a spectator is shown, and the event count it is as of.

    With ``spectator_delay`` N the spectator sees the game as it was after the
    latest move that is at least N events old (the view as it was right after the
    game was created, while it has fewer events); a finished game is shown as it is.
    """
    delay = state.options.spectator_delay
    if delay == 0 or state.status == "finished" or not state.spectator_views:
        return public_view(state), state.event_count
    horizon = state.event_count - delay
    count, text = state.spectator_views[0]
    for taken_at, view in state.spectator_views:
        if taken_at <= horizon:
            count, text = taken_at, view
    shown: dict[str, Any] = orjson.loads(text)
    return shown, count


def spectator_delay(state: GameState) -> int:
    """How many events spectators lag behind the game (0 once it is over)."""
    return 0 if state.status == "finished" else state.options.spectator_delay


def seat_view(
    state: GameState,
    seat: int,
    public: dict[str, Any] | None = None,
    head: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The view of ``seat``: the public view plus ``you`` and the seat's own ``hand``.

    ``public``: ``public_view(state)`` when the caller already has it (it is
    read, not changed: the answer shares its values). ``head``: keys of the
    caller's to lead the view (``id``, ``version``); that dict is filled and
    returned, one dict built per answer instead of two.
    """
    view = public_view(state) if public is None else public
    r = state.round
    out: dict[str, Any] = {} if head is None else head
    out["status"] = view["status"]
    out["preset"] = view["preset"]
    out["options"] = view["options"]
    out["you"] = seat
    out["hand"] = list(r.hands[seat]) if r is not None else []
    out.update(view)  # the keys already in `out` keep their place
    return out


def is_public_event(event: dict[str, Any]) -> bool:
    """Whether every viewer sees ``event`` as it is (`redact_event` hides nothing
    of it from anyone): all but a draw from the stock and a deal's hands."""
    kind = event.get("type")
    if kind == "drew":
        return event.get("source") != "stock"
    return kind != "round_started" or "hands" not in event


#: `shared_view`'s answer for an event that every viewer sees alike.
EVERYONE = -1


def shared_view(event: dict[str, Any], viewer: int | None) -> int | None:
    """Which view of ``event`` ``viewer`` gets: viewers with the same answer get
    equal `redact_event`s. `EVERYONE` for a public event, ``viewer`` for a seat
    shown something of its own (the card it drew, its hand in a deal), else
    ``None``: the spectators' view (so a draw from the stock has two views, a
    deal one per seat with a hand and one for the rest)."""
    if is_public_event(event):
        return EVERYONE
    return private_view(event, viewer)


def private_view(event: dict[str, Any], viewer: int | None) -> int | None:
    """`shared_view` of an event that is not `is_public_event` (the caller asked
    that already: a stream's feed asks it once per event, not per viewer)."""
    if event.get("type") == "drew":  # from the stock: the drawer sees the card
        return viewer if viewer is not None and event.get("seat") == viewer else None
    hands = event["hands"]  # a deal's: each seat sees its own hand
    if viewer is not None and 0 <= viewer < len(hands) and hands[viewer] is not None:
        return viewer
    return None


def redact_event(event: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The event as ``viewer`` (a seat, or ``None`` for a spectator) may see it."""
    if is_public_event(event):
        return dict(event)
    return redact_private_event(event, viewer)


def redact_private_event(event: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """`redact_event` of an event that is not `is_public_event` (the caller asked
    that already)."""
    # Copied, then the hidden key taken out: the rest keeps its order. A dict
    # comprehension leaving it out cost about twice as much for every stock
    # draw a stream shows (`bench.push_calls`; docs/performance.md has the figures).
    out = dict(event)
    if event["type"] == "drew":
        if event.get("seat") != viewer:
            out.pop("card", None)  # only the drawer sees its card
        return out
    # A deal: each seat sees its own hand, everyone the hands' sizes.
    del out["hands"]
    hands = event["hands"]
    out["hand_sizes"] = [None if h is None else len(h) for h in hands]
    if viewer is not None and 0 <= viewer < len(hands) and hands[viewer] is not None:
        out["hand"] = list(hands[viewer])
    return out
