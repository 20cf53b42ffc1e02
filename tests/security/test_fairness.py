"""Commit-reveal deals (docs/fairness.md) as users meet them.

The document's test vectors hold for the service and for an independent
implementation written from the document (tests/security/independent.py); real
games over HTTP deal exactly what their revealed secrets give; the verify command
passes on real games and fails when an event's card or a secret is altered; no
secret shows before its round (or game) is over.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.bots.dealcheck import verify_game
from service.config import TestConfig
from service.rules import fairness
from service.rules.cards import build_deck
from service.rules.engine import round_secret
from service.rules.state import decode_state, encode_state
from tests.e2e.conftest import E2E_ENV
from tests.e2e.http import Client, choose
from tests.security import independent
from tests.support.gunicorn import GunicornServer

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fairness.md"


def doc_vectors() -> dict[str, Any]:
    """The JSON block between the vectors markers of docs/fairness.md."""
    text = DOC.read_text()
    block = text.split("<!-- vectors:start -->")[1].split("<!-- vectors:end -->")[0]
    found = re.search(r"```json\n(.*?)```", block, re.S)
    assert found, "docs/fairness.md has no vectors block"
    vectors: dict[str, Any] = json.loads(found.group(1))
    return vectors


def compute_vectors(impl: Any) -> dict[str, Any]:
    """The vectors as an implementation (the service's or the independent one) computes them."""
    game_secret = bytes(range(32))
    seeds = [None, "xyz"]
    secret = impl.round_secret(game_secret, 1, seeds)
    if impl is fairness:
        stream = fairness.DrawStream(secret, "deal")
        deal_words = [stream.word() for _ in range(10)]
        one_deck = fairness.shuffled(build_deck(1, 0), secret, "deal")
        big = fairness.shuffled(build_deck(2, 4), secret, "deal")
        dealer = fairness.first_dealer(secret, 4)
    else:
        words = independent.words(secret, "deal")
        deal_words = [next(words) for _ in range(10)]
        one_deck = independent.shuffle(independent.fresh_deck(1, 0), secret, "deal")
        big = independent.shuffle(independent.fresh_deck(2, 4), secret, "deal")
        dealer = independent.first_dealer(secret, 4)
    clubs = [c for c in independent.fresh_deck(1, 0) if c[0] == "C"]
    return {
        "game_secret": game_secret.hex(),
        "game_commitment": hashlib.sha256(game_secret).hexdigest(),
        "client_seeds": seeds,
        "round": 1,
        "round_message": "round/1//xyz",
        "round_secret": secret.hex(),
        "deal_commitment": hashlib.sha256(secret).hexdigest(),
        "deal_words": deal_words,
        "first_dealer_of_4_seats": dealer,
        "deal_one_deck": one_deck,
        "deal_two_decks_four_jokers_first_20": big[:20],
        "refill_1_of_the_clubs": (
            fairness.shuffled(clubs, secret, "refill/1")
            if impl is fairness
            else independent.shuffle(clubs, secret, "refill/1")
        ),
    }


def test_the_documented_vectors_hold_for_the_service_and_an_independent_implementation() -> None:
    documented = doc_vectors()
    assert fairness.round_message(1, [None, "xyz"]).decode() == documented["round_message"]
    assert compute_vectors(fairness) == documented
    assert compute_vectors(independent) == documented


def test_the_verify_command_needs_only_the_standard_library() -> None:
    code = (
        "import sys; before = set(sys.modules); import service.bots.dealcheck; "
        "print('\\n'.join(sorted({m.split('.')[0] for m in set(sys.modules) - before})))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert "service" in loaded
    outside = [m for m in loaded if m not in sys.stdlib_module_names and m != "service"]
    assert outside == []


@pytest.fixture
def client(make_app: Callable[..., Flask]) -> FlaskClient:
    return make_app().test_client()


def test_a_random_game_keeps_its_secrets_in_the_stored_state(client: FlaskClient) -> None:
    app = client.application
    body = client.post(
        "/games", json={"seats": [{"name": "Ann", "client_seed": "ann-1"}, {"bot": "greedy"}]}
    ).json
    assert body is not None
    store = app.extensions["rummy.store"]
    state = decode_state(store.load(body["id"]).state)
    assert state.deal == "random" and state.game_secret is not None
    assert len(bytes.fromhex(state.game_secret)) == 32
    assert state.seats[0].client_seed == "ann-1"
    assert decode_state(encode_state(state)) == state


def _all_text(client: FlaskClient, game: str, token: str) -> str:
    """Everything a seat and a spectator can read of a game, headers included."""
    parts = []
    for auth in ({}, {"Authorization": f"Bearer {token}"}):
        for path in (
            f"/games/{game}",
            f"/games/{game}/events?after=0",
            f"/games/{game}/legal-moves",
        ):
            answer = client.get(path, headers=auth)
            parts.append(answer.get_data(as_text=True))
            parts.append(str(dict(answer.headers)))
        # An error answer too: a move that cannot be made.
        refused = client.post(
            f"/games/{game}/moves", json={"type": "swap_joker", "meld": 9999, "card": "HK"},
            headers=auth,
        )  # fmt: skip
        assert refused.status_code >= 400
        parts.append(refused.get_data(as_text=True))
        parts.append(str(dict(refused.headers)))
    return "\n".join(parts)


@pytest.mark.slow  # a whole game, every view and endpoint read after each move
def test_no_secret_shows_before_its_round_or_game_ends_and_each_shows_after(
    client: FlaskClient,
) -> None:
    store = client.application.extensions["rummy.store"]
    body = client.post(
        "/games",
        json={
            "preset": "standard",
            "options": {"target_score": 50},
            "seats": [{"name": "Ann"}, {"bot": "greedy"}],
        },
    ).json
    assert body is not None
    game, token = body["id"], body["seats"][0]["token"]
    rng = random.Random(3)
    revealed: set[int] = set()
    for _ in range(3000):
        state = decode_state(store.load(game).state)
        text = _all_text(client, game, token)
        assert state.game_secret is not None
        if state.status != "finished":
            assert state.game_secret not in text
        else:
            assert state.game_secret in text
        if state.round is not None:
            current = round_secret(state, state.round.number)
            assert current is not None
            assert current.hex() not in text
            assert fairness.commitment(current) in text
        for rec in state.rounds:
            past = round_secret(state, rec.number)
            assert past is not None and past.hex() in text
            revealed.add(rec.number)
        if state.status == "finished":
            break
        legal = client.get(
            f"/games/{game}/legal-moves", headers={"Authorization": f"Bearer {token}"}
        ).json
        assert legal is not None
        hand = client.get(f"/games/{game}", headers={"Authorization": f"Bearer {token}"}).json[
            "hand"
        ]  # type: ignore[index]
        move = choose(legal["moves"], rng, hand)
        answer = client.post(
            f"/games/{game}/moves", json=move, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 200, answer.json
    assert state.status == "finished" and revealed


def swap_a_discard(view: dict[str, Any], events: list[dict[str, Any]]) -> None:
    event = next(x for x in events if x["type"] == "discarded")
    event["card"] = "HK" if event["card"] != "HK" else "SK"


def other_round_secret(view: dict[str, Any], events: list[dict[str, Any]]) -> None:
    view["rounds"][0]["secret"] = "00" * 32


def other_game_secret(view: dict[str, Any], events: list[dict[str, Any]]) -> None:
    view["game_secret"] = "11" * 32


def other_up_card(view: dict[str, Any], events: list[dict[str, Any]]) -> None:
    event = next(x for x in events if x["type"] == "round_started")
    event["discard_pile"] = ["JK"]


def other_stock_card(view: dict[str, Any], events: list[dict[str, Any]]) -> None:
    event = next(
        x for x in events if x["type"] == "drew" and "card" in x and x["source"] == "stock"
    )
    event["card"] = "HK" if event["card"] != "HK" else "SK"


def other_dealer(view: dict[str, Any], events: list[dict[str, Any]]) -> None:
    event = [x for x in events if x["type"] == "round_started"][-1]
    event["dealer"] = (event["dealer"] + 1) % len(view["seats"])


TAMPERINGS = [
    other_dealer,
    swap_a_discard,
    other_round_secret,
    other_game_secret,
    other_up_card,
    other_stock_card,
]


def test_verify_replays_a_finished_game_and_finds_any_altered_card_or_secret(
    make_app: Callable[..., Flask],
) -> None:
    config = replace(TestConfig(), MAX_EVENTS=100_000)
    client = make_app(config).test_client()
    seats = [{"name": "Ann", "client_seed": "ann"}, {"bot": "greedy"}]
    body = client.post(
        "/games", json={"preset": "standard", "options": {"target_score": 40}, "seats": seats}
    ).json
    assert body is not None
    game, token = body["id"], body["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    rng = random.Random(5)
    for _ in range(3000):
        view = client.get(f"/games/{game}", headers=auth).json
        assert view is not None
        if view["status"] == "finished":
            break
        legal = client.get(f"/games/{game}/legal-moves", headers=auth).json
        assert legal is not None
        move = choose(legal["moves"], rng, view["hand"])
        assert client.post(f"/games/{game}/moves", json=move, headers=auth).status_code == 200
    assert view["status"] == "finished" and len(view["rounds"]) >= 1
    events = client.get(f"/games/{game}/events?after=0", headers=auth).json["events"]  # type: ignore[index]
    report = verify_game(view, events)
    assert report.mismatches == []
    replayed = [line for line in report.lines if "every move replays" in line]
    assert len(replayed) == len(view["rounds"])
    assert any("dealt hand is the derived one" in line for line in report.lines)
    dealers = [line for line in report.lines if "the dealer is the one the rules give" in line]
    assert len(dealers) == len(view["rounds"])
    assert any("game secret and the client seeds" in line for line in report.lines)
    for tamper in TAMPERINGS:
        altered_view, altered_events = json.loads(json.dumps(view)), json.loads(json.dumps(events))
        tamper(altered_view, altered_events)
        assert verify_game(altered_view, altered_events).mismatches, tamper.__name__


# --- over HTTP --------------------------------------------------------------------------

VERIFY_ENV = {**E2E_ENV, "MAX_EVENTS": "100000"}


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[GunicornServer]:
    """gunicorn on the session's Redis, keeping every event of a game."""
    env = {**VERIFY_ENV, "STORE_URL": redis_url, "STORE_PREFIX": f"fair{random.randrange(10**9)}"}
    with GunicornServer(env, workers=2) as running:
        yield running


def play(client: Client, body: dict[str, Any], rounds: int | None, seed: int) -> tuple[str, str]:
    """Create a game with one person (seat 0) and bots; the person plays until
    `rounds` rounds are over (`None`: to the end). Returns (game id, token)."""
    created = client.post("/games", body)
    assert created.status == 201, created
    game, token = created.json["id"], created.json["seats"][0]["token"]
    rng = random.Random(seed)
    for _ in range(5000):
        view = client.get(f"/games/{game}", token).json
        if view["status"] == "finished" or (rounds is not None and len(view["rounds"]) >= rounds):
            return game, token
        legal = client.get(f"/games/{game}/legal-moves", token).json["moves"]
        # Now and then any listed move: two fixed policies with a stock turned over
        # unshuffled (`straight`) can pass the same cards round for ever.
        move = rng.choice(legal) if rng.random() < 0.1 else choose(legal, rng, view["hand"])
        answer = client.post(f"/games/{game}/moves", move, token)
        assert answer.status == 200, answer
    raise AssertionError("the game did not get far enough")


def events_of(client: Client, game: str, token: str | None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = client.get(f"/games/{game}/events?after=0", token).json["events"]
    return events


def verify(url: str, *extra: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``verify`` on `url`, with `token` (if any) in ``RUMMY_TOKEN``."""
    env = {name: value for name, value in os.environ.items() if name != "RUMMY_TOKEN"}
    if token is not None:
        env["RUMMY_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "service.bots.dealcheck", "verify", url, *extra],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env=env,
    )  # fmt: skip


class _Tampered:
    """A local HTTP server answering a game's view and events, as altered by the test."""

    def __init__(self, view: dict[str, Any], events: list[dict[str, Any]]) -> None:
        self.view, self.events = view, events
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if "/events" in self.path:
                    after = int(self.path.split("after=")[1])
                    shown = [e for e in outer.events if e["seq"] > after]
                    body = {"events": shown, "last": shown[-1]["seq"] if shown else after}
                else:
                    body = outer.view
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/games/g"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.slow
def test_verify_passes_on_real_games_and_fails_on_an_altered_card_or_secret(
    server: GunicornServer,
) -> None:
    client = Client(server.url)
    games = []
    for number, (preset, seats) in enumerate(
        [
            ("express", [{"name": "Ann", "client_seed": "a1"}, {"bot": "greedy"}]),
            ("standard", [{"name": "Ann"}, {"bot": "greedy"}, {"bot": "random"}]),
        ]
    ):
        body = {"preset": preset, "options": {"target_score": 60}, "seats": seats}
        games.append(play(client, body, None, number))
    for game, token in games:
        url = f"{server.url}/games/{game}"
        for seat_token in (None, token):
            done = verify(url, token=seat_token)
            assert done.returncode == 0, done.stdout + done.stderr
            assert "MISMATCH" not in done.stdout
            assert re.search(r"ok .*round 1: every move replays", done.stdout), done.stdout
    game, token = games[1]
    view = client.get(f"/games/{game}").json
    events = events_of(client, game, None)

    def altered(change: Any) -> subprocess.CompletedProcess[str]:
        v, e = json.loads(json.dumps(view)), json.loads(json.dumps(events))
        change(v, e)
        tampered = _Tampered(v, e)
        try:
            return verify(tampered.url)
        finally:
            tampered.close()

    untouched = altered(lambda v, e: None)
    assert untouched.returncode == 0, untouched.stdout
    for change in (swap_a_discard, other_round_secret):
        done = altered(change)
        assert done.returncode == 1, (change.__name__, done.stdout)
        assert "MISMATCH" in done.stdout
    seeded = client.post("/games", {"seats": [{"name": "A"}, {"bot": "greedy"}], "seed": 3}).json
    done = verify(f"{server.url}/games/{seeded['id']}")
    assert done.returncode == 2 and "seeded" in done.stdout
    client.close()


def _independent_check(view: dict[str, Any], events: list[dict[str, Any]]) -> int:
    """Re-derive round 1 from its revealed secret with the independent implementation:
    the commitment, the first dealer, the person's dealt hand, the up-card and every
    card the person drew from the stock. Returns the number of stock draws checked."""
    options = view["options"]
    first = view["rounds"][0]
    secret = bytes.fromhex(first["secret"])
    start = next(e for e in events if e["type"] == "round_started" and e["number"] == 1)
    assert independent.sha256_hex(secret) == start["deal_commitment"] == first["deal_commitment"]
    seats = len(view["seats"])
    assert start["dealer"] == independent.first_dealer(secret, seats)
    sizes = start["hand_sizes"]
    extra = 1 if options["first_turn_no_draw"] else 0
    size = (sum(sizes) - extra) // seats
    hands, discard, stock = independent.deal(
        secret, options["decks"], options["jokers"], start["dealer"], [True] * seats, size,
        options["first_turn_no_draw"],
    )  # fmt: skip
    assert sorted(start["hand"]) == sorted(hands[0])
    assert start["discard_pile"] == discard
    assert start["stock_size"] == len(stock)
    checked = 0
    for event in events[events.index(start) + 1 :]:
        kind = event["type"]
        if kind == "round_ended":
            break
        if kind == "drew" and event["source"] == "stock":
            card = stock.pop(0)
            if event["seat"] == 0:
                assert event["card"] == card
                checked += 1
        elif kind == "drew":
            discard.pop()
        elif kind == "discarded":
            discard.append(event["card"])
        elif kind == "stock_refilled":
            keep = options["refill_keeps_top"] and discard
            pile, discard = (discard[:-1], discard[-1:]) if keep else (discard, [])
            if options["stock_refill"] == "shuffle":
                stock = independent.shuffle(pile, secret, f"refill/{event['refills']}")
            else:
                stock = list(pile)
            assert event["stock_size"] == len(stock)
    return checked


@pytest.mark.slow
def test_an_independent_implementation_rederives_the_deals_of_100_games_over_http(
    server: GunicornServer,
) -> None:
    client = Client(server.url)
    presets = ["standard", "express", "romme", "straight", "block"]
    drawn = 0
    for number in range(100):
        rng = random.Random(number)
        seats: list[dict[str, Any]] = [{"name": "P", "client_seed": f"s{number}"}]
        seats += [{"bot": "greedy"} for _ in range(rng.randint(1, 3))]
        body = {"preset": presets[number % len(presets)], "seats": seats}
        game, token = play(client, body, 1, number)
        view = client.get(f"/games/{game}", token).json
        drawn += _independent_check(view, events_of(client, game, token))
    assert drawn > 100  # the person's stock draws were checked card by card
    client.close()


def _chi2_cdf(x: float, dof: int) -> float:
    """P(X <= x) for a chi-square variable: the regularized lower incomplete gamma
    function P(dof / 2, x / 2), by its power series."""
    a, half = dof / 2, x / 2
    term = total = 1.0 / a
    n = 1
    while term > total * 1e-17:
        term *= half / (a + n)
        total += term
        n += 1
    return math.exp(a * math.log(half) - half - math.lgamma(a)) * total


def _chi2_critical(level: float, dof: int) -> float:
    """The value a chi-square statistic exceeds with probability `level` (bisection)."""
    low, high = 0.0, 20.0 * dof
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if _chi2_cdf(middle, dof) < 1 - level else (low, middle)
    return (low + high) / 2


def test_the_chi_square_critical_value_is_the_tabulated_one() -> None:
    # Tables give 10.828 for 1 degree of freedom and 86.661 for 50 at the 0.001 level.
    assert abs(_chi2_critical(0.001, 1) - 10.828) < 0.001
    assert abs(_chi2_critical(0.001, 50) - 86.661) < 0.001


@pytest.mark.slow
def test_every_card_is_equally_likely_at_every_position_over_100000_deals() -> None:
    deck = build_deck(1, 0)
    index = {card: i for i, card in enumerate(deck)}
    deals = 100_000
    counts = [[0] * len(deck) for _ in deck]
    for number in range(deals):
        secret = hashlib.sha256(f"chi-square/{number}".encode()).digest()
        for position, card in enumerate(fairness.shuffled(deck, secret, fairness.DEAL_LABEL)):
            counts[index[card]][position] += 1
    expected = deals / len(deck)
    critical = _chi2_critical(0.001, len(deck) - 1)
    statistics = {
        deck[i]: sum((seen - expected) ** 2 / expected for seen in row)
        for i, row in enumerate(counts)
    }
    failing = {card: round(value, 1) for card, value in statistics.items() if value >= critical}
    assert failing == {}, f"critical value {critical:.1f}"
