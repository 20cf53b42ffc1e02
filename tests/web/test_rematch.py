"""Rematch at /play: two people finish a game, one starts the rematch, the other
follows, and both play the next game (real Chromium, gunicorn and redis-server)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.api.helpers import DECK
from tests.support.browser import Browser, PageLog
from tests.support.gunicorn import GunicornServer
from tests.web.players import TablePlayer
from tests.web.test_play import DESKTOP, assert_clean, create_game, play_until

pytestmark = pytest.mark.slow


def seat_page(browser: Browser, server: GunicornServer, game_id: str, token: str, seat: int) -> Any:
    """A page of its own context holding `seat` of the game by its token."""
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{server.url}/play")
    saved = json.dumps({"token": token, "seat": seat})
    page.evaluate(
        "([key, seat]) => localStorage.setItem(key, seat)", [f"rummy.seat.{game_id}", saved]
    )
    page.goto(f"{server.url}/play#/games/{game_id}")
    return page


def test_one_starts_the_rematch_the_other_follows_and_both_play_the_next_game(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    created = create_game(
        play_server,
        {
            "preset": "express",
            "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "deck": DECK,
            "first_dealer": 1,
        },
    )
    game_id = created["id"]
    ann = seat_page(browser, play_server, game_id, created["seats"][0]["token"], 0)
    bob = seat_page(browser, play_server, game_id, created["seats"][1]["token"], 1)
    players = [TablePlayer(ann), TablePlayer(bob)]
    play_until(players, lambda: all(p.game_over() for p in players))

    ann_over = ann.get_by_role("region", name="Game over")
    bob_over = bob.get_by_role("region", name="Game over")
    expect(bob_over.get_by_role("button", name="Rematch", exact=True)).to_be_visible()
    ann_over.get_by_role("button", name="Rematch", exact=True).click()
    ann.wait_for_url(lambda url: game_id not in url)
    next_id = ann.url.rsplit("/", 1)[1]
    # Bob's page heard of it (rematch_offered) and offers to follow.
    follow = bob_over.get_by_role("button", name="Join rematch")
    expect(follow).to_be_visible()
    expect(bob.locator(".last-move")).to_contain_text("Ann started a rematch.")
    follow.click()
    bob.wait_for_url(re.compile(rf"#/games/{next_id}$"))

    for page, other in ((ann, "Bob"), (bob, "Ann")):
        expect(page.get_by_role("region", name="Your hand")).to_be_visible()
        expect(page.locator(".players .player")).to_have_count(2)
        expect(page.locator(".players")).to_contain_text(other)
        saved = page.evaluate(f"localStorage.getItem('rummy.seat.{next_id}')")
        assert saved is not None and json.loads(saved)["token"]
    # Seats turned one place: Bob sits first now, Ann second.
    assert json.loads(bob.evaluate(f"localStorage.getItem('rummy.seat.{next_id}')"))["seat"] == 0
    assert json.loads(ann.evaluate(f"localStorage.getItem('rummy.seat.{next_id}')"))["seat"] == 1
    again = [TablePlayer(ann), TablePlayer(bob)]
    assert play_until(again, lambda: any(p.game_over() for p in again), turns=2) == 2
    assert_clean(page_log)
    ann.context.close()
    bob.context.close()
