"""`/queue` (quick play) over the app, on the memory store (its in-process runner
matches) and on a throwaway Redis (a runner thread with its matcher, as the worker
process runs it): enqueue, long-poll until matched, play the seat, leave the queue,
quotas, secrets, and the bot fill after its delay."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api.access import STORE_EXTENSION
from service.api.queue import TICKETS_EXTENSION
from service.config import Config, TestConfig
from service.store.errors import StoreUnavailable
from service.worker import Runner, RunnerSettings, matcher_for
from tests.api.helpers import bearer

#: Quick-play settings of these tests: a short bot fill, small quotas.
QUEUE_SETTINGS: dict[str, Any] = {"QUEUE_BOT_FILL_SECONDS": 1.0}


@pytest.fixture(params=["memory", "redis"])
def queue_app(
    request: pytest.FixtureRequest, make_app: Callable[..., Flask]
) -> Iterator[Callable[..., FlaskClient]]:
    """Build a client of an app with the given settings: on memory (its runner
    thread matches), then on Redis with a runner thread and its matcher."""
    stops: list[threading.Event] = []
    threads: list[threading.Thread] = []

    def build(**settings: Any) -> FlaskClient:
        config: Config = replace(TestConfig(), **{**QUEUE_SETTINGS, **settings})
        if request.param == "redis":
            url = request.getfixturevalue("redis_url")
            config = replace(config, STORE_URL=url, STORE_PREFIX=f"t{uuid.uuid4().hex[:8]}")
        app = make_app(config)
        if request.param == "redis":
            store = app.extensions[STORE_EXTENSION]
            runner = Runner(
                store, RunnerSettings(idle=0.05), matcher=matcher_for(store, app.config)
            )
            stop = threading.Event()
            thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
            thread.start()
            stops.append(stop)
            threads.append(thread)
        return app.test_client()

    yield build
    for stop in stops:
        stop.set()
    for thread in threads:
        thread.join(10)


def enqueue(client: FlaskClient, name: str, **body: Any) -> dict[str, Any]:
    """`POST /queue` (4-player `standard` unless told), answered 201."""
    sent = {"preset": "standard", "players": 4, "name": name, **body}
    answer = client.post("/queue", json={k: v for k, v in sent.items() if v is not None})
    assert answer.status_code == 201, answer.json
    assert answer.headers["Location"] == f"/queue/{answer.json['ticket']}"  # type: ignore[index]
    return answer.json  # type: ignore[return-value]


def poll(client: FlaskClient, ticket: dict[str, Any], wait: float = 10.0) -> dict[str, Any]:
    """`GET /queue/{ticket}?wait=…` with its secret, answered 200."""
    answer = client.get(
        f"/queue/{ticket['ticket']}", query_string={"wait": wait}, headers=bearer(ticket["secret"])
    )
    assert answer.status_code == 200, answer.json
    return answer.json  # type: ignore[return-value]


def test_four_tickets_make_a_game_and_each_seat_plays(
    queue_app: Callable[..., FlaskClient],
) -> None:
    client = queue_app()
    tickets = [enqueue(client, f"P{i}", client_seed=f"seed{i}") for i in range(4)]
    first = tickets[0]
    assert first["status"] == "waiting" and first["tables"] == ["standard:4"]
    assert first["game"] is None and first["token"] is None and "secret" in first
    seats = [poll(client, ticket) for ticket in tickets]
    assert {seat["status"] for seat in seats} == {"matched"}
    assert len({seat["game"] for seat in seats}) == 1
    assert sorted(seat["seat"] for seat in seats) == [0, 1, 2, 3]
    game = seats[0]["game"]
    for index, seat in enumerate(seats):
        view = client.get(f"/games/{game}", headers=bearer(seat["token"]))
        assert view.status_code == 200
        body = view.json
        assert body is not None
        assert body["you"] == seat["seat"] and len(body["hand"]) > 0
        mine = body["seats"][seat["seat"]]
        assert mine["name"] == f"P{index}" and mine["client_seed"] == f"seed{index}"
        assert body["status"] == "active" and body["deal"] == "random"
        assert body["game_commitment"] and body["round"]["deal_commitment"]
    # The token is the same on every read (derived from the secret, never stored).
    again = poll(client, tickets[0], wait=0)
    assert again["token"] == seats[0]["token"] and again["game"] == game
    # Matched: the ticket can no longer leave the queue.
    gone = client.delete(f"/queue/{first['ticket']}", headers=bearer(first["secret"]))
    assert gone.status_code == 409 and gone.json["code"] == "ticket_matched"  # type: ignore[index]


def test_leave_the_queue_and_read_the_demand(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app()
    ticket = enqueue(client, "Solo", preset="express", players=3)
    demand = client.get("/queue").json
    assert demand == {"waiting": {"express:3": 1}}
    waiting = poll(client, ticket, wait=0.3)  # no table: the wait runs out
    assert waiting["status"] == "waiting" and waiting["waiting"] == {"express:3": 1}
    left = client.delete(f"/queue/{ticket['ticket']}", headers=bearer(ticket["secret"]))
    assert left.status_code == 204
    assert client.get("/queue").json == {"waiting": {}}
    again = client.get(f"/queue/{ticket['ticket']}", headers=bearer(ticket["secret"]))
    assert again.status_code == 404 and again.json["code"] == "ticket_not_found"  # type: ignore[index]


def test_a_range_of_presets_and_players(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app()
    answer = enqueue(
        client,
        "Wide",
        preset=None,
        players=None,
        presets=["traditional", "express"],
        min_players=3,
        max_players=6,
    )
    assert answer["tables"] == [
        "traditional:3",
        "traditional:4",
        "express:3",
        "express:4",
    ]


@pytest.mark.parametrize(
    "body",
    [
        {"preset": "standard", "name": "A"},  # no player count
        {"preset": "standard", "presets": ["express"], "players": 2, "name": "A"},
        {"preset": "nope", "players": 2, "name": "A"},
        {"preset": "express", "players": 6, "name": "A"},  # express seats 2 to 4
        {"preset": "standard", "min_players": 5, "max_players": 3, "name": "A"},
        {"preset": "standard", "players": 4, "name": " "},
        {"preset": "standard", "players": 4, "name": "A", "client_seed": "no spaces"},
    ],
)
def test_bad_bodies_are_422(queue_app: Callable[..., FlaskClient], body: dict[str, Any]) -> None:
    client = queue_app()
    body = {key: value for key, value in body.items() if value is not None}
    answer = client.post("/queue", json=body)
    assert answer.status_code == 422, answer.json
    assert answer.json["code"] == "validation_error"  # type: ignore[index]


def test_secrets(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app()
    ticket = enqueue(client, "Kept", preset="express", players=4)
    other = enqueue(client, "Other", preset="express", players=4)
    url = f"/queue/{ticket['ticket']}"
    missing = client.get(url)
    assert missing.status_code == 401 and missing.json["code"] == "missing_token"  # type: ignore[index]
    for method in (client.get, client.delete):
        wrong = method(url, headers=bearer(other["secret"]))
        assert wrong.status_code == 401
        assert wrong.json["code"] == "invalid_ticket_secret"  # type: ignore[index]
    malformed = client.get("/queue/not%20an%20id", headers=bearer(ticket["secret"]))
    assert malformed.status_code == 404
    unknown = client.get("/queue/nosuchticket", headers=bearer(ticket["secret"]))
    assert unknown.status_code == 404 and unknown.json["code"] == "ticket_not_found"  # type: ignore[index]
    # The ticket is still there for its holder.
    assert poll(client, ticket, wait=0)["status"] == "waiting"


def test_wait_is_bounded(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app(LONGPOLL_MAX=2.0)
    ticket = enqueue(client, "Patient", preset="express", players=4)
    answer = client.get(
        f"/queue/{ticket['ticket']}", query_string={"wait": 2.5}, headers=bearer(ticket["secret"])
    )
    assert answer.status_code == 422 and answer.json["errors"] == {"wait": ["at most 2"]}  # type: ignore[index]
    started = time.monotonic()
    assert poll(client, ticket, wait=2.0)["status"] == "waiting"
    assert 1.9 <= time.monotonic() - started < 4.0


def test_tickets_per_client_quota(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app(RATELIMIT_ENABLED=True, QUEUE_TICKETS_PER_CLIENT=2)
    first = enqueue(client, "A", preset="express", players=4)
    enqueue(client, "B", preset="express", players=4)
    refused = client.post("/queue", json={"preset": "express", "players": 4, "name": "C"})
    assert refused.status_code == 429
    assert refused.json["code"] == "ticket_quota_exceeded"  # type: ignore[index]
    assert refused.headers["Retry-After"]
    # Another client is not refused; a cancelled ticket frees its place.
    other = client.post(
        "/queue",
        json={"preset": "express", "players": 4, "name": "D"},
        environ_base={"REMOTE_ADDR": "192.0.2.7"},
    )
    assert other.status_code == 201
    client.delete(f"/queue/{first['ticket']}", headers=bearer(first["secret"]))
    enqueue(client, "E", preset="express", players=4)


def test_queue_length_bound(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app(QUEUE_MAX_LENGTH=2)
    enqueue(client, "A", preset="express", players=4)
    enqueue(client, "B", preset="express", players=4)
    full = client.post("/queue", json={"preset": "express", "players": 4, "name": "C"})
    assert full.status_code == 503 and full.json["code"] == "queue_full"  # type: ignore[index]
    enqueue(client, "D", preset="express", players=3)  # another queue


def test_bots_fill_the_table_after_the_delay(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app(QUEUE_BOT_FILL_SECONDS=1.0)
    started = time.monotonic()
    lone = enqueue(client, "Lone", bots_allowed=True)
    shy = enqueue(client, "Shy", preset="express", players=2)
    seat = poll(client, lone, wait=10)
    assert seat["status"] == "matched"
    assert time.monotonic() - started >= 1.0
    view = client.get(f"/games/{seat['game']}", headers=bearer(seat["token"])).json
    assert view is not None
    assert [s["kind"] for s in view["seats"]] == ["human", "bot", "bot", "bot"]
    # A ticket that did not allow bots still waits.
    assert poll(client, shy, wait=0)["status"] == "waiting"


def test_the_settings_and_their_bounds() -> None:
    defaults = Config()
    assert (defaults.QUEUE_BOT_FILL_SECONDS, defaults.QUEUE_BOT) == (30.0, "greedy")
    assert (defaults.QUEUE_TICKET_TTL, defaults.QUEUE_TICKETS_PER_CLIENT) == (600.0, 4)
    assert (defaults.QUEUE_MAX_LENGTH, defaults.QUEUE_MATCH_LEASE) == (1000, 10.0)
    read = Config.from_env(
        {
            "QUEUE_BOT_FILL_SECONDS": "-1",
            "QUEUE_BOT": "expert",
            "QUEUE_TICKET_TTL": "999999",
            "QUEUE_TICKETS_PER_CLIENT": "-3",
            "QUEUE_MAX_LENGTH": "0",
            "QUEUE_MATCH_LEASE": "0",
        }
    )
    assert read.QUEUE_BOT_FILL_SECONDS == 0.0 and read.QUEUE_BOT == "expert"
    assert read.QUEUE_TICKET_TTL == 86400.0 and read.QUEUE_TICKETS_PER_CLIENT == 0
    assert read.QUEUE_MAX_LENGTH == 0 and read.QUEUE_MATCH_LEASE == 0.1
    assert Config.from_env({"QUEUE_TICKET_TTL": "0"}).QUEUE_TICKET_TTL == 1.0
    with pytest.raises(ValueError, match="QUEUE_BOT"):
        Config.from_env({"QUEUE_BOT": "random"})


def test_a_ticket_is_forgotten_after_its_ttl(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app(QUEUE_TICKET_TTL=1.0)
    ticket = enqueue(client, "Brief", preset="express", players=4)
    assert poll(client, ticket, wait=0)["status"] == "waiting"
    time.sleep(1.1)
    gone = client.get(f"/queue/{ticket['ticket']}", headers=bearer(ticket["secret"]))
    assert gone.status_code == 404 and gone.json["code"] == "ticket_not_found"  # type: ignore[index]
    assert client.get("/queue").json == {"waiting": {}}


def test_the_lobby_shows_the_queued_demand(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app()
    enqueue(client, "A", preset="express", players=3)
    enqueue(client, "B", presets=["express", "standard"], preset=None, players=3)
    lobby = client.get("/games").json
    assert lobby is not None and lobby["queued"] == {"express:3": 2, "standard:3": 1}
    only = client.get("/games", query_string={"preset": "standard"}).json
    assert only is not None and only["queued"] == {"standard:3": 1}


def test_a_waiting_game_takes_a_queued_player(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app()
    created = client.post(
        "/games", json={"preset": "express", "seats": [{"name": "Host"}, {"name": None}]}
    ).json
    assert created is not None
    seat = poll(client, enqueue(client, "Guest", preset="express", players=2))
    assert seat["status"] == "matched" and seat["game"] == created["id"] and seat["seat"] == 1
    view = client.get(f"/games/{created['id']}", headers=bearer(seat["token"])).json
    assert view is not None and view["status"] == "active" and view["you"] == 1
    assert [s["name"] for s in view["seats"]] == ["Host", "Guest"]


def stream(client: FlaskClient, ticket: dict[str, Any]) -> list[tuple[str, Any]]:
    """`GET /queue/{ticket}/stream` read to its end: its messages, each as its
    `event:` name and decoded `data:` (``("heartbeat", None)`` for a comment)."""
    answer = client.get(f"/queue/{ticket['ticket']}/stream", headers=bearer(ticket["secret"]))
    assert answer.status_code == 200, answer.get_data()
    assert answer.mimetype == "text/event-stream"
    assert "no-store" in answer.headers["Cache-Control"]
    text = answer.get_data(as_text=True)
    assert text.startswith("retry: ")
    messages: list[tuple[str, Any]] = []
    for block in text.split("\n\n")[1:]:
        if block.startswith(": heartbeat"):
            messages.append(("heartbeat", None))
        elif block:
            fields = dict(line.split(": ", 1) for line in block.splitlines())
            messages.append((fields["event"], json.loads(fields["data"])))
    return messages


def test_the_stream_pushes_the_wait_then_the_seat(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app(QUEUE_BOT_FILL_SECONDS=1.0)
    lone = enqueue(client, "Lone", bots_allowed=True)
    messages = stream(client, lone)  # ends once matched, after the bot fill
    names = [name for name, _ in messages]
    assert names[0] == "waiting" and names[-1] == "matched", names
    assert set(names) <= {"waiting", "heartbeat", "matched"}
    waiting = messages[0][1]
    assert waiting["status"] == "waiting" and waiting["waiting"] == {"standard:4": 1}
    assert waiting["token"] is None
    matched = messages[-1][1]
    assert matched["status"] == "matched" and matched["token"]
    # The same seat and token the long-poll answers; the token plays the seat.
    assert poll(client, lone, wait=0) == matched
    view = client.get(f"/games/{matched['game']}", headers=bearer(matched["token"])).json
    assert view is not None and view["you"] == matched["seat"]
    # A matched ticket's stream answers the seat at once.
    assert stream(client, lone) == [("matched", matched)]


def test_the_stream_says_when_the_ticket_is_gone(queue_app: Callable[..., FlaskClient]) -> None:
    client = queue_app()
    ticket = enqueue(client, "Leaving", preset="express", players=4)
    seen: list[list[tuple[str, Any]]] = []
    reader = threading.Thread(target=lambda: seen.append(stream(client, ticket)))
    reader.start()
    time.sleep(0.5)  # the stream is open and waits
    left = client.delete(f"/queue/{ticket['ticket']}", headers=bearer(ticket["secret"]))
    assert left.status_code == 204
    reader.join(10)
    assert not reader.is_alive()
    (messages,) = seen
    assert [name for name, _ in messages] == ["waiting", "gone"]
    assert messages[1][1]["code"] == "ticket_not_found" and messages[1][1]["status"] == 404


def test_the_stream_shows_new_demand_beats_and_ends_after_its_lifetime(
    queue_app: Callable[..., FlaskClient],
) -> None:
    client = queue_app(STREAM_LIFETIME=3.0, STREAM_HEARTBEAT=1.0)
    first = enqueue(client, "First", preset="express", players=4)
    later = threading.Timer(0.5, lambda: enqueue(client, "Second", preset="express", players=4))
    later.start()
    started = time.monotonic()
    messages = stream(client, first)
    later.join()
    assert 2.9 <= time.monotonic() - started < 6.0
    waiting = [data["waiting"] for name, data in messages if name == "waiting"]
    assert waiting == [{"express:4": 1}, {"express:4": 2}]
    assert ("heartbeat", None) in messages
    assert messages[-1][0] != "matched"


def test_the_stream_needs_the_secret_and_holds_a_waiting_place(
    queue_app: Callable[..., FlaskClient],
) -> None:
    client = queue_app(RATELIMIT_ENABLED=True, LONGPOLL_PER_ADDRESS=1, STREAM_LIFETIME=2.0)
    ticket = enqueue(client, "Kept", preset="express", players=4)
    other = enqueue(client, "Other", preset="express", players=4)
    url = f"/queue/{ticket['ticket']}/stream"
    missing = client.get(url)
    assert missing.status_code == 401 and missing.json["code"] == "missing_token"  # type: ignore[index]
    wrong = client.get(url, headers=bearer(other["secret"]))
    assert wrong.status_code == 401 and wrong.json["code"] == "invalid_ticket_secret"  # type: ignore[index]
    unknown = client.get("/queue/nosuchticket/stream", headers=bearer(ticket["secret"]))
    assert unknown.status_code == 404 and unknown.json["code"] == "ticket_not_found"  # type: ignore[index]
    # An open stream holds the client's one waiting place: a long-poll or a
    # second stream of the same client is refused until it ends.
    held = client.get(url, headers=bearer(ticket["secret"]), buffered=False)
    assert held.status_code == 200
    refused = client.get(f"/queue/{other['ticket']}/stream", headers=bearer(other["secret"]))
    assert refused.status_code == 429
    assert refused.json["code"] == "long_poll_quota_exceeded"  # type: ignore[index]
    assert refused.headers["Retry-After"]
    held.close()
    assert (
        client.get(f"/queue/{other['ticket']}/stream", headers=bearer(other["secret"])).status_code
        == 200
    )


def test_a_store_failure_ends_the_stream_not_the_worker(
    queue_app: Callable[..., FlaskClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = queue_app()
    ticket = enqueue(client, "Cut", preset="express", players=4)
    queue = client.application.extensions[TICKETS_EXTENSION]

    def fails(ticket_id: str) -> None:
        raise StoreUnavailable("the store is down")

    real_get = queue.get
    calls: list[str] = []

    def get_once(ticket_id: str) -> Any:
        calls.append(ticket_id)
        return real_get(ticket_id) if len(calls) == 1 else fails(ticket_id)

    monkeypatch.setattr(queue, "get", get_once)
    messages = stream(client, ticket)  # the first read opens it, the next one fails
    assert [name for name, _ in messages] == ["waiting"]
    assert len(calls) == 2
