"""Checks on the cards of a game: all accounted for; nothing hidden in a view or an event."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import orjson

from service.rules.cards import build_deck
from service.rules.engine import round_secret
from service.rules.state import GameState

CARD = re.compile(r"^(JK|[CDHS](A|[2-9]|10|J|Q|K))$")
#: Keys no view or event may carry (the order of the stock, the seed, the deck, secrets).
FORBIDDEN_KEYS = {"seed", "stock", "deck", "token_hash"}


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every (path, leaf or key) of a JSON value; list indices become `*`."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}", key
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from walk(item, f"{path}[*]")
    else:
        yield path, value


def cards_at(value: Any) -> Counter[str]:
    """Card codes anywhere in a JSON value, by path: `Counter({"path": count})`."""
    return Counter(path for path, leaf in walk(value) if isinstance(leaf, str) and CARD.match(leaf))


def assert_all_cards_accounted_for(state: GameState) -> None:
    """Hands, stock, discard pile and melds hold exactly the game's deck."""
    r = state.round
    if r is None:
        return
    held: Counter[str] = Counter()
    for hand in r.hands:
        held.update(hand)
    held.update(r.stock)
    held.update(r.discard)
    for meld in r.melds:
        held.update(meld.shape.cards)
    deck = Counter(build_deck(state.options.decks, state.options.jokers))
    assert held == deck, (held - deck, deck - held)


def hidden_secrets(state: GameState) -> list[str]:
    """The secrets (hex) nobody may see yet: the round being played's, and the game
    secret until the game is over (docs/fairness.md)."""
    hidden = []
    if state.round is not None:
        secret = round_secret(state, state.round.number)
        if secret is not None:
            hidden.append(secret.hex())
    if state.game_secret is not None and state.status != "finished":
        hidden.append(state.game_secret)
    return hidden


def assert_no_secret_shows(value: Any, state: GameState) -> None:
    """No secret of :func:`hidden_secrets` appears anywhere in a JSON value."""
    text = orjson.dumps(value).decode()
    for secret in hidden_secrets(state):
        assert secret not in text, ("a secret shows early", value)


def assert_view_hides_what_it_must(
    view: dict[str, Any], state: GameState, seat: int | None
) -> None:
    """A view shows cards only where they are public, or in the viewer's own hand.

    Every card code in the view must sit at one of the known places, and each of
    those places must hold what the full state says: the viewer's hand, the
    discard pile, the melds, the taken discard, finished rounds' hands.
    """
    for path, leaf in walk(view):
        assert leaf not in FORBIDDEN_KEYS or not path.endswith(f".{leaf}"), (path, view)
    assert_no_secret_shows(view, state)
    places = set(cards_at(view))
    allowed = {
        ".hand[*]",
        ".round.discard_pile[*]",
        ".round.melds[*].cards[*]",
        ".round.taken_discard",
        ".rounds[*].hands[*][*]",
        ".seats[*].known_cards[*]",
    }
    # What melded jokers stand for is public; those are not cards of any hand.
    places = {place for place in places if not place.startswith(".round.melds[*].jokers.")}
    assert places <= allowed, places - allowed
    r = state.round
    if seat is None:
        assert "hand" not in view
    elif r is not None and view.get("round") is not None:
        assert Counter(view["hand"]) == Counter(r.hands[seat]), (view["hand"], r.hands[seat])
    if r is not None and view.get("round") is not None:
        # Known cards: only what the seat took in sight of all (never a stock card),
        # and still in its hand.
        for i, seat_shown in enumerate(view["seats"]):
            assert seat_shown["known_cards"] == list(r.known[i]), (seat_shown, r.known)
            assert not Counter(seat_shown["known_cards"]) - Counter(r.hands[i])
        shown = view["round"]
        assert shown["discard_pile"] == list(r.discard)
        assert shown["stock_size"] == len(r.stock)
        assert [Counter(m["cards"]) for m in shown["melds"]] == [
            Counter(m.shape.cards) for m in r.melds
        ]
    for number, record in enumerate(view.get("rounds", [])):
        assert record["hands"] == [list(h) for h in state.rounds[number].hands]


def assert_event_hides_what_it_must(
    seen: dict[str, Any], raw: dict[str, Any], viewer: int | None
) -> None:
    """An event shows a stock draw's card only to the drawer, a deal only the viewer's hand."""
    assert seen["seq"] == raw["seq"] and seen["type"] == raw["type"]
    for path, leaf in walk(seen):
        assert leaf not in FORBIDDEN_KEYS or not path.endswith(f".{leaf}"), (path, seen)
    assert set(seen) <= set(raw) | {"hand", "hand_sizes"}, (seen, raw)
    if raw["type"] == "drew" and raw.get("source") == "stock" and raw["seat"] != viewer:
        assert "card" not in seen, seen
    if raw["type"] == "round_started":
        assert "hands" not in seen, seen
        if "hand" in seen:
            assert viewer is not None and seen["hand"] == raw["hands"][viewer]
    for key in set(seen) - {"hand", "hand_sizes"}:
        if not (raw["type"] == "drew" and key == "card"):
            assert seen[key] == raw[key], (key, seen, raw)


def assert_record_hides_what_it_must(
    record: dict[str, Any],
    raw_events: list[dict[str, Any]],
    state: GameState,
    seat: int | None,
    same_version: bool = False,
) -> None:
    """A record of a live game (`GET /games/{id}/record`, a seat's or the public one)
    shows what its reader knew and no more: each event as `assert_event_hides_what_it_must`
    allows, no deal, no secret not yet revealed, and cards elsewhere only in the
    seats' `known_cards` and the finished rounds' hands; `same_version`: `state` is
    the one the record is of (its known cards are then compared too)."""
    assert record["view"] == ("public" if seat is None else "seat") and record["you"] == seat
    for path, leaf in walk(record):
        if not path.startswith(".events") and not path.startswith(".options"):
            assert leaf not in FORBIDDEN_KEYS or not path.endswith(f".{leaf}"), (path, record)
    raw = {event["seq"]: event for event in raw_events}
    for event in record["events"]:
        assert_event_hides_what_it_must(event, raw[event["seq"]], seat)
    assert_no_secret_shows(record, state)
    assert record["game_secret"] is None and record["verified"] is None
    assert all(entry["deal"] is None for entry in record["rounds"])
    places = {place for place in cards_at(record) if not place.startswith(".events[*]")}
    assert places <= {".seats[*].known_cards[*]", ".rounds[*].result.hands[*][*]"}, places
    r = state.round
    if r is not None and same_version:
        # Known cards: taken in sight of all and still in that seat's hand.
        for i, entry in enumerate(record["seats"]):
            assert entry["known_cards"] == list(r.known[i]) if r.known else not entry["known_cards"]
            assert not Counter(entry["known_cards"]) - Counter(r.hands[i])
