"""`GET /games/{id}/record`: a seat's record, the public one, the whole one after the
end; its ETag and Cache-Control; the transcript and the events one a line; the
record's JSON Schema and docs table derived from its one description."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import jsonschema
import orjson
import pytest
from flask import Flask

from service.api import records
from service.api.access import STORE_EXTENSION
from service.bots import recordcheck
from service.bots.dealcheck import OK, exit_status
from service.rules.state import decode_state
from tests.api.helpers import ANN_HAND, DRAW, Api, bearer
from tests.robustness.cards import assert_record_hides_what_it_must
from tests.support.records import finished_game, record

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests/api/golden/walkthrough.record.txt"


def _validate(body: dict[str, object]) -> None:
    schema = json.loads((ROOT / "openapi/record.schema.json").read_text())
    jsonschema.validate(body, schema)


def test_the_whole_record_of_a_finished_game_is_verified_and_validates(any_api: Api) -> None:
    game = finished_game(any_api)
    answer = any_api.client.get(f"/games/{game}/record")
    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == records.FULL_CACHE_CONTROL
    assert "Accept" in answer.headers["Vary"]
    body = answer.json
    assert isinstance(body, dict)
    _validate(body)
    assert body["format"] == "rummy-record/1" and body["view"] == "full"
    assert body["status"] == "finished" and body["verified"] is True
    assert body["game_secret"] is not None and body["winners"]
    assert [e["seq"] for e in body["events"]] == list(range(1, len(body["events"]) + 1))
    assert body["events"][0]["type"] == "game_created"
    assert body["events"][-1]["type"] == "game_ended"
    ended = [e for e in body["events"] if e["type"] == "round_ended"]
    assert len(body["rounds"]) == len(ended) >= 1
    for entry, event in zip(body["rounds"], ended, strict=True):
        assert entry["secret"] == event["secret"]
        assert entry["result"]["scores"] == event["scores"]
        deal = entry["deal"]
        start = next(
            e
            for e in body["events"]
            if e["type"] == "round_started" and e["number"] == entry["number"]
        )
        assert [sorted(h) for h in deal["hands"]] == [sorted(h) for h in start["hands"]]
        assert [deal["upcard"]] == start["discard_pile"]
        assert len(deal["stock"]) == start["stock_size"]
    assert body["scores"] == body["events"][-1]["scores"]
    # The service's verdict is the offline check's, the rules engine's replay included.
    assert exit_status(recordcheck.verify_record(body)) == OK
    # Unchanged: 304 with the same tag.
    again = any_api.client.get(
        f"/games/{game}/record", headers={"If-None-Match": answer.headers["ETag"]}
    )
    assert again.status_code == 304 and again.headers["ETag"] == answer.headers["ETag"]


def test_a_seat_record_of_a_live_game_holds_what_that_seat_knew(api: Api) -> None:
    game, ann, bob = api.scripted_game()
    assert api.move(game, ann, DRAW).status_code == 200
    assert api.move(game, ann, {"type": "discard", "card": "S9"}).status_code == 200
    assert api.move(game, bob, {"type": "draw", "source": "discard"}).status_code == 200
    assert api.move(game, bob, {"type": "discard", "card": "H9"}).status_code == 200
    assert api.move(game, ann, DRAW).status_code == 200
    answer = api.client.get(f"/games/{game}/record", headers=bearer(bob))
    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == records.SEAT_CACHE_CONTROL
    body = answer.json
    assert isinstance(body, dict)
    _validate(body)
    assert body["view"] == "seat" and body["you"] == 1 and body["verified"] is None
    assert body["game_secret"] is None and all(r["deal"] is None for r in body["rounds"])
    start = next(e for e in body["events"] if e["type"] == "round_started")
    assert "hands" not in start and sorted(start["hand"]) != sorted(ANN_HAND)
    draws = [e for e in body["events"] if e["type"] == "drew"]
    # Ann's stock draws hide their card from Bob; the discard Bob took is public.
    assert [("card" in e, e["seat"], e["source"]) for e in draws] == [
        (False, 0, "stock"),
        (True, 1, "discard"),
        (False, 0, "stock"),
    ]
    assert body["seats"][1]["known_cards"] == ["S9"]
    text = json.dumps(body)
    for card in ("C4", "DQ"):  # Ann's second draw and the next card of the stock
        assert f'"{card}"' not in text
    # Ann's own record shows her hand and the cards she drew.
    mine = record(api, game, ann)
    start = next(e for e in mine["events"] if e["type"] == "round_started")
    assert sorted(start["hand"]) == sorted(ANN_HAND)
    assert [e.get("card") for e in mine["events"] if e["type"] == "drew"] == ["S9", "S9", "C4"]
    tag = answer.headers["ETag"]
    cached = api.client.get(f"/games/{game}/record", headers={**bearer(bob), "If-None-Match": tag})
    assert cached.status_code == 304
    assert api.move(game, ann, {"type": "discard", "card": "C4"}).status_code == 200
    moved = api.client.get(f"/games/{game}/record", headers={**bearer(bob), "If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag


def test_the_public_record_of_a_live_game_shows_no_hand_and_lags_by_the_delay(api: Api) -> None:
    game, ann, _bob = api.scripted_game()
    answer = api.create(
        preset="express",
        seats=[{"name": "Ann"}, {"name": "Bob"}],
        options={"spectator_delay": 3},
    )
    created = answer.json
    assert created is not None
    delayed = created["id"]
    turn = api.view(delayed).json["round"]["turn"]  # type: ignore[index]
    ann2 = created["seats"][turn]["token"]  # whoever plays first
    for target, token in ((game, ann), (delayed, ann2)):
        assert api.move(target, token, DRAW).status_code == 200
    hand = api.view(delayed, ann2).json["hand"]  # type: ignore[index]
    assert api.move(delayed, ann2, {"type": "discard", "card": hand[0]}).status_code == 200
    public = api.client.get(f"/games/{game}/record")
    assert public.status_code == 200
    assert public.headers["Cache-Control"] == records.PUBLIC_CACHE_CONTROL
    body = public.json
    assert isinstance(body, dict)
    _validate(body)
    assert body["view"] == "public" and body["you"] is None
    start = next(e for e in body["events"] if e["type"] == "round_started")
    assert "hands" not in start and "hand" not in start
    assert all("card" not in e for e in body["events"] if e["type"] == "drew")
    events = api.events(delayed).json
    assert events is not None
    lagging = record(api, delayed)
    assert [e["seq"] for e in lagging["events"]] == [e["seq"] for e in events["events"]]
    everything = record(api, delayed, ann2)["events"]
    assert len(lagging["events"]) == len(everything) - 3 >= 1


def test_the_transcript_of_the_walkthrough_game_is_the_golden_file(api: Api) -> None:
    game, ann, bob = api.scripted_game()
    api.play_script(game, ann, bob)
    answer = api.client.get(f"/games/{game}/record", headers={"Accept": "text/plain"})
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    text = answer.get_data(as_text=True).replace(game, "GAME")
    if not GOLDEN.exists():  # pragma: no cover - writes the file the first time
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
    lines = api.client.get(f"/games/{game}/record", headers={"Accept": "application/x-ndjson"})
    assert lines.mimetype == "application/x-ndjson"
    events = [orjson.loads(line) for line in lines.get_data().splitlines()]
    assert events == record(api, game)["events"]
    assert len(re.findall(r"^ *\d+ ", text, re.M)) == len(events)


def test_a_record_of_an_unknown_game_is_a_404_and_a_wrong_token_a_401(api: Api) -> None:
    assert api.client.get("/games/nope-nope-nope-nope/record").status_code == 404
    game, _ann, _bob = api.scripted_game()
    assert api.client.get(f"/games/{game}/record", headers=bearer("x" * 30)).status_code == 401


def test_the_committed_json_schema_is_the_generated_one() -> None:
    assert (ROOT / "openapi/record.schema.json").read_text() == records.schema_text(), (
        "openapi/record.schema.json is stale: run `python -m service.api.records schema --write`"
    )


def test_the_json_schema_file_and_the_openapi_components_are_one_description() -> None:
    components = json.loads((ROOT / "openapi/openapi.json").read_text())["components"]["schemas"]
    defs = json.loads((ROOT / "openapi/record.schema.json").read_text())["$defs"]
    assert {"Record", "RecordSeat", "RecordRound", "RecordResult", "DerivedDeal"} <= set(defs)
    for name, schema in defs.items():
        shown = json.dumps(components[name]).replace("#/components/schemas/", "#/$defs/")
        assert json.loads(shown) == schema, name


def test_the_docs_table_of_a_record_is_the_generated_one() -> None:
    text = (ROOT / "docs/records.md").read_text()
    found = re.search(
        r"<!-- record-fields:start -->\n(.*?)\n<!-- record-fields:end -->", text, re.S
    )
    assert found is not None and found.group(1) == records.record_table(), (
        "docs/records.md's table is stale: run `python -m service.api.records table`"
    )


@pytest.mark.parametrize("preset", ["express", "vrotham", "block"])
def test_whole_records_of_other_presets_verify(api: Api, preset: str) -> None:
    body = record(api, finished_game(api, preset))
    assert body["verified"] is True
    assert exit_status(recordcheck.verify_record(body)) == OK


@pytest.mark.parametrize("preset", ["standard", "vrotham", "elimination", "romme"])
def test_a_live_record_never_shows_another_hand_or_the_stock(
    app: Flask, api: Api, preset: str
) -> None:
    store = app.extensions[STORE_EXTENSION]
    rng = random.Random(preset)
    seats = [{"name": "Ann"}, {"bot": "greedy"}, {"name": "Bob"}, {"bot": "random"}]
    created = api.create(preset=preset, seats=seats).json
    assert created is not None
    game = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"] if "token" in s}
    checked = 0
    for _ in range(60):
        loaded = store.load(game)
        state = decode_state(loaded.state)
        if state.status != "active" or state.round is None:
            break
        viewer = rng.choice([None, *sorted(tokens)])
        body = api.client.get(
            f"/games/{game}/record",
            headers=bearer(tokens.get(viewer) if viewer is not None else None),
        ).json
        assert body is not None
        again = store.load(game)
        if again.version == body["version"]:
            raw = store.events(game, 0)
            assert_record_hides_what_it_must(body, raw, decode_state(again.state), viewer, True)
            checked += 1
        mover = state.round.turn
        if mover not in tokens:
            time.sleep(0.01)
            continue
        legal = api.legal(game, tokens[mover]).json
        assert legal is not None
        if legal["moves"]:
            api.move(game, tokens[mover], rng.choice(legal["moves"]))
    assert checked >= 5


def test_a_record_whose_first_events_are_gone_is_not_verified() -> None:
    from dataclasses import replace

    from service.app import create_app, shutdown
    from service.bots.dealcheck import INCOMPLETE
    from service.config import TestConfig

    app = create_app(replace(TestConfig(), MAX_EVENTS=30, ACCESS_LOG=False))
    try:
        short = Api(app.test_client())
        body = record(short, finished_game(short, "standard"))
    finally:
        shutdown(app)
    assert len(body["events"]) == 30 and body["events"][0]["seq"] > 1
    assert body["verified"] is False
    assert exit_status(recordcheck.verify_record(body)) == INCOMPLETE
