"""The public view's kept seat entries: the same view as built afresh, shared only
while a seat is unchanged, and a bounded table."""

from __future__ import annotations

import pytest

from service.rules import seatviews
from service.rules.views import public_view
from tests.rules.scripted import play, scripted


def game():  # type: ignore[no-untyped-def]
    return scripted(
        "standard", ["H5 H6 H7 C2", "D2 D4 S6 S8"], up="SQ", stock="C9 CJ", dealer=1,
        options={"hand_size": 4}, seed=987654321987654321,
    )  # fmt: skip


def fresh_view(state):  # type: ignore[no-untyped-def]
    seatviews.SEAT_VIEWS.clear()
    return public_view(state)


def test_kept_entries_give_the_view_built_afresh() -> None:
    state, _ = game()
    before = public_view(state)
    after_draw, _ = play(state, 0, "draw discard")
    view = public_view(after_draw)
    # The seat that did not move keeps its entry; the mover's is new.
    assert view["seats"][1] is before["seats"][1]
    assert view["seats"][0] is not before["seats"][0]
    assert view["seats"][0]["hand_size"] == before["seats"][0]["hand_size"] + 1
    assert view == fresh_view(after_draw)


def test_a_melding_seat_gets_a_new_entry() -> None:
    state, _ = game()
    public_view(state)
    melded, _ = play(state, 0, "draw discard", "meld H5 H6 H7")
    view = public_view(melded)
    assert view["seats"][0]["has_melded"] is True
    assert view == fresh_view(melded)


def test_seat_entries_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seatviews, "SEAT_VIEWS_KEPT", 3)
    seatviews.SEAT_VIEWS.clear()
    state, _ = game()
    seat = state.seats[0]
    for hand_size in range(3):
        seatviews.seat_entry(0, seat, hand_size, False, ())
    assert len(seatviews.SEAT_VIEWS) == 3  # at the limit, all kept
    entry = seatviews.seat_entry(0, seat, 3, False, ())
    assert len(seatviews.SEAT_VIEWS) == 1  # one more empties the table first
    assert entry["hand_size"] == 3
    assert public_view(state) == fresh_view(state)


def test_the_default_bound() -> None:
    assert seatviews.SEAT_VIEWS_KEPT == 4096
