"""Quick play at /play: two people press Play now for the same table and land at
one game; a lone player cancels the search (real Chromium, gunicorn, redis-server
and the runner, whose matcher seats the tickets)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import Browser, PageLog
from tests.support.gunicorn import GunicornServer
from tests.web.test_play import DESKTOP, assert_clean

pytestmark = pytest.mark.slow


def press_play_now(page: object, name: str, preset: str, players: int, bots: bool) -> None:
    """Fill the lobby's name and the Quick play form, then press Play now."""
    page.get_by_label("Your name").fill(name)  # type: ignore[attr-defined]
    form = page.get_by_role("form", name="Quick play")  # type: ignore[attr-defined]
    form.get_by_label("Rules").select_option(preset)
    form.get_by_label("Players").select_option(str(players))
    box = form.get_by_label("Bots may take the seats nobody takes")
    if box.is_checked() != bots:
        box.click()
    form.get_by_role("button", name="Play now").click()


def test_two_players_pressing_play_now_meet_at_one_table(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    pages = [browser.new_page(viewport=DESKTOP) for _ in range(2)]
    for page in pages:
        page.goto(f"{play_server.url}/play")
    ann, bob = pages
    press_play_now(ann, "Ann", "straight", 2, bots=False)
    # Ann waits: the waiting screen names the table and offers a cancel.
    waiting = ann.get_by_role("region", name="Quick play")
    expect(waiting.get_by_role("status")).to_contain_text("Straight")
    expect(waiting.get_by_role("button", name="Cancel")).to_be_visible()
    press_play_now(bob, "Bob", "straight", 2, bots=False)
    for page in pages:
        page.wait_for_url(re.compile(r"/play/?#/games/[\w-]+$"), timeout=30_000)
    game_ids = {page.url.rsplit("/", 1)[1] for page in pages}
    assert len(game_ids) == 1
    (game_id,) = game_ids
    seats = set()
    for page, other in ((ann, "Bob"), (bob, "Ann")):
        expect(page.get_by_role("region", name="Your hand")).to_be_visible()
        expect(page.locator(".players")).to_contain_text(other)
        saved = json.loads(page.evaluate(f"localStorage.getItem('rummy.seat.{game_id}')"))
        seats.add(saved["seat"])
    assert seats == {0, 1}
    assert_clean(page_log)
    for page in pages:
        page.context.close()


def test_a_lone_player_cancels_the_search(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    press_play_now(page, "Cy", "block", 5, bots=False)
    waiting = page.get_by_role("region", name="Quick play")
    expect(waiting.get_by_role("status")).to_be_visible()
    waiting.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("form", name="Quick play")).to_be_visible()
    assert "#/games/" not in page.url
    assert_clean(page_log)
    page.context.close()
