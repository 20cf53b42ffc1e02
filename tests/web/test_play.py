"""The web front end at /play, in a real Chromium against real gunicorn and redis-server."""

from __future__ import annotations

import re
import time
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.browser import Browser, PageLog, save_screenshot
from tests.support.gunicorn import GunicornServer
from tests.web.players import TablePlayer

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}


def create_from_lobby(page: Any, name: str, seats: list[str]) -> str:
    """Create an express game from the lobby form; returns the game id from the URL."""
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Rules").select_option("express")
    for index, choice in enumerate(seats, start=2):
        if index > 2:
            page.get_by_role("button", name="Add a seat").click()
        page.get_by_label(f"Seat {index}").select_option(choice)
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url(re.compile(r"/play/?#/games/[\w-]+$"))
    return page.url.rsplit("/", 1)[1]


def play_until(players: list[TablePlayer], done: Any, *, turns: int = 400) -> None:
    """Whoever's turn it is plays it, until `done()`."""
    for _ in range(turns):
        if done():
            return
        for player in players:
            if not player.game_over() and player.is_my_turn():
                player.play_turn()
                break
        else:
            time.sleep(0.05)
    if not done():
        raise AssertionError("the game did not end")


def assert_clean(log: PageLog) -> None:
    assert log.outside_requests() == []
    assert log.console_errors == []
    assert log.page_errors == []


def test_play_is_served_with_cache_rules(play_server: GunicornServer) -> None:
    with urllib.request.urlopen(f"{play_server.url}/play") as answer:
        html = answer.read().decode()
        assert answer.headers["Cache-Control"] == "no-cache"
    asset = html.split('src="', 1)[1].split('"', 1)[0]
    assert asset.startswith("/play/assets/index-")
    with urllib.request.urlopen(f"{play_server.url}{asset}") as answer:
        assert "immutable" in answer.headers["Cache-Control"]
        assert "max-age=31536000" in answer.headers["Cache-Control"]


def test_a_person_plays_express_against_a_greedy_bot_to_the_end(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    create_from_lobby(page, "Ann", ["greedy"])
    me = TablePlayer(page)
    expect(page.locator(".players .player")).to_have_count(2)
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    play_until([me], lambda: me.game_over() or len(page_log.requests) > 40, turns=3)
    save_screenshot(page, "play-table-1280x800")
    play_until([me], me.game_over)
    over = page.get_by_role("region", name="Game over")
    expect(over).to_contain_text("won")
    expect(over.get_by_role("button", name="Play again")).to_be_visible()
    expect(over.locator("table.scores tbody tr")).to_have_count(2)
    assert_clean(page_log)
    page.context.close()
