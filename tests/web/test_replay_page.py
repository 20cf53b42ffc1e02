"""/play's replay, in Chromium: a person finishes a game against a bot, opens
"Review game", steps to the last move (the scores are the game's final ones)
and back to the first, the replay plays on by itself, and "Your games" in the
lobby leads there too."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browser import Browser, PageLog, save_screenshot
from tests.support.gunicorn import GunicornServer
from tests.web.players import TablePlayer
from tests.web.test_play import (
    DESKTOP,
    assert_accessible,
    assert_clean,
    create_from_lobby,
    play_until,
)


def test_a_finished_game_is_replayed_to_its_last_move_and_back(
    browser: Browser, page_log: PageLog, play_server: GunicornServer, axe_source: str
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    create_from_lobby(page, "Rae", ["greedy"])
    me = TablePlayer(page)
    play_until([me], me.game_over)
    over = page.get_by_role("region", name="Game over")
    final = over.locator("table.scores tbody tr td:nth-child(2)").all_inner_texts()
    game_url = page.url
    over.get_by_role("link", name="Review game").click()
    expect(page.locator("main.replay")).to_be_visible()
    assert page.url == f"{game_url}/replay"
    controls = page.get_by_role("navigation", name="Replay of the game")
    step = controls.locator(".replay-step")
    expect(step).to_contain_text("Move 1 of ")
    total = int(step.inner_text().rsplit(" ", 1)[1].replace(",", ""))
    assert total > 4
    # The first move: a draw (or the first discard of a first turn without one).
    expect(page.locator(".replay-move")).not_to_be_empty()
    first_move = page.locator(".replay-move").inner_text()
    # Every hand is shown: the game is over.
    expect(page.locator(".replay-players .player .cards").first).to_be_visible()
    assert_accessible(page, axe_source)

    controls.get_by_role("button", name="Last move").click()
    expect(step).to_have_text(f"Move {total} of {total}")
    # The last move's scores are the game's final ones.
    scores = page.locator(".replay-players .replay-score")
    expect(scores).to_have_count(len(final))
    expect(scores).to_have_text([re.compile(rf"\b{re.escape(points)}\b") for points in final])
    save_screenshot(page, "play-replay-last-1280x800")

    controls.get_by_role("button", name="First move").click()
    expect(step).to_have_text(f"Move 1 of {total}")
    expect(page.locator(".replay-move")).to_have_text(first_move)
    # Playing on: the steps go by by themselves, then pause.
    controls.get_by_label("Pace").select_option("0.5")
    controls.get_by_role("button", name="Play").click()
    expect(step).to_have_text(f"Move 3 of {total}", timeout=10_000)
    controls.get_by_role("button", name="Pause").click()
    # Back to the game from the replay.
    page.get_by_role("link", name="Back to the game").click()
    expect(page.get_by_role("region", name="Game over")).to_be_visible()
    # "Your games" in the lobby leads to the replay too.
    page.get_by_role("link", name="Lobby").first.click()
    mine = page.get_by_role("region", name="Your games")
    mine.get_by_role("link", name="Review game").first.click()
    expect(page.locator("main.replay")).to_be_visible()
    assert page.url == f"{game_url}/replay"
    assert_clean(page_log)
