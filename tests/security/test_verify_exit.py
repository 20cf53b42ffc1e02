"""`verify` fails unless it checked what it was asked to: every event of a game is kept
for its life (up to `MAX_EVENTS`), a round it could not replay exits 3, and secrets
and commitments forged together after the end are caught against the ones made first."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask

from service.bots import dealcheck
from service.bots.dealcheck import INCOMPLETE, MISMATCH, OK, exit_status, verify_game
from service.config import TestConfig
from service.rules import fairness
from service.store.base import DEFAULT_MAX_EVENTS
from tests.e2e.http import choose

Game = tuple[dict[str, Any], list[dict[str, Any]]]


def finished_game(app: Flask, seed: int = 3) -> Game:
    """A 4-seat `standard` game (three people played by the test, one bot) to its end,
    with the public view and every event the service answers."""
    client = app.test_client()
    seats = [{"name": f"P{i}", "client_seed": f"s{i}"} for i in range(3)] + [{"bot": "greedy"}]
    body = client.post(
        "/games", json={"preset": "standard", "options": {"target_score": 60}, "seats": seats}
    ).json
    assert body is not None
    game = body["id"]
    tokens = [seat.get("token") for seat in body["seats"]]
    rng = random.Random(seed)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        view = client.get(f"/games/{game}").json
        assert view is not None
        if view["status"] == "finished":
            break
        seat = view["round"]["turn"]
        if tokens[seat] is None:
            time.sleep(0.01)  # the bot's turn: the runner's thread plays it
            continue
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = client.get(f"/games/{game}", headers=auth).json
        moves = client.get(f"/games/{game}/legal-moves", headers=auth).json["moves"]  # type: ignore[index]
        move = rng.choice(moves) if rng.random() < 0.1 else choose(moves, rng, mine["hand"])  # type: ignore[index]
        client.post(f"/games/{game}/moves", json=move, headers=auth)
    assert view["status"] == "finished"
    events = client.get(f"/games/{game}/events?after=0").json["events"]  # type: ignore[index]
    return view, events


@pytest.fixture(scope="module")
def whole_game() -> Game:
    from service.app import create_app, shutdown

    app = create_app(replace(TestConfig(), ACCESS_LOG=False))
    try:
        for seed in range(10):  # the deals are random: a game of two rounds or more
            game = finished_game(app, seed)
            if len(game[0]["rounds"]) >= 2:
                return game
        raise AssertionError("ten games of one round each")
    finally:
        shutdown(app)


def copied(game: Game) -> Game:
    view, events = json.loads(json.dumps(game))
    return view, events


def forge_secrets(view: dict[str, Any], events: list[dict[str, Any]], *, in_events: bool) -> None:
    """Another game secret, its commitment and every round secret and commitment
    derived from it, all agreeing with each other; in the events too if asked."""
    forged = bytes(range(100, 132))
    seeds = [seat.get("client_seed") for seat in view["seats"]]
    view["game_secret"] = forged.hex()
    view["game_commitment"] = hashlib.sha256(forged).hexdigest()
    secrets = {}
    for rec in view["rounds"]:
        secret = fairness.round_secret(forged, rec["number"], seeds)
        rec["secret"], rec["deal_commitment"] = secret.hex(), hashlib.sha256(secret).hexdigest()
        secrets[rec["number"]] = rec
    if in_events:
        for event in events:
            if event["type"] == "game_created":
                event["game_commitment"] = view["game_commitment"]
            elif event["type"] == "round_started":
                event["deal_commitment"] = secrets[event["number"]]["deal_commitment"]
            elif event["type"] in ("round_ended", "game_ended") and "secret" in event:
                event["secret"] = secrets[event["number"]]["secret"]


def test_the_default_bound_keeps_every_event_of_a_whole_game(whole_game: Game) -> None:
    view, events = whole_game
    assert DEFAULT_MAX_EVENTS == TestConfig().MAX_EVENTS == 5000
    assert [e["seq"] for e in events] == list(range(1, view["last_event"] + 1))
    assert events[0]["type"] == "game_created" and events[-1]["type"] == "game_ended"
    assert len(view["rounds"]) >= 2
    report = verify_game(view, events)
    assert exit_status(report) == OK, report.lines
    assert sum("every move replays" in line for line in report.lines) == len(view["rounds"])


def test_the_bound_holds_at_its_edge(make_app: Callable[..., Flask]) -> None:
    app = make_app(replace(TestConfig(), MAX_EVENTS=40, ACCESS_LOG=False))
    for seed in range(10):  # the deal is random: a game of more events than the bound
        view, events = finished_game(app, seed)
        if view["last_event"] > 40:
            break
    assert view["last_event"] > 40
    assert [e["seq"] for e in events] == list(
        range(view["last_event"] - 39, view["last_event"] + 1)
    )
    report = verify_game(view, events)
    assert exit_status(report) == INCOMPLETE
    assert any("round 1: its events are no longer kept" in m for m in report.missing)
    assert any("game_created is no longer kept" in m for m in report.missing)


def test_a_round_asked_for_whose_events_are_gone_exits_3(
    whole_game: Game, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    view, events = copied(whole_game)
    second = next(e["seq"] for e in events if e["type"] == "round_started" and e["number"] == 2)
    kept = [e for e in events if e["seq"] >= second]  # round 1 and game_created are gone
    monkeypatch.setattr(dealcheck, "fetch_game", lambda url, token=None: (view, kept))
    assert dealcheck.main(["verify", "http://x/games/g", "--round", "2"]) == INCOMPLETE
    assert "game_created is no longer kept" in capsys.readouterr().out
    assert dealcheck.main(["verify", "http://x/games/g", "--round", "1"]) == INCOMPLETE
    out = capsys.readouterr().out
    assert "UNCHECKED round 1: its events are no longer kept" in out
    assert "not verified" in out and "every check passed" not in out
    assert dealcheck.main(["verify", "http://x/games/g", "--round", "99"]) == INCOMPLETE
    assert "round 99: it has not ended" in capsys.readouterr().out
    monkeypatch.setattr(dealcheck, "fetch_game", lambda url, token=None: whole_game)
    assert dealcheck.main(["verify", "http://x/games/g", "--round", "1"]) == OK
    assert dealcheck.main(["verify", "http://x/games/g"]) == OK


def test_a_forged_game_secret_and_commitments_in_the_view_are_caught(whole_game: Game) -> None:
    view, events = copied(whole_game)
    forge_secrets(view, events, in_events=False)
    report = verify_game(view, events)
    assert exit_status(report) == MISMATCH
    assert "game_created carries the view's game_commitment" in report.mismatches


def test_forged_secrets_without_the_first_commitments_are_not_passed(whole_game: Game) -> None:
    view, events = copied(whole_game)
    forge_secrets(view, events, in_events=False)
    last_round = max(e["number"] for e in events if e["type"] == "round_started")
    start = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "round_started" and e["number"] == last_round
    )
    report = verify_game(view, events[start:])
    assert exit_status(report) != OK  # it was: every check passed, exit 0


def test_forged_secrets_and_commitments_everywhere_fail_the_replay(whole_game: Game) -> None:
    view, events = copied(whole_game)
    forge_secrets(view, events, in_events=True)
    report = verify_game(view, events)
    assert exit_status(report) == MISMATCH
    assert any("derived deal" in m or "replay" in m for m in report.mismatches), report.mismatches
