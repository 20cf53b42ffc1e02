"""The compact stored form of events: exact round trips, and how small it is."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.store import codec
from service.store.codec import decode_event, event_tail, iso_of_ms, stamp_event
from tests.support.examples import examples

_KEYS = st.sampled_from(["type", "seat", "card", "T", "S", "~T", "~", "x", "cards", "0"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=examples(150), deadline=None)
@given(st.dictionaries(_KEYS, _JSON, max_size=5), st.integers(0, 2**40))
def test_every_event_reads_back_as_written(event: dict[str, Any], ms: int) -> None:
    stored = stamp_event(7, 3, ms, event_tail(event))
    assert decode_event(stored) == {"seq": 7, "version": 3, "at": iso_of_ms(ms), **event}


def test_a_discard_is_stored_in_under_half_its_json() -> None:
    event = {"type": "discarded", "seat": 2, "card": "DK"}
    stored = stamp_event(43, 39, 1796009278084, event_tail(event))
    assert stored == b'43 39 1796009278084 {"T":1,"S":2,"C":"DK"}'
    assert decode_event(stored) == {
        "seq": 43,
        "version": 39,
        "at": "2026-11-30T03:27:58.084Z",
        **event,
    }


def test_a_stored_event_with_numbers_that_are_not_integers_is_refused() -> None:
    for stored in (b"1.5 1 0 {}", b"1 true 0 {}", b'1 1 "0" {}', b"1 1 {}"):
        with pytest.raises(ValueError):
            decode_event(stored)


def test_flat_bodies_of_any_keys_read_back_as_written() -> None:
    # Short keys, escaped ones and keys outside the table, in one body without
    # a nested object (renamed key by key in one loop).
    event = {"type": "discarded", "seat": 2, "T": 1, "~S": 2, "k0": [1, "x"], "": None}
    assert decode_event(stamp_event(5, 4, 0, event_tail(event))) == {
        "seq": 5,
        "version": 4,
        "at": "1970-01-01T00:00:00.000Z",
        **event,
    }


def test_times_read_back_as_iso_with_milliseconds() -> None:
    assert iso_of_ms(0) == "1970-01-01T00:00:00.000Z"
    assert iso_of_ms(1796009278001) == "2026-11-30T03:27:58.001Z"
    assert iso_of_ms(1796009278999) == "2026-11-30T03:27:58.999Z"
    assert iso_of_ms(-1) == "1969-12-31T23:59:59.999Z"


def test_a_lobby_page_looks_at_most_at_its_scan_budget() -> None:
    from service.store.codec import decode_cursor, lobby_page

    rows = [(100 - n, f"g{n}", {"n": n}) for n in range(20)]
    # Nothing matches within the budget: an empty page that goes on after row 5.
    items, cursor = lobby_page(iter(rows), 3, lambda s: s["n"] >= 10, scan=5)
    assert items == [] and decode_cursor(cursor) == (96, "g4")
    # Within the budget: the matches, and the cursor after the last row looked at.
    items, cursor = lobby_page(iter(rows), 2, lambda s: s["n"] % 3 == 0, scan=20)
    assert [i["id"] for i in items] == ["g0", "g3"] and decode_cursor(cursor) == (95, "g5")
    # The last matches: no cursor.
    assert lobby_page(iter(rows), 5, lambda s: s["n"] >= 18, scan=50) == (
        [{"n": 18, "id": "g18"}, {"n": 19, "id": "g19"}],
        None,
    )


def test_well_formed_game_ids_are_remembered_up_to_the_limit() -> None:
    codec._WELL_FORMED.clear()
    assert codec.is_game_id("abc_-09XY") and "abc_-09XY" in codec._WELL_FORMED
    for bad in ["", "a{b}", "a" * 65, "é", "a b", "ab\n"]:
        assert not codec.is_game_id(bad)
        assert bad not in codec._WELL_FORMED
    assert codec.is_game_id("a" * 64) and codec.is_game_id("abc_-09XY")
    for index in range(codec.GAME_ID_MEMO - len(codec._WELL_FORMED)):
        assert codec.is_game_id(f"g{index}")
    assert len(codec._WELL_FORMED) == codec.GAME_ID_MEMO  # full: the next new id starts over
    assert codec.is_game_id("one-more")
    assert sorted(codec._WELL_FORMED) == ["one-more"]
    assert codec.is_game_id("abc_-09XY")  # checked again by the pattern


def test_a_flat_events_form_is_kept_and_equal_values_of_other_types_are_not_mixed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(codec, "_TAILS", {})
    drew = {"type": "drew", "seat": 1, "source": "stock", "card": "D5"}
    first = event_tail(drew)
    assert event_tail(dict(drew)) is first  # kept
    assert first == codec._event_tail(drew)
    for value in (True, 1.0):
        other = {**drew, "seat": value}
        assert event_tail(other) == codec._event_tail(other) != first
        decoded = decode_event(stamp_event(1, 1, 0, event_tail(other)))["seat"]
        assert decoded == value and type(decoded) is type(value)
    nested = {"type": "melded", "seat": 0, "meld": {"id": 1, "cards": ["H2", "H3", "H4"]}}
    assert event_tail(nested) == codec._event_tail(nested)
    assert len(codec._TAILS) == 1  # only the flat one of exact str and int values


def test_the_kept_forms_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codec, "_TAILS", {})
    monkeypatch.setattr(codec, "TAILS_KEPT", 2)
    for card in ("H2", "H3", "H4"):
        event_tail({"type": "discarded", "seat": 0, "card": card})
    assert len(codec._TAILS) == 1  # the third emptied the table first
    assert codec.TAILS_KEPT == 2


def test_nested_objects_read_back_with_their_long_names_at_any_depth() -> None:
    event = {
        "type": "laid_off",
        "meld": {"id": 3, "type": "run", "cards": ["H3", "H4"], "jokers": {"0": "H2"}},
        "scores": [[{"seat": 0, "points": 5}], [], None],
        "~x": [{"T": {"card": "S5"}}],
    }
    decoded = decode_event(stamp_event(9, 8, 0, event_tail(event)))
    assert decoded == {"seq": 9, "version": 8, "at": "1970-01-01T00:00:00.000Z", **event}
    assert list(decoded["meld"]) == ["id", "type", "cards", "jokers"]
