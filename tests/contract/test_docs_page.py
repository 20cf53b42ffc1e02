"""`/docs` in a real Chromium, as a newcomer uses it: Authorize with a seat token, then
"Try it out" with the pre-filled examples on `makeMove` (the draw: 200) and on
`createGame` (a game against a bot: 201). The page loads nothing from outside the
service."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import Browser, PageLog, save_screenshot
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def docs_server() -> Iterator[GunicornServer]:
    """The service on its memory store, as `rummy-service` runs it."""
    with GunicornServer(env={"ACCESS_LOG": "0"}, workers=1) as server:
        yield server


def _create(url: str) -> dict[str, Any]:
    body = json.dumps({"preset": "express", "seats": [{"name": "Ann"}, {"bot": "greedy"}]})
    request = urllib.request.Request(
        url + "/games", body.encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        created: dict[str, Any] = json.load(answer)
    return created


def _try_it_out(page: Any, operation: str, game_id: str | None = None) -> str:
    """Open one operation, press Try it out, fill the game id, Execute; the status shown."""
    block = page.locator(f"#operations-{operation}")
    block.locator(".opblock-summary").first.click()
    block.locator("button.try-out__btn").click()
    if game_id is not None:
        block.locator('input[placeholder="game_id"]').fill(game_id)
    block.locator("button.execute").click()
    status = block.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for(timeout=15_000)
    return str(status.inner_text()).strip()


def test_docs_authorize_and_try_it_out_with_the_examples(
    browser: Browser, page_log: PageLog, docs_server: GunicornServer
) -> None:
    created = _create(docs_server.url)
    game_id, token = created["id"], created["seats"][0]["token"]
    page = browser.new_page()
    page.goto(docs_server.url + "/")  # the root leads to the docs
    assert page.url == docs_server.url + "/docs"
    page.locator("#operations-moves-makeMove").wait_for(timeout=20_000)

    # Authorize with the seat token (the seatToken bearer scheme).
    page.locator("button.authorize").first.click()
    dialog = page.locator(".modal-ux")
    seat_scheme = dialog.locator(".auth-container", has_text="seatToken")
    seat_scheme.locator("input").fill(token)
    seat_scheme.locator("button.authorize").click()
    seat_scheme.locator("button.btn-done").click()

    # The pre-filled example of makeMove is the draw, and it is Ann's turn to draw.
    assert _try_it_out(page, "moves-makeMove", game_id) == "200"
    moved = page.locator("#operations-moves-makeMove .live-responses-table").inner_text()
    assert '"hand"' in moved  # the mover's own view: the token was sent
    # The pre-filled example of createGame makes a game against a bot.
    assert _try_it_out(page, "games-createGame") == "201"
    save_screenshot(page, "docs-try-it-out")
    assert page_log.outside_requests() == []
    assert page_log.page_errors == []
