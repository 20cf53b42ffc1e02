"""The web front end at /play, in a real Chromium against real gunicorn and redis-server."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.browser import Browser, PageLog, save_screenshot
from tests.support.gunicorn import GunicornServer
from tests.web.players import TablePlayer, rank

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}


def create_from_lobby(
    page: Any,
    name: str,
    seats: list[str],
    *,
    preset: str = "express",
    options: dict[str, str] | None = None,
) -> str:
    """Create a game from the lobby form; returns the game id from the URL."""
    page.get_by_label("Your name").fill(name)
    page.locator("form.create").get_by_label("Rules").select_option(preset)
    if options:
        page.get_by_text("Options", exact=True).click()
        for option, value in options.items():
            field = page.get_by_label(option.replace("_", " "), exact=True)
            if field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(value)
            else:
                field.fill(value)
    for index, choice in enumerate(seats, start=2):
        if index > 2:
            page.get_by_role("button", name="Add a seat").click()
        page.get_by_label(f"Seat {index}").select_option(choice)
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url(re.compile(r"/play/?#/games/[\w-]+$"))
    return page.url.rsplit("/", 1)[1]


#: How long no page may show anyone's turn before the table is reported as stuck.
STUCK_SECONDS = 90


def play_until(players: list[TablePlayer], done: Any, *, turns: int | None = None) -> int:
    """Whoever's turn it is plays it, until `done()` (or `turns` turns were played).

    When no page shows a turn for `STUCK_SECONDS`, fails with every page's state.
    """
    played = 0
    deadline = time.monotonic() + 480
    last_turn = time.monotonic()
    while not done() and (turns is None or played < turns):
        assert time.monotonic() < deadline, "the game did not end in time"
        for player in players:
            if not player.game_over() and player.is_my_turn():
                player.play_turn()
                played += 1
                last_turn = time.monotonic()
                break
        else:
            if time.monotonic() - last_turn > STUCK_SECONDS:
                pages = "\n".join(f"page {i}: {p.describe()}" for i, p in enumerate(players))
                raise AssertionError(f"no page showed a turn for {STUCK_SECONDS} s\n{pages}")
            time.sleep(0.05)
    return played


def assert_clean(log: PageLog) -> None:
    assert log.outside_requests() == []
    assert log.console_errors == []
    assert log.page_errors == []


def assert_accessible(page: Any, axe_source: str) -> None:
    """axe-core finds no WCAG 2 A/AA violation of "serious" or "critical" impact on `page`
    as it is now (each one found is listed with its rule and elements)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # Evaluated by the browser's debugger, which the page's CSP (no inline script) allows.
        page.evaluate(axe_source + "\n;undefined")
    found = page.evaluate(
        """async () => {
            const result = await window.axe.run(document, {
                runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
            });
            return result.violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '));
        }"""
    )
    assert found == [], "\n".join(found)


def test_play_is_served_with_cache_rules(play_server: GunicornServer) -> None:
    with urllib.request.urlopen(f"{play_server.url}/play") as answer:
        html = answer.read().decode()
        assert answer.headers["Cache-Control"] == "no-cache"
        policy = answer.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "connect-src 'self'" in policy
    asset = html.split('src="', 1)[1].split('"', 1)[0]
    assert asset.startswith("/play/assets/index-")
    with urllib.request.urlopen(f"{play_server.url}{asset}") as answer:
        assert "immutable" in answer.headers["Cache-Control"]
        assert "max-age=31536000" in answer.headers["Cache-Control"]


def test_a_person_plays_express_against_a_greedy_bot_to_the_end(
    browser: Browser, page_log: PageLog, play_server: GunicornServer, axe_source: str
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    expect(page.locator("form.create").get_by_label("Rules")).to_contain_text("Express")
    assert_accessible(page, axe_source)
    save_screenshot(page, "play-lobby-1280x800")
    create_from_lobby(page, "Ann", ["greedy"])
    me = TablePlayer(page)
    expect(page.locator(".players .player")).to_have_count(2)
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    check_hand_controls(page, me)
    play_until([me], me.game_over, turns=3)
    save_screenshot(page, "play-table-1280x800")
    assert_accessible(page, axe_source)
    play_until([me], me.game_over)
    over = page.get_by_role("region", name="Game over")
    expect(over).to_contain_text("won")
    assert_accessible(page, axe_source)
    expect(over.get_by_role("button", name="Play again")).to_be_visible()
    expect(over.locator("table.scores tbody tr")).to_have_count(2)
    save_screenshot(page, "play-game-over-1280x800")
    # It followed the game with the event stream.
    assert any(re.search(r"/games/[\w-]+/stream\?after=", url) for url in page_log.requests)
    assert_clean(page_log)

    # Play again: a new game with the same seats and options.
    finished = page.url
    over.get_by_role("button", name="Play again").click()
    page.wait_for_url(lambda url: url != finished)
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    expect(page.locator(".players .player")).to_have_count(2)
    expect(page.locator(".players")).to_contain_text("Greedy bot")
    assert_clean(page_log)
    page.context.close()


SUIT_ORDER = "SHCD"


def check_hand_controls(page: Any, me: TablePlayer) -> None:
    """Cards are toggled by keyboard as by click; the hand sorts by suit or by rank."""
    first = page.locator(".hand-cards .card").first
    first.focus()
    page.keyboard.press("Space")
    expect(first).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Enter")
    expect(first).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")
    second = page.locator(".hand-cards .card").nth(1)
    expect(second).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Space")
    expect(second).to_have_attribute("aria-pressed", "false")
    label = first.get_attribute("aria-label") or ""
    # Named by what it shows, then in words: "K♥ (king of hearts)".
    assert re.fullmatch(
        r"([AKQJ]|\d+)[♣♦♥♠] \((ace|king|queen|jack|\d+) of (clubs|diamonds|hearts|spades)\)"
        r"|★\w+ \(joker\)",
        label,
    ), label

    page.get_by_role("button", name="suit", exact=True).click()
    by_suit = me.cards()
    assert by_suit == sorted(by_suit, key=lambda c: (SUIT_ORDER.index(c[0]), rank(c)))
    page.get_by_role("button", name="rank", exact=True).click()
    by_rank = me.cards()
    assert by_rank == sorted(by_rank, key=lambda c: (rank(c), SUIT_ORDER.index(c[0])))


def test_two_people_join_by_link_play_a_round_and_the_joiner_resumes_after_a_reload(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    ann = browser.new_page(viewport=DESKTOP)
    ann.goto(f"{play_server.url}/play")
    # A game with an open seat is dealt at random, and two of these players (each
    # keeps its best cards and discards the rest) can pass the same cards back and
    # forth through the refilled stock for ever: a CI run saw 740 turns of it. Two
    # refills, then the round ends by an empty stock if nobody went out.
    game_id = create_from_lobby(ann, "Ann", ["open"], options={"max_refills": "2"})
    link = ann.get_by_label("Game link").input_value()
    assert link == f"{play_server.url}/play#/games/{game_id}"

    # Another context (no token of Ann's), on a phone in dark mode.
    bob = browser.new_page(viewport=PHONE, color_scheme="dark")
    bob.goto(link)
    join = bob.get_by_role("form", name="Join this game")
    join.get_by_label("Your name").fill("Bob")
    join.get_by_role("button", name="Join").click()
    expect(bob.get_by_role("region", name="Your hand")).to_be_visible()
    expect(ann.get_by_role("region", name="Your hand")).to_be_visible()  # heard Bob join
    players = [TablePlayer(ann), TablePlayer(bob)]
    joiner = players[1]

    play_until(players, lambda: any(p.game_over() for p in players), turns=4)
    hand = sorted(joiner.cards())
    bob.reload()
    expect(bob.get_by_role("region", name="Your hand")).to_be_visible()
    assert sorted(joiner.cards()) == hand
    expect(bob.locator(".players .player")).to_have_count(2)
    save_screenshot(bob, "play-table-375x812")

    play_until(players, lambda: all(p.game_over() for p in players))
    for page in (ann, bob):
        expect(page.get_by_role("region", name="Game over")).to_contain_text("won")
        expect(page.get_by_role("region", name="Round 1 result")).to_be_visible()
    assert_clean(page_log)
    ann.context.close()
    bob.context.close()


def test_a_view_fetched_while_watching_never_replaces_the_seat_joined_since(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    """The watcher's page hears of its own join and asks for the watcher's view; when
    that answer arrives after the seat's, it is dropped. (Shown, it hid the joiner's
    hand and the table waited for ever on a turn nobody was shown.)"""
    ann = browser.new_page(viewport=DESKTOP)
    ann.goto(f"{play_server.url}/play")
    game_id = create_from_lobby(ann, "Ann", ["open"])
    bob = browser.new_page(viewport=DESKTOP)
    bob.goto(f"{play_server.url}/play#/games/{game_id}")
    join = bob.get_by_role("form", name="Join this game")
    expect(join).to_be_visible()

    # The page's views asked for without a token, answered by the service and held.
    watcher_views: list[tuple[Any, Any]] = []
    joins: list[tuple[Any, Any]] = []  # the join's answer, held likewise

    def hold_watcher_views(route: Any) -> None:
        if route.request.method == "GET" and "authorization" not in route.request.all_headers():
            watcher_views.append((route, route.fetch()))
        else:
            route.continue_()

    def seen_since_join() -> bool:
        joined = joins[0][1].json()["game"]["version"] if joins else None
        return any(answer.json()["version"] == joined for _, answer in watcher_views)

    bob.route(f"**/games/{game_id}", hold_watcher_views)
    bob.route(f"**/games/{game_id}/join", lambda route: joins.append((route, route.fetch())))
    join.get_by_label("Your name").fill("Bob")
    join.get_by_role("button", name="Join").click()
    deadline = time.monotonic() + 20
    while not seen_since_join():  # the watcher heard of the join and asked again
        assert time.monotonic() < deadline, "the watching page never heard of the join"
        bob.wait_for_timeout(50)
    route, answer = joins[0]
    route.fulfill(response=answer)
    hand = bob.get_by_role("region", name="Your hand")
    status = bob.locator(".hand .status")
    expect(hand).to_be_visible()
    expect(status).to_have_text(re.compile("^(Your turn|Waiting for Ann)"))

    for held, late in watcher_views:
        assert late.json().get("hand") is None  # a watcher's view: no hand
        held.fulfill(response=late)
    bob.wait_for_timeout(1_000)  # the late answers have been handled by now
    assert hand.is_visible()
    expect(status).to_have_text(re.compile("^(Your turn|Waiting for Ann)"))
    bob.unroute_all(behavior="ignoreErrors")
    assert_clean(page_log)
    ann.context.close()
    bob.context.close()


def test_a_refused_move_shows_the_services_refusal_in_the_pages_words(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    game_id = create_from_lobby(page, "Cy", ["greedy"])
    expect(page.locator(".hand .status")).to_contain_text("Your turn: draw")
    # The page stops hearing of moves (a stalled network), then the same seat draws
    # elsewhere: the page still offers the draw, and the service refuses it.
    page.route("**/events?**", lambda route: None)
    page.route("**/stream?**", lambda route: None)
    page.reload()
    expect(page.get_by_role("button", name="Draw from stock")).to_be_enabled()
    saved = json.loads(page.evaluate(f"localStorage.getItem('rummy.seat.{game_id}')"))
    assert draw(play_server, game_id, saved["token"])[0] == 200
    status, problem = draw(play_server, game_id, saved["token"])
    assert status == 409

    page.get_by_role("button", name="Draw from stock").click()
    # In the page's words for the problem's code (the catalogue's entry for it).
    words = catalogue("en")[f"reason_{problem['code']}"][0]
    expect(page.get_by_role("alert")).to_have_text(words + "✕")
    # The only console noise is Chromium's note of the refused request.
    assert all("409" in message for message in page_log.console_errors)
    assert page_log.outside_requests() == []
    page.unroute_all(behavior="ignoreErrors")
    page.context.close()


def draw(server: GunicornServer, game_id: str, token: str) -> tuple[int, dict[str, Any]]:
    """Draw from the stock through the API, as another client of the same seat."""
    request = urllib.request.Request(
        f"{server.url}/games/{game_id}/moves",
        data=json.dumps({"type": "draw", "source": "stock"}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_the_page_waits_out_an_unreachable_or_busy_service(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    create_from_lobby(page, "Di", ["greedy"])
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()

    # Unreachable: every API request fails, so the page says it is reconnecting,
    # and carries on by itself once the service answers again.
    page.route("**/games/**", lambda route: route.abort("connectionrefused"))
    page.reload()
    expect(page.get_by_role("status")).to_have_text("Reconnecting…")
    page.unroute("**/games/**")
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    expect(page.get_by_role("status")).to_have_count(0)

    # Busy: a 429 with Retry-After on the view is waited out and the request sent
    # again (else the page would show the refusal and never load).
    asked: list[str] = []

    def busy_once(route: Any) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            route.fulfill(
                status=429,
                headers={"Retry-After": "1", "Content-Type": "application/problem+json"},
                body=json.dumps({"type": "about:blank", "title": "Too Many Requests",
                                 "status": 429, "code": "rate_limited", "detail": "slow down"}),
            )  # fmt: skip
        else:
            route.continue_()

    page.route(lambda url: re.search(r"/games/[\w-]+$", url) is not None, busy_once)
    page.reload()
    expect(page.get_by_role("button", name="Draw from stock")).to_be_enabled()
    expect(page.get_by_role("alert")).to_have_count(0)
    assert len(asked) >= 2 and asked[0] == asked[1]
    assert page_log.outside_requests() == []
    assert page_log.page_errors == []
    page.context.close()


def test_a_round_end_shows_every_hand_and_the_points_then_the_next_round(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    create_from_lobby(
        page, "Eve", ["greedy"], preset="standard", options={"end": "rounds", "rounds": "2"}
    )
    me = TablePlayer(page)
    result = page.get_by_role("region", name="Round 1 result")
    play_until([me], lambda: result.count() > 0 or me.game_over())
    assert not me.game_over()
    expect(result.locator("tbody tr")).to_have_count(2)
    hands = result.locator("tbody tr .card")
    assert hands.count() > 0  # the loser's cards, revealed
    labels = [hands.nth(i).get_attribute("aria-label") for i in range(hands.count())]
    assert all(labels)
    points = [int(t) for t in result.locator("tbody tr td:last-child").all_inner_texts()]
    if sum(points) == 0:
        # The deal is random: a round may end with the stock, nobody out and
        # (in `standard`) nobody scoring; a round somebody went out of scores.
        expect(result.locator("h2")).to_have_text("Round 1 over")
    expect(page.locator(".game-header")).to_contain_text("round 2")
    result.get_by_role("button", name="Continue").click()
    expect(result).to_have_count(0)

    play_until([me], me.game_over)
    page.locator(".score-sheet summary").click()
    expect(page.locator(".score-sheet tbody tr")).to_have_count(3)  # two rounds and the total
    assert_clean(page_log)
    page.context.close()


def test_leaving_hands_the_seat_to_a_bot_and_the_creator_may_cancel_a_waiting_game(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    playing = create_from_lobby(page, "Fay", ["greedy"])
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    page.get_by_role("button", name="Leave", exact=True).click()
    page.get_by_role("button", name="Leave game").click()
    expect(page.get_by_role("button", name="Create game")).to_be_visible()
    assert page.evaluate(f"localStorage.getItem('rummy.seat.{playing}')") is None
    seats = get(play_server, f"/games/{playing}")[1]["seats"]
    assert [seat["kind"] for seat in seats] == ["bot", "bot"]

    waiting = create_from_lobby(page, "Fay", ["open"])
    expect(page.get_by_label("Game link")).to_be_visible()
    page.get_by_role("button", name="Cancel this game").click()
    expect(page.get_by_role("button", name="Create game")).to_be_visible()
    assert get(play_server, f"/games/{waiting}")[0] == 404
    assert_clean(page_log)
    page.context.close()


def get(server: GunicornServer, path: str) -> tuple[int, dict[str, Any]]:
    """GET a path of the API without a token: (status, JSON body)."""
    try:
        with urllib.request.urlopen(f"{server.url}{path}") as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_a_turn_clock_counts_down_for_the_seat_to_move(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    create_from_lobby(page, "Gus", ["greedy"], options={"turn_seconds": "120"})
    expect(page.locator(".hand .status")).to_contain_text("Your turn")
    clock = page.locator(".player.turn").get_by_role("timer")
    expect(clock).to_have_attribute("aria-label", re.compile(r"^\d+ seconds left$"))
    left = int((clock.get_attribute("aria-label") or "").split()[0])
    assert 0 < left <= 120
    expect(clock).not_to_have_attribute("aria-label", f"{left} seconds left")  # it runs
    assert_clean(page_log)
    page.context.close()


RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
#: Three hands of the first round of an elimination game dealt by seat 0: seat 1
#: (a bot, first to play) goes out at once with rummy (a run and a set, then the
#: card it draws); seat 0 keeps 70 points, 140 with the rummy doubled, and is
#: eliminated (the target is 100); seat 2 keeps 31 points, 62, and stays in.
ELIMINATING_HANDS = [
    "SA HK DQ CJ S10 D8 C7",
    "H2 H3 H4 H5 S9 D9 C9",
    "C2 D3 S4 D6 C5 S7 D4",
]


def eliminating_deck(up: str = "CQ", stock_top: str = "SK") -> list[str]:
    """The whole deck that deals `ELIMINATING_HANDS` with seat 0 dealing (one card at a
    time from seat 1), turns `up` up and puts `stock_top` on the stock."""
    hands = [hand.split() for hand in ELIMINATING_HANDS]
    order = [1, 2, 0]
    deck = [hands[seat][i] for i in range(len(hands[0])) for seat in order]
    deck += [up, stock_top]
    deck += [s + r for s in "SHDC" for r in RANKS if s + r not in deck]
    assert len(deck) == len(set(deck)) == 52
    return deck


def create_game(server: GunicornServer, body: dict[str, Any]) -> dict[str, Any]:
    """Create a game through the API; the answer (with the named seats' tokens)."""
    request = urllib.request.Request(
        f"{server.url}/games",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 201
        created: dict[str, Any] = json.loads(answer.read())
        return created


def eliminated_at_once(server: GunicornServer, options: dict[str, Any]) -> tuple[str, str]:
    """An elimination game of Ann (seat 0) and two greedy bots whose first round
    eliminates Ann while both bots stay in: (game id, Ann's token)."""
    created = create_game(
        server,
        {
            "preset": "elimination",
            "seats": [{"name": "Ann"}, {"bot": "greedy"}, {"bot": "greedy"}],
            "deck": eliminating_deck(),
            "first_dealer": 0,
            "options": options,
        },
    )
    return created["id"], created["seats"][0]["token"]


def open_seat_page(
    browser: Browser,
    server: GunicornServer,
    game_id: str,
    token: str,
    lang: str | None = None,
    **options: Any,
) -> Any:
    """A page holding the seat of `token` (as if this browser had created the game), in
    `lang` when given (the switcher's remembered choice); `options` for its context."""
    page = browser.new_page(viewport=DESKTOP, **options)
    page.goto(f"{server.url}/play")
    seat = json.dumps({"token": token, "seat": 0})
    page.evaluate(
        "([key, seat]) => localStorage.setItem(key, seat)", [f"rummy.seat.{game_id}", seat]
    )
    if lang is not None:
        page.evaluate("lang => localStorage.setItem('rummy.lang', lang)", lang)
    page.goto(f"{server.url}/play#/games/{game_id}")
    if lang is not None:
        page.reload()  # the language is read when the page loads (the hash alone does not)
    return page


def test_an_eliminated_person_re_engages_with_the_total_shown_and_is_dealt_the_next_round(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    game_id, token = eliminated_at_once(play_server, {})
    page = open_seat_page(browser, play_server, game_id, token)
    watcher = browser.new_page(viewport=PHONE)
    watcher.goto(f"{play_server.url}/play#/games/{game_id}")

    # Between rounds: the round's result, and the choice, to Ann only.
    decision = page.get_by_role("region", name="Re-engage")
    expect(decision.get_by_role("heading")).to_have_text("You are eliminated with 140 points")
    reengage = decision.get_by_role("button", name="Re-engage with 62 points")
    expect(reengage).to_be_enabled()
    expect(decision.get_by_role("button", name="Decline")).to_be_enabled()
    expect(decision.get_by_role("timer")).to_have_count(0)  # no turn clock: no deadline
    expect(page.get_by_role("region", name="Round 1 result")).to_be_visible()
    expect(page.get_by_role("region", name="Your hand")).to_have_count(0)
    me = page.locator(".players .player").first
    expect(me).to_contain_text("deciding")
    expect(me).to_contain_text("Score 140")
    expect(page.locator(".log")).to_contain_text("You may re-engage with 62 points.")
    expect(page.locator(".game-header")).not_to_contain_text("pot")  # no stake
    # The other players see who is deciding, and no choice of theirs.
    expect(watcher.get_by_role("region", name="Re-engage")).to_have_text(
        "Waiting for Ann to decide whether to re-engage…"
    )
    expect(watcher.get_by_role("button", name=re.compile("Re-engage|Decline"))).to_have_count(0)
    save_screenshot(page, "play-reengage-1280x800")

    reengage.click()
    expect(decision).to_have_count(0)
    expect(page.locator(".game-header")).to_contain_text("round 2")
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    expect(page.locator(".hand-cards .card")).not_to_have_count(0)
    expect(page.locator(".hand .status")).to_have_text(re.compile("^(Your turn|Waiting for)"))
    expect(me).to_contain_text("Score 62")
    expect(me).to_contain_text("re-engaged")
    expect(me).not_to_contain_text("eliminated")
    expect(page.locator(".log")).to_contain_text("You re-engaged with 62 points.")
    expect(watcher.get_by_role("region", name="Re-engage")).to_have_count(0)
    expect(watcher.locator(".log")).to_contain_text("Ann re-engaged with 62 points.")
    assert_clean(page_log)
    page.context.close()
    watcher.context.close()


def test_a_stake_game_shows_the_pot_the_chips_and_the_payouts(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    game_id, token = eliminated_at_once(play_server, {"stake": 10, "turn_seconds": 120})
    page = open_seat_page(browser, play_server, game_id, token)

    expect(page.locator(".game-header .pot")).to_have_text("pot 30 chips")
    chips = page.locator(".players .chips")
    expect(chips).to_have_count(3)
    for i in range(3):
        expect(chips.nth(i)).to_contain_text("Chips in 10")
        expect(chips.nth(i)).to_contain_text("out 0")
        expect(chips.nth(i)).to_have_attribute("aria-label", "10 chips in, 0 chips out")
    expect(page.locator(".log")).to_contain_text(
        "Every player put 10 chips in the pot: 30 chips to win."
    )
    decision = page.get_by_role("region", name="Re-engage")
    expect(
        decision.get_by_role("button", name="Re-engage with 62 points for 5 chips")
    ).to_be_enabled()
    clock = decision.get_by_role("timer")  # the turn clock runs for the decision too
    expect(clock).to_have_attribute("aria-label", re.compile(r"^\d+ seconds left$"))
    assert 0 < int((clock.get_attribute("aria-label") or "").split()[0]) <= 120

    # Ann declines: the bots play on to the end by themselves, and the winner takes the pot.
    decision.get_by_role("button", name="Decline").click()
    over = page.get_by_role("region", name="Game over")
    expect(over).to_contain_text("won")
    heads = over.locator("table.scores thead th").all_inner_texts()
    assert heads == ["Player", "Total", "Chips in", "Payout"]
    rows = over.locator("table.scores tbody tr")
    expect(rows).to_have_count(3)
    table = [
        [int(cell) for cell in rows.nth(i).locator("td").all_inner_texts()[1:]] for i in range(3)
    ]
    put_in = sum(row[1] for row in table)
    assert put_in >= 30 and table[0][1] == 10  # Ann's stake, and the bots' re-engagements
    assert sum(row[2] for row in table) == put_in  # the whole pot is paid out
    assert table[0][2] == 0  # Ann won nothing
    winners = over.locator("table.scores tbody tr.winner td:last-child").all_inner_texts()
    assert winners and all(int(payout) > 0 for payout in winners)
    expect(page.locator(".log")).to_contain_text(re.compile(r"The game ended: .* won \d+ chips"))
    expect(page.locator(".game-header .pot")).to_have_count(0)  # paid out
    save_screenshot(page, "play-stake-game-over-1280x800")
    assert_clean(page_log)
    page.context.close()


# --- Reasons, languages and the create form's limits (issue 40) -------------------------

WEB_I18N = Path(__file__).resolve().parents[2] / "web" / "src" / "i18n"
LANGUAGES = ["is", "da", "sv", "el"]
#: Ann's 13 cards and the extra card of the first player in `romme` (two decks, six
#: jokers, a 40-point first meld): C2 C3 C4 is a 9-point meld, and she holds more.
ROMME_HANDS = [
    ["C2", "C3", "C4", "DK", "HK", "SK", "D10", "H10", "S10", "H5", "S7", "D8", "C9"],
    ["CA", "D3", "H6", "S9", "CQ", "D5", "H8", "S2", "C6", "DJ", "H3", "S5", "C8"],
]


def catalogue(lang: str) -> dict[str, list[str]]:
    """A message catalogue of web/src/i18n as key → its texts (one, or the plural forms)."""
    entries: dict[str, list[str]] = {}
    key = None
    for line in (WEB_I18N / f"{lang}.ts").read_text().splitlines():
        top = re.match(r"^  (\w+): (.*)$", line)
        if top:
            key = top.group(1)
            entries[key] = []
            line = top.group(2)
        elif not line.startswith("    "):
            key = None
        if key is not None:
            entries[key] += [json.loads(f'"{s}"') for s in re.findall(r'"((?:[^"\\]|\\.)*)"', line)]
    return entries


def english_fragments(lang: str) -> set[str]:
    """The words of the English catalogue that should never show on a page in `lang`: each
    text cut at its placeholders, the pieces with a word of four letters or more, less
    the entries `lang` writes the same (a preset's name, "Joker" in Danish…)."""
    english, other = catalogue("en"), catalogue(lang)
    assert set(english) == set(other)
    fragments = set()
    for key, texts in english.items():
        if key == "lang_name" or texts == other[key]:
            continue
        translated = {p.strip(" .,:;!?()…") for t in other[key] for p in re.split(r"\{\w+\}", t)}
        for text in texts:
            for piece in re.split(r"\{\w+\}", text):
                piece = piece.strip(" .,:;!?()…←·#\u00d7")
                if re.search(r"[A-Za-z]{4,}", piece) and piece not in translated:
                    fragments.add(piece)
    return fragments


def visible_text(page: Any) -> str:
    """The page's rendered text with the labels and titles of its visible elements."""
    return str(
        page.evaluate(
            """() => {
                const parts = [document.body.innerText, document.title];
                const labelled = '[aria-label], [title], [placeholder]';
                for (const el of document.querySelectorAll(labelled)) {
                    if (!el.checkVisibility()) continue;
                    for (const a of ['aria-label', 'title', 'placeholder']) {
                        const v = el.getAttribute(a);
                        if (v) parts.push(v);
                    }
                }
                return parts.join('\\n');
            }"""
        )
    )


def english_left(page: Any, lang: str) -> list[str]:
    text = visible_text(page)
    return sorted(
        f for f in english_fragments(lang) if re.search(rf"(?<!\w){re.escape(f)}(?!\w)", text)
    )


def failed_requests(page: Any) -> list[str]:
    """Requests of `page` from now on that failed or were answered 400 or above."""
    failed: list[str] = []

    def on_failed(request: Any) -> None:
        # A stream or long-poll the page itself ends (a reload, leaving the game) is aborted.
        aborted = "ERR_ABORTED" in (request.failure or "")
        if not (aborted and re.search(r"/games/[\w-]+/(stream|events)\?", request.url)):
            failed.append(f"failed {request.url} {request.failure}")

    page.on("requestfailed", on_failed)
    page.on(
        "response",
        lambda response: (
            response.status >= 400 and failed.append(f"{response.status} {response.url}")
        ),
    )
    return failed


def romme_after_a_nine_point_meld(browser: Browser, server: GunicornServer) -> tuple[Any, str]:
    """Ann (seat 0, first to play, 14 cards) against a greedy bot in `romme`, on the page,
    after she melded C2 C3 C4 (9 points of the 40 a first meld needs)."""
    from tests.api.test_rulings_over_http import deck_of

    created = create_game(
        server,
        {
            "preset": "romme",
            "seats": [{"name": "Ann"}, {"bot": "greedy"}],
            "deck": deck_of(ROMME_HANDS, ["HQ"], decks=2, jokers=6),
            "first_dealer": 1,
        },
    )
    game_id = created["id"]
    page = open_seat_page(browser, server, game_id, created["seats"][0]["token"])
    expect(page.locator(".hand-cards .card")).to_have_count(14)
    for card in ["C2", "C3", "C4"]:
        page.locator(f'.hand-cards .card[data-card="{card}"]').click()
    meld = page.get_by_role("button", name="Meld selected")
    expect(meld).to_be_enabled()
    meld.click()
    expect(page.locator(".hand-cards .card")).to_have_count(11)
    return page, game_id


def test_a_disabled_discard_says_the_first_meld_needs_40_points_and_the_status_agrees(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page, _ = romme_after_a_nine_point_meld(browser, play_server)
    failed = failed_requests(page)
    discard = page.get_by_role("button", name="Discard selected")
    page.locator('.hand-cards .card[data-card="H5"]').click()
    expect(page.locator(".hand-cards .card.selected")).to_have_count(1)
    expect(discard).to_be_disabled()
    why = page.locator("#why-discard")
    expect(why).to_have_text(
        "Discard selected: Your first melds must make 40 points in all before you lay off or"
        " discard; yours make 9."
    )
    expect(discard).to_have_attribute("aria-describedby", "why-discard")
    status = page.locator(".hand .status")
    expect(status).to_have_text(
        "Your turn: meld 40 points in all before you lay off or discard (yours so far: 9)."
    )
    assert "then discard" not in status.inner_text()
    expect(page.locator(".game-header .rule")).to_have_text("First melds: at least 40 points")
    save_screenshot(page, "play-first-meld-reason-1280x800")

    # The same in Icelandic, chosen with the switcher and kept over a reload.
    page.get_by_label("Language").select_option("is")
    expect(page.locator("html")).to_have_attribute("lang", "is")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "is")
    expect(page.locator("#why-discard")).to_contain_text("ná samtals 40 stigum")
    expect(page.locator("#why-discard")).to_contain_text("þín nær 9")
    expect(page.locator(".hand .status")).to_have_text(
        "Þú átt leik: fyrsta niðurlögnin verður að ná samtals 40 stigum áður en þú bætir við eða"
        " kastar (komið: 9)."
    )
    assert failed == []
    assert_clean(page_log)
    page.context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_in_each_language_shows_no_english_word(
    browser: Browser, page_log: PageLog, play_server: GunicornServer, lang: str, axe_source: str
) -> None:
    """The lobby and a table (melds, reasons, events, a bot, the log) in `lang`: no text of
    the English catalogue is left, and `<html lang>` says the language."""
    lobby = browser.new_page(
        viewport=DESKTOP, locale={"is": "is-IS", "da": "da-DK", "sv": "sv-SE", "el": "el-GR"}[lang]
    )
    failed = failed_requests(lobby)
    lobby.goto(f"{play_server.url}/play")  # chosen from navigator.languages
    expect(lobby.locator("html")).to_have_attribute("lang", lang)
    expect(lobby.locator("select").first).to_be_visible()
    expect(lobby.get_by_role("button", name=re.compile(".")).first).to_be_visible()
    lobby.wait_for_function("() => document.querySelectorAll('form.create option').length > 5")
    lobby.locator("form.create details:not(.how-to-play) summary").click()  # the options
    expect(lobby.locator("form.create .options label").first).to_be_visible()
    lobby.locator("form.create .how-to-play summary").click()  # and the rules, in words too
    expect(lobby.locator("form.create .how-to-play li").first).to_be_visible()
    assert english_left(lobby, lang) == []
    assert_accessible(lobby, axe_source)
    assert failed == []
    lobby.context.close()

    page, _ = romme_after_a_nine_point_meld(browser, play_server)
    failed = failed_requests(page)
    page.get_by_label("Language").select_option(lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.locator('.hand-cards .card[data-card="H5"]').click()
    expect(page.locator("#why-discard")).to_be_visible()
    page.locator(".score-sheet summary").count()  # no rounds finished yet: no sheet
    page.get_by_role("button", name=re.compile(r"\(\d+\)$")).click()  # the whole pile
    page.locator(".how-to-play summary").click()  # romme's rules: jokers, two decks, 40 points
    expect(page.locator(".how-to-play li").first).to_be_visible()
    assert english_left(page, lang) == []
    assert_accessible(page, axe_source)
    save_screenshot(page, f"play-table-{lang}-1280x800")
    page.set_viewport_size(PHONE)
    save_screenshot(page, f"play-table-{lang}-375x812")
    assert failed == []
    assert_clean(page_log)
    page.context.close()


def test_the_create_form_refuses_a_fifth_seat_for_a_four_player_preset_without_asking(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    failed = failed_requests(page)
    page.goto(f"{play_server.url}/play")
    page.get_by_label("Your name").fill("Ida")
    page.locator("form.create").get_by_label("Rules").select_option("express")
    expect(page.locator(".preset-description")).to_have_text(
        "A one-round game; an ace counts 15 points. 2 to 4 players."
    )
    expect(
        page.locator("form.create").get_by_label("Rules").locator("option[value=romme]")
    ).to_have_text("Rommé")
    expect(page.locator(".rule-tags")).to_have_text("Lowest score wins")  # penalty scoring
    add = page.get_by_role("button", name="Add a seat")
    add.click()
    add.click()
    expect(page.locator(".seats li")).to_have_count(4)
    posted: list[str] = []
    page.on("request", lambda request: request.method == "POST" and posted.append(request.url))
    expect(add).to_be_disabled()
    add.click(force=True)  # a click on the disabled button adds nothing
    expect(page.locator(".seats li")).to_have_count(4)
    expect(page.locator("#seats-full")).to_have_text("This rule set allows at most 4 players.")
    assert posted == []

    # A six-player preset allows more; back to express, the extra seats go.
    page.locator("form.create").get_by_label("Rules").select_option("standard")
    expect(add).to_be_enabled()
    add.click()
    expect(page.locator(".seats li")).to_have_count(5)
    page.locator("form.create").get_by_label("Rules").select_option("express")
    expect(page.locator(".seats li")).to_have_count(4)
    assert posted == []
    assert re.search(r"[{}\[\]]", visible_text(page)) is None  # no raw JSON anywhere
    # The English page is what the language tests would catch.
    assert "Add a seat" in english_left(page, "is")
    assert failed == []
    assert_clean(page_log)
    page.context.close()


def test_a_watcher_is_told_and_the_game_end_shows_the_hands(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    """A spectator sees "You are watching"; at the game's end each seat shows the cards it
    was left with, not a count of 0."""
    game_id, token = eliminated_at_once(play_server, {})
    page = open_seat_page(browser, play_server, game_id, token)
    watcher = browser.new_page(viewport=PHONE)
    failed = failed_requests(watcher)
    watcher.goto(f"{play_server.url}/play#/games/{game_id}")
    expect(watcher.get_by_role("note")).to_have_text("You are watching this game.")
    expect(page.get_by_role("note")).to_have_count(0)
    page.get_by_role("region", name="Re-engage").get_by_role("button", name="Decline").click()
    over = page.get_by_role("region", name="Game over")
    expect(over).to_be_visible()
    players = page.locator(".players .player")
    expect(players.first.locator(".revealed")).to_have_count(1)
    for i in range(players.count()):
        assert players.nth(i).locator("[aria-label$='cards in hand']").count() == 0
    assert players.locator(".revealed .card").count() > 0
    expect(watcher.get_by_role("region", name="Game over")).to_be_visible()
    assert failed == []
    assert_clean(page_log)
    page.context.close()
    watcher.context.close()


def test_a_refused_create_shows_each_fields_message_beside_it_never_json(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    failed = failed_requests(page)
    page.goto(f"{play_server.url}/play")
    page.get_by_label("Your name").fill("Jon")
    page.locator("form.create").get_by_label("Rules").select_option("standard")
    page.get_by_text("Options", exact=True).click()
    page.get_by_label("end", exact=True).select_option("rounds")  # and no number of rounds
    page.get_by_role("button", name="Create game").click()
    error = page.locator(".options .field-error")
    expect(error).to_have_text("rounds: end 'rounds' needs a number of rounds")
    expect(page.get_by_role("alert")).to_have_text(
        "Some of the choices are not valid: see the messages beside them."
    )
    assert re.search(r"[{}\[\]]", visible_text(page)) is None
    assert page.url.endswith("/play")  # still the lobby
    assert [f.split()[0] for f in failed] == ["422"]
    assert all("422" in message for message in page_log.console_errors)
    assert page_log.page_errors == [] and page_log.outside_requests() == []

    # Given a number of rounds, the same form creates the game.
    page.get_by_label("rounds", exact=True).fill("2")
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url(re.compile(r"/play/?#/games/[\w-]+$"))
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    page.context.close()


#: The game each language plays to its end: a preset from that language's rule text (its
#: target lowered so that the game takes a few rounds, not dozens); in Greek, elimination
#: with a re-engage decision taken by a click.
GAME_OF = {
    "is": ("traditional", {"target_score": 30}),
    "da": ("block", {"target_score": 30}),
    "sv": ("meld_first", {"target_score": 30}),
    "el": ("elimination", {}),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_whole_game_by_clicks_in_each_language(
    browser: Browser, page_log: PageLog, play_server: GunicornServer, lang: str, axe_source: str
) -> None:
    """The same person's clicks (the page read by its data attributes, not its words) play
    a game of `lang`'s rule text against greedy to the end; no English text on the table,
    in the rules panel, between rounds or at the end."""
    preset, options = GAME_OF[lang]
    if preset == "elimination":
        # Ann is eliminated by the first round and re-engages: the decision in Greek.
        game_id, token = eliminated_at_once(play_server, options)
    else:
        created = create_game(
            play_server,
            {"preset": preset, "seats": [{"name": "Ann"}, {"bot": "greedy"}], "options": options},
        )
        game_id, token = created["id"], created["seats"][0]["token"]
    page = open_seat_page(browser, play_server, game_id, token, lang)
    failed = failed_requests(page)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.locator(".how-to-play summary").click()
    expect(page.locator(".how-to-play li").first).to_be_visible()
    if preset == "elimination":
        decision = page.locator(".reengage")
        expect(decision.locator("button[data-action=reengage]")).to_be_enabled()
        assert english_left(page, lang) == []
        assert_accessible(page, axe_source)
        decision.locator("button[data-action=reengage]").click()
        expect(decision).to_have_count(0)
    me = TablePlayer(page)
    expect(page.locator(".hand-cards .card")).not_to_have_count(0)
    play_until([me], me.game_over, turns=3)
    if not me.game_over():
        assert english_left(page, lang) == []
    play_until([me], me.game_over)
    over = page.locator(".game-over")
    expect(over).to_be_visible()
    expect(over.locator("table.scores tbody tr")).to_have_count(3 if preset == "elimination" else 2)
    if preset != "elimination":  # (a re-engage sets a total; elsewhere the rounds add up)
        sheet = page.locator(".score-sheet")
        sheet.locator("summary").click()
        rows = [
            sheet.locator("tbody tr").nth(i).locator("td").all_inner_texts()
            for i in range(sheet.locator("tbody tr").count())
        ]
        *rounds, totals = ([int(cell) for cell in row[1:]] for row in rows)
        assert [int(row[0]) for row in rows[:-1]] == list(range(1, len(rounds) + 1))
        assert [sum(column) for column in zip(*rounds, strict=True)] == totals
        assert max(totals) >= 30  # the lowered target was reached
    assert english_left(page, lang) == []
    assert_accessible(page, axe_source)
    save_screenshot(page, f"play-game-over-{lang}-1280x800")
    assert failed == []
    assert_clean(page_log)
    page.context.close()


def test_your_games_say_the_preset_players_and_state_and_forget_a_game_gone(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    created = create_game(
        play_server, {"preset": "express", "seats": [{"name": "Kim"}, {"bot": "greedy"}]}
    )
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    seat = json.dumps({"token": created["seats"][0]["token"], "seat": 0})
    page.evaluate(
        "([key, seat]) => { localStorage.setItem(key, seat);"
        " localStorage.setItem('rummy.seat.no-such-game', seat); }",
        [f"rummy.seat.{created['id']}", seat],
    )
    page.reload()
    mine = page.get_by_role("region", name="Your games")
    expect(mine.locator("li")).to_have_count(1)  # the game the service no longer has is gone
    expect(mine.locator("li")).to_have_text(
        re.compile(
            r"^Express You and Bot \(greedy\) · being played, round 1"
            r" · last move (now|\d+ seconds? ago|1 minute ago)$"
        )
    )
    assert page.evaluate("localStorage.getItem('rummy.seat.no-such-game')") is None
    mine.get_by_role("link", name="Express").click()
    expect(page.get_by_role("region", name="Your hand")).to_be_visible()
    # The only console noise is Chromium's note of the 404 that told the game was gone.
    assert page_log.console_errors and all("404" in m for m in page_log.console_errors)
    assert page_log.page_errors == [] and page_log.outside_requests() == []
    page.context.close()


#: Records each move the page shows as the last one ([seq, seat]), as it changes.
RECORD_LAST_MOVES = """() => {
    window.lastMoves = [];
    const note = () => {
        const shown = document.querySelector('.last-move');
        if (shown === null) return;
        const seq = Number(shown.dataset.seq);
        const last = window.lastMoves[window.lastMoves.length - 1];
        if (last === undefined || last[0] !== seq) {
            window.lastMoves.push([seq, Number(shown.dataset.seat)]);
        }
    };
    note();
    new MutationObserver(note).observe(document.body,
        {subtree: true, childList: true, attributes: true, attributeFilter: ['data-seq']});
}"""


def a_bots_turn_as_seen(page: Any, me: TablePlayer) -> list[int]:
    """Ann's turn by clicks, then the events of the bot's (seat 1) turn in the order the
    page showed them as its last move."""
    page.wait_for_function("() => document.querySelector('.hand .status')?.dataset.turn === 'draw'")
    page.evaluate(RECORD_LAST_MOVES)
    me.draw_from_stock()
    me.finish_turn()
    page.wait_for_function(
        "() => (document.querySelector('.hand .status')?.dataset.turn === 'draw'"
        "       && document.querySelector('.last-move button') === null)"
        " || document.querySelector('.game-over') !== null"
    )
    seen = page.evaluate("() => window.lastMoves")
    ann_moved = next(i for i, (_seq, seat) in enumerate(seen) if seat == 0)
    return [seq for seq, seat in seen[ann_moved:] if seat == 1]


def test_a_bots_turn_is_shown_move_by_move_and_the_page_says_whose_turn_and_what_was_drawn(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    """The bot's draw and discard (in one batch from the service) are shown one after the
    other as the last move, highlighted; the card Ann drew is marked; the tab says her turn."""
    created = create_game(
        play_server, {"preset": "express", "seats": [{"name": "Ann"}, {"bot": "greedy"}]}
    )
    page = open_seat_page(browser, play_server, created["id"], created["seats"][0]["token"])
    me = TablePlayer(page)
    expect(page.locator(".hand .status")).to_have_attribute("data-turn", "draw")
    expect(page).to_have_title("Your turn · Rummy")
    before = me.cards()
    me.draw_from_stock()
    drawn = page.locator(".hand-cards .card.drawn")
    expect(drawn).to_have_count(1)
    assert sorted([*before, drawn.get_attribute("data-card") or ""]) == sorted(me.cards())
    expect(drawn).to_have_attribute("aria-label", re.compile(r", just drawn\)$"))
    me.finish_turn()
    expect(page.locator(".hand-cards .card.drawn")).to_have_count(0)  # until the next move
    page.wait_for_function("() => document.querySelector('.hand .status')?.dataset.turn === 'draw'")

    bot_moves = a_bots_turn_as_seen(page, me)
    if not me.game_over():
        assert len(bot_moves) >= 2, bot_moves  # changed at least twice within the bot's turn
        assert bot_moves == sorted(bot_moves)
        last = page.locator(".log li.last")
        expect(last).to_have_count(1)
        expect(page.locator(".player.acting")).to_have_count(1)
    assert_clean(page_log)
    page.context.close()

    # Under reduced motion the bot's turn shows at once: only its last move is seen.
    created = create_game(
        play_server, {"preset": "express", "seats": [{"name": "Ann"}, {"bot": "greedy"}]}
    )
    page = open_seat_page(
        browser, play_server, created["id"], created["seats"][0]["token"], reduced_motion="reduce"
    )
    me = TablePlayer(page)
    bot_moves = a_bots_turn_as_seen(page, me)
    if not me.game_over():
        assert len(bot_moves) == 1, bot_moves
    page.context.close()


def test_many_melds_show_the_largest_first_the_rest_folded_and_the_selection_leads(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    """A 14-card `romme` hand with two jokers can make dozens of melds: six show, the largest
    first, the rest under "+N more", each joker with the card it stands for; a selected
    card brings the melds holding it first."""
    from tests.api.test_rulings_over_http import deck_of

    ann = ["JK", "JK", "H5", "H6", "H7", "H8", "S9", "D9", "C9", "S3", "D3", "C3", "DK"]
    created = create_game(
        play_server,
        {
            "preset": "romme",
            "seats": [{"name": "Ann"}, {"bot": "greedy"}],
            "deck": deck_of([ann, ROMME_HANDS[1]], ["HQ"], decks=2, jokers=6),
            "first_dealer": 1,
        },
    )
    game_id, token = created["id"], created["seats"][0]["token"]
    request = urllib.request.Request(
        f"{play_server.url}/games/{game_id}/legal-moves",
        headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request) as answer:
        melds = [m["cards"] for m in json.loads(answer.read())["moves"] if m["type"] == "meld"]
    assert len(melds) > 12
    page = open_seat_page(browser, play_server, game_id, token)  # first to play: 14 cards
    expect(page.locator(".hand-cards .card")).to_have_count(14)
    box = page.locator(".suggestions").filter(has=page.locator(".meld-suggestion"))
    shown = box.locator(":scope > .meld-suggestion")
    expect(shown).to_have_count(6)
    sizes = [len(text.split()) for text in shown.all_inner_texts()]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == max(len(m) for m in melds)
    more = box.locator(".more-suggestions")
    expect(more.locator("summary")).to_have_text(re.compile(r"^\+\d+ more$"))
    more.locator("summary").click()
    expect(box.locator(".meld-suggestion")).to_have_count(len(set(map(tuple, melds))))
    # Each joker is shown with the card it stands for, as the service will lay it out.
    with_joker = box.locator(".meld-suggestion", has_text="Joker(")
    expect(with_joker.first).to_have_text(re.compile(r"(^| )Joker\((10|[2-9AJQK])[♣♦♥♠]\)( |$)"))
    expect(with_joker.first).to_have_attribute("aria-label", re.compile("joker standing for"))
    page.locator('.hand-cards .card[data-card="S9"]').click()
    expect(shown.first).to_contain_text("9♠")
    assert_clean(page_log)
    page.context.close()


def test_the_hand_is_arranged_by_dragging_or_by_keys_and_stays_so_after_a_reload(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    """Drag and drop moves a card; Shift+→ on a focused card and "Move left" on a
    selected one do the same by keyboard; the order outlives a reload; a sort undoes it."""
    created = create_game(
        play_server, {"preset": "express", "seats": [{"name": "Ann"}, {"bot": "greedy"}]}
    )
    page = open_seat_page(browser, play_server, created["id"], created["seats"][0]["token"])
    me = TablePlayer(page)
    expect(page.locator(".hand-cards .card")).not_to_have_count(0)
    start = me.cards()
    card = page.locator(".hand-cards .card")

    card.nth(0).drag_to(card.nth(3))
    dragged = [*start[1:4], start[0], *start[4:]]
    expect(card.nth(3)).to_have_attribute("data-card", start[0])
    assert me.cards() == dragged
    expect(page.get_by_role("button", name="rank", exact=True)).to_have_attribute(
        "aria-pressed", "false"
    )

    card.nth(1).focus()
    page.keyboard.press("Shift+ArrowRight")
    keyed = [dragged[0], dragged[2], dragged[1], *dragged[3:]]
    expect(card.nth(2)).to_have_attribute("data-card", dragged[1])
    assert me.cards() == keyed
    assert page.evaluate("() => document.activeElement.dataset.pos") == "2"  # focus follows
    page.keyboard.press("ArrowLeft")  # a plain arrow only moves the focus
    assert me.cards() == keyed

    card.nth(2).click()  # selected
    page.get_by_role("button", name="Move left").click()
    expect(card.nth(1)).to_have_attribute("data-card", keyed[2])
    arranged = [keyed[0], keyed[2], keyed[1], *keyed[3:]]
    assert me.cards() == arranged

    page.reload()
    expect(page.locator(".hand-cards .card")).to_have_count(len(start))
    assert me.cards() == arranged
    page.get_by_role("button", name="rank", exact=True).click()
    expect(page.get_by_role("button", name="rank", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    assert me.cards() == start  # the page opened sorted by rank
    assert_clean(page_log)
    page.context.close()


def test_the_hint_button_says_the_experts_move_and_selects_its_cards(
    browser: Browser, page_log: PageLog, play_server: GunicornServer, axe_source: str
) -> None:
    """On the seat's turn the Hint button answers in words and selects the move's cards;
    off the turn it says why it is off; a level of the expert is offered and named."""
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    expect(page.locator("form.create").get_by_label("Rules")).to_contain_text("Express")
    create_from_lobby(page, "Ann", ["expert:1"])
    expect(page.locator(".players")).to_contain_text("Expert bot, level 1: beginner")
    me = TablePlayer(page)
    play_until([me], lambda: me.is_my_turn() or me.game_over())
    hint = page.get_by_role("button", name="Hint", exact=True)
    expect(hint).to_be_enabled()
    if me.turn() == "draw":
        hint.click()
        # The expert draws from the stock, or takes a pile card that fits the hand.
        expect(page.locator(".hint-text")).to_contain_text(
            re.compile(r"Draw from the stock|from the discard pile")
        )
        me.draw_from_stock()
    hint.click()
    expect(page.locator(".hint-text")).to_contain_text(re.compile(r"Discard|Meld|Lay off|Swap"))
    assert me.selected() != []  # the move's cards are selected in the hand
    assert_accessible(page, axe_source)
    me.finish_turn()
    if not me.game_over() and not me.is_my_turn():
        expect(page.locator(".hint-why")).to_have_text(
            re.compile("Hints are for your turn|Hints are off")
        )
    assert_clean(page_log)
    page.context.close()

    # A game created with hints off says so beside the button.
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{play_server.url}/play")
    page.get_by_label("Your name").fill("Bo")
    page.locator("form.create").get_by_label("Rules").select_option("express")
    page.get_by_text("Options", exact=True).click()
    page.get_by_label("hints", exact=True).uncheck()
    page.get_by_label("Seat 2").select_option("greedy")
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url(re.compile(r"/play/?#/games/[\w-]+$"))
    expect(page.locator(".hint-why")).to_have_text("Hints are off in this game.")
    expect(page.get_by_role("button", name="Hint", exact=True)).to_be_disabled()


def test_how_to_play_says_the_presets_rules_in_the_pages_language(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    """The table's "How to play this preset" gives romme's rules from its options (the
    first-meld minimum, the jokers, the two decks), in English and, switched, in Icelandic;
    the create form's panel follows the chosen preset."""
    page, _ = romme_after_a_nine_point_meld(browser, play_server)
    failed = failed_requests(page)
    panel = page.locator(".how-to-play")
    expect(panel.locator("li").first).to_be_hidden()  # folded until asked for
    panel.locator("summary").click()
    expect(panel.locator("summary")).to_have_text("How to play this preset")
    for sentence in [
        "Two decks of 52 cards shuffled together.",
        "6 jokers are added; a joker stands in a meld for any card.",
        "Each player is dealt 13 cards.",
        "Your first melds of a round, in one turn, must make at least 40 points;"
        " no lay-off before.",
        "A meld never holds more jokers than natural cards.",
        "A joker left in a hand counts 20 points.",
    ]:
        expect(panel.get_by_text(sentence, exact=True)).to_be_visible()
    page.get_by_label("Language").select_option("is")
    page.locator(".how-to-play summary").click()
    expect(page.locator(".how-to-play summary")).to_have_text("Svona er þetta afbrigði spilað")
    expect(page.locator(".how-to-play")).to_contain_text(
        "Fyrsta niðurlögn þín í umferð, í einum leik, verður að ná 40 stigum"
    )
    page.get_by_label("Tungumál").select_option("en")

    page.goto(f"{play_server.url}/play")
    page.locator("form.create").get_by_label("Rules").select_option("elimination")
    form_panel = page.locator("form.create .how-to-play")
    form_panel.locator("summary").click()
    expect(form_panel).to_contain_text(
        "A player whose total reaches 100 points is eliminated; the last player left wins."
    )
    expect(form_panel).to_contain_text("An eliminated player may re-engage once")
    assert failed == []
    assert_clean(page_log)
    page.context.close()


#: WebAudio replaced by a counter of the notes the page starts (headless Chromium has
#: no speaker to listen to).
FAKE_AUDIO = """
window.__notes = 0;
window.AudioContext = class {
    constructor() { this.currentTime = 0; this.destination = {}; this.state = 'running'; }
    createOscillator() {
        return { type: '', frequency: { setValueAtTime() {} }, connect: (next) => next,
                 start() { window.__notes += 1; }, stop() {} };
    }
    createGain() {
        return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} },
                 connect: (next) => next };
    }
    resume() { return Promise.resolve(); }
};
"""


def test_the_turns_sound_is_off_until_chosen_then_sounds_when_the_turn_comes_back(
    browser: Browser, page_log: PageLog, play_server: GunicornServer
) -> None:
    created = create_game(
        play_server, {"preset": "express", "seats": [{"name": "Ann"}, {"bot": "greedy"}]}
    )
    page = open_seat_page(browser, play_server, created["id"], created["seats"][0]["token"])
    page.add_init_script(FAKE_AUDIO)
    page.reload()
    failed = failed_requests(page)
    sound = page.get_by_label("Sound when it is your turn")
    expect(sound).not_to_be_checked()
    me = TablePlayer(page)
    # Off: a turn that comes back makes no sound.
    play_until([me], me.game_over, turns=1)
    expect(page.locator(".hand .status[data-turn=draw]")).to_be_visible()  # mine again
    assert page.evaluate("window.__notes") == 0
    sound.check()
    page.reload()
    sound = page.get_by_label("Sound when it is your turn")
    expect(sound).to_be_checked()  # remembered
    assert page.evaluate("window.__notes") == 0  # the page opened on the turn: no sound
    play_until([me], me.game_over, turns=1)
    if not me.game_over():
        page.wait_for_function("() => window.__notes >= 2")  # the bot played; my turn: two notes
    assert failed == []
    assert_clean(page_log)
    page.context.close()
