"""A downloaded record is checked offline (`python -m service.bots.dealcheck verify
RECORD.json`): the genuine one passes, and each kind of tampering is caught by its
own check — a card swapped in a deal, a changed secret, a reordered move, a
changed score. The test vectors of docs/records.md are derived again here."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from service.bots import dealcheck
from service.bots.dealcheck import INCOMPLETE, MISMATCH, NOTHING_TO_CHECK, OK, derive_deal
from service.bots.recordcheck import verify_record
from service.config import TestConfig
from service.rules import engine, fairness
from service.rules.options import resolve_options
from tests.e2e.http import choose

ROOT = Path(__file__).resolve().parents[2]
Record = dict[str, Any]


def _play(seed: int) -> tuple[Record, Record]:
    """The whole record of a 4-seat `standard` game (two people with client seeds,
    two bots) played to its end, and seat 0's record of it."""
    from service.app import create_app, shutdown

    app = create_app(replace(TestConfig(), ACCESS_LOG=False))
    try:
        client = app.test_client()
        seats = [{"name": "Ann", "client_seed": "ann-1"}, {"name": "Bob", "client_seed": "b0b"}]
        body = client.post(
            "/games",
            json={
                "preset": "standard",
                "options": {"target_score": 60},
                "seats": [*seats, {"bot": "greedy"}, {"bot": "random"}],
            },
        ).json
        assert body is not None
        game, tokens = body["id"], [seat.get("token") for seat in body["seats"]]
        rng = random.Random(seed)
        for _ in range(20_000):
            view = client.get(f"/games/{game}").json
            assert view is not None
            if view["status"] == "finished":
                break
            seat = view["round"]["turn"] if view["round"] else None
            if seat is None or tokens[seat] is None:
                continue  # a bot's turn: the runner plays it
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            hand = client.get(f"/games/{game}", headers=auth).json["hand"]  # type: ignore[index]
            moves = client.get(f"/games/{game}/legal-moves", headers=auth).json["moves"]  # type: ignore[index]
            client.post(f"/games/{game}/moves", json=choose(moves, rng, hand), headers=auth)
        record = client.get(f"/games/{game}/record").json
        assert isinstance(record, dict) and record["status"] == "finished"
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        seat = client.get(f"/games/{game}/record", headers=auth).json
        assert isinstance(seat, dict) and seat["view"] == "seat"
        return record, seat
    finally:
        shutdown(app)


@pytest.fixture(scope="module")
def played() -> tuple[Record, Record]:
    for seed in range(10):  # deals are random: a game of two rounds or more
        records = _play(seed)
        if len(records[0]["rounds"]) >= 2:
            return records
    raise AssertionError("ten games of one round each")


@pytest.fixture(scope="module")
def genuine(played: tuple[Record, Record]) -> Record:
    return played[0]


@pytest.fixture
def record(genuine: Record) -> Iterator[Record]:
    yield copy.deepcopy(genuine)


def _status(record: Record) -> tuple[int, list[str]]:
    report = verify_record(record)
    return dealcheck.exit_status(report), report.mismatches


def test_the_genuine_record_passes_every_check(record: Record) -> None:
    assert record["verified"] is True and record["seats"][0]["client_seed"] == "ann-1"
    status, mismatches = _status(record)
    assert (status, mismatches) == (OK, [])
    lines = verify_record(record).lines
    assert any("rules engine replays all" in line for line in lines)


def test_a_seats_record_of_the_finished_game_passes_without_the_engine(
    played: tuple[Record, Record],
) -> None:
    # What a seat knew: its own dealt hands are checked against the derived deals.
    seat = copy.deepcopy(played[1])
    assert seat["you"] == 0 and all(entry["deal"] is None for entry in seat["rounds"])
    report = verify_record(seat)
    assert dealcheck.exit_status(report) == OK, report.mismatches
    assert any("seat 0's dealt hand is the derived one" in line for line in report.lines)
    assert not any("rules engine replays" in line for line in report.lines)


def test_a_card_swapped_between_two_dealt_hands_is_caught(record: Record) -> None:
    hands = record["rounds"][0]["deal"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    status, mismatches = _status(record)
    assert status == MISMATCH
    assert any("the record's deal" in m for m in mismatches), mismatches
    # Swapped in the dealt hands the events show too: not the derived deal either.
    start = next(e for e in record["events"] if e["type"] == "round_started")
    start["hands"][0][0], start["hands"][1][0] = start["hands"][1][0], start["hands"][0][0]
    status, mismatches = _status(record)
    assert status == MISMATCH
    assert any("every hand dealt is the derived one" in m for m in mismatches), mismatches


def test_a_changed_round_secret_is_caught(record: Record) -> None:
    forged = bytes(range(32)).hex()
    record["rounds"][1]["secret"] = forged
    next(e for e in record["events"] if e["type"] == "round_ended" and e["number"] == 2)[
        "secret"
    ] = forged
    status, mismatches = _status(record)
    assert status == MISMATCH
    assert any("SHA-256(secret) is its deal_commitment" in m for m in mismatches), mismatches


def test_a_reordered_move_is_caught(record: Record) -> None:
    events = record["events"]
    # Two moves of different seats, one after the other: a discard and the next draw.
    i = next(
        i
        for i in range(1, len(events) - 1)
        if events[i]["type"] == "discarded"
        and events[i + 1]["type"] == "drew"
        and events[i + 1]["source"] == "stock"
    )
    events[i], events[i + 1] = events[i + 1], events[i]
    for seq, event in enumerate(events, 1):
        event["seq"] = seq  # renumbered, so the order itself looks whole
    status, mismatches = _status(record)
    assert status == MISMATCH
    assert any("the rules refuse it" in m or "rules engine" in m for m in mismatches), mismatches


def test_a_changed_score_is_caught(record: Record) -> None:
    ended = next(e for e in record["events"] if e["type"] == "round_ended")
    ended["scores"][0] += 10
    record["rounds"][0]["result"]["scores"][0] += 10
    status, mismatches = _status(record)
    assert status == MISMATCH
    assert any("totals before plus its points" in m for m in mismatches), mismatches


def test_changed_final_totals_are_caught(record: Record) -> None:
    record["scores"][1] -= 1
    status, mismatches = _status(record)
    assert status == MISMATCH
    assert any("final totals and winners" in m for m in mismatches), mismatches


def test_the_command_checks_a_record_file(
    record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert dealcheck.main(["verify", str(path)]) == OK
    assert "every check passed" in capsys.readouterr().out
    record["rounds"][0]["deal"]["stock"].reverse()
    path.write_text(json.dumps(record))
    assert dealcheck.main(["verify", str(path)]) == MISMATCH
    # The first events gone: the record cannot be verified.
    record["events"] = record["events"][5:]
    path.write_text(json.dumps(record))
    assert dealcheck.main(["verify", str(path)]) == INCOMPLETE
    path.write_text("not json")
    assert dealcheck.main(["verify", str(path)]) == NOTHING_TO_CHECK
    path.write_text(json.dumps({**record, "format": "rummy-record/2"}))
    assert dealcheck.main(["verify", str(path)]) == MISMATCH


def test_the_test_vectors_of_the_records_document() -> None:
    text = (ROOT / "docs/records.md").read_text()
    found = re.search(r"<!-- record-vectors:start -->\n```json\n(.*?)```", text, re.S)
    assert found is not None
    vectors = json.loads(found.group(1))
    secret = fairness.round_secret(
        bytes.fromhex(vectors["game_secret"]), 1, vectors["client_seeds"]
    )
    assert secret.hex() == vectors["round_secret"]
    dealer = fairness.first_dealer(secret, 2)
    assert dealer == vectors["dealer"]
    options = resolve_options(vectors["preset"], {}, 2)
    deal = derive_deal(options.to_json(), secret, dealer, [True, True], options.hand_size_for(2))
    assert deal["hands"] == vectors["hands"] and deal["upcard"] == vectors["upcard"]
    assert deal["stock"][:5] == vectors["stock_first_5"]
    assert len(deal["stock"]) == vectors["stock_size"]
    # The same deal as the engine deals it.
    open_seat = engine.SeatSpec(None, "human", None, None)
    state, _ = engine.new_game(options, vectors["preset"], [open_seat, open_seat])
    state = replace(state, game_secret=vectors["game_secret"])
    state, _ = engine.take_seat(state, 0, "A", None, vectors["client_seeds"][0])
    state, events = engine.take_seat(state, 1, "B", None, vectors["client_seeds"][1])
    start = next(e for e in events if e["type"] == "round_started")
    assert [sorted(h) for h in start["hands"]] == [sorted(h) for h in deal["hands"]]
    assert start["discard_pile"] == [deal["upcard"]] and start["dealer"] == dealer
