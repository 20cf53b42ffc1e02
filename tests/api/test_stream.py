"""`GET /games/{id}/stream`: Server-Sent Events on the memory store and on Redis."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.api.events import FEEDS_EXTENSION
from service.api.feeds import Feeds
from service.app import create_app, shutdown
from service.config import TestConfig
from tests.api.helpers import DECK, DRAW, Api, bearer, problem
from tests.support.sse import Message, messages


@pytest.fixture(params=["memory", "redis"])
def stream_api(request: pytest.FixtureRequest) -> Iterator[Api]:
    """An app with short stream heartbeats and lifetimes, on each store."""
    config = replace(TestConfig(), STREAM_HEARTBEAT=0.2, STREAM_LIFETIME=10.0, STREAM_MAX=2)
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        config = replace(config, STORE_URL=url, STORE_PREFIX=f"s{uuid.uuid4().hex[:8]}")
    app = create_app(config)
    yield Api(app.test_client())
    shutdown(app)


def open_stream(
    client: FlaskClient, game: str, token: str | None = None, **headers: str
) -> TestResponse:
    return client.get(f"/games/{game}/stream", headers={**bearer(token), **headers}, buffered=False)


def events_of(response: TestResponse, count: int) -> list[Message]:
    """Read `count` event messages (skipping comments and the retry hint)."""
    got: list[Message] = []
    for message in messages(response.response):
        if message.id is not None:
            got.append(message)
            if len(got) == count:
                break
    return got


def test_a_stream_shows_every_event_in_order_and_then_the_moves_of_others(
    stream_api: Api,
) -> None:
    game, ann, bob = stream_api.scripted_game()
    logged = stream_api.events(game, bob).json
    assert logged is not None
    stream = open_stream(stream_api.client, game, bob)
    assert stream.status_code == 200
    assert stream.mimetype == "text/event-stream"
    assert "no-store" in stream.headers["Cache-Control"]
    received: list[Message] = []
    done = threading.Event()

    def read() -> None:
        for message in messages(stream.response):
            if message.id is not None:
                received.append(message)
                if message.data["type"] == "discarded":
                    break
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert stream_api.move(game, ann, DRAW).status_code == 200
    assert stream_api.move(game, ann, {"type": "discard", "card": "SQ"}).status_code == 200
    assert done.wait(10), "the stream never showed the discard"
    stream.close()
    seqs = [int(m.id or 0) for m in received]
    assert seqs == list(range(1, len(seqs) + 1))
    assert [m.data["seq"] for m in received] == seqs
    # The stream shows what /events shows the same caller, then the new events.
    assert [m.data for m in received[: len(logged["events"])]] == logged["events"]
    drew = next(m.data for m in received if m.data["type"] == "drew")
    assert drew["seat"] == 0 and "card" not in drew  # Ann's stock draw, seen by Bob
    assert "S9" not in str([m.data for m in received])


def test_the_drawer_sees_the_card_on_her_own_stream(stream_api: Api) -> None:
    game, ann, _ = stream_api.scripted_game()
    assert stream_api.move(game, ann, DRAW).status_code == 200
    stream = open_stream(stream_api.client, game, ann)
    drew = next(m.data for m in messages(stream.response) if m.data and m.data["type"] == "drew")
    stream.close()
    assert drew["seat"] == 0 and drew["card"] == "S9"


def test_streams_open_together_on_a_game_each_see_it_as_their_seat(stream_api: Api) -> None:
    # Streams of one game share what is read and encoded: still each seat's own view.
    game, ann, bob = stream_api.scripted_game()
    last = stream_api.view(game, ann).json["last_event"]  # type: ignore[index]
    streams = {
        seat: open_stream(stream_api.client, game, token) for seat, token in ((0, ann), (1, bob))
    }
    first = {seat: events_of(stream, last) for seat, stream in streams.items()}
    dealt = {seat: next(m.data for m in got if "hand" in m.data) for seat, got in first.items()}
    assert dealt[0]["hand"] != dealt[1]["hand"]  # each stream shows its own seat's hand
    assert stream_api.move(game, ann, DRAW).status_code == 200
    drew = {seat: events_of(stream, 1)[0].data for seat, stream in streams.items()}
    for stream in streams.values():
        stream.close()
    assert drew[0]["type"] == drew[1]["type"] == "drew"
    assert drew[0]["card"] == "S9" and "card" not in drew[1]


def test_the_streams_of_a_game_share_one_feed_until_the_last_closes(stream_api: Api) -> None:
    game, ann, bob = stream_api.scripted_game()
    feeds: Feeds = stream_api.client.application.extensions[FEEDS_EXTENSION]
    streams = [open_stream(stream_api.client, game, token) for token in (ann, bob)]
    assert feeds.open_feeds == 1
    streams[0].close()
    assert feeds.open_feeds == 1
    streams[1].close()
    assert feeds.open_feeds == 0


def test_the_streams_of_a_deleted_game_end(stream_api: Api) -> None:
    answer = stream_api.create(preset="express", seats=[{"name": "Ann"}, {"name": None}])
    assert answer.status_code == 201, answer.json
    game, ann = answer.json["id"], answer.json["seats"][0]["token"]  # type: ignore[index]
    streams = [open_stream(stream_api.client, game, token) for token in (ann, None)]
    ended = [threading.Event() for _ in streams]

    def read(stream: TestResponse, done: threading.Event) -> None:
        list(messages(stream.response))  # until the server ends the stream
        done.set()

    for stream, done in zip(streams, ended, strict=True):
        threading.Thread(target=read, args=(stream, done), daemon=True).start()
    deleted = stream_api.client.delete(f"/games/{game}", headers=bearer(ann))
    assert deleted.status_code == 204
    # Well before their lifetime (10 s here): the game is gone.
    assert all(done.wait(5) for done in ended)
    for stream in streams:
        stream.close()


def test_a_stream_resumes_after_last_event_id_or_after(stream_api: Api) -> None:
    game, ann, bob = stream_api.scripted_game()
    for token, move in ((ann, DRAW), (ann, {"type": "discard", "card": "SQ"}), (bob, DRAW)):
        assert stream_api.move(game, token, move).status_code == 200
    first = open_stream(stream_api.client, game)
    head = events_of(first, 3)
    first.close()
    assert [m.id for m in head] == ["1", "2", "3"]
    resumed = open_stream(stream_api.client, game, **{"Last-Event-ID": "3"})
    rest = events_of(resumed, 1)
    resumed.close()
    assert rest[0].id == "4"
    by_query = stream_api.client.get(f"/games/{game}/stream?after=2", buffered=False)
    assert events_of(by_query, 1)[0].id == "3"
    by_query.close()
    # Last-Event-ID (what a reconnecting EventSource sends) wins over the URL's `after`.
    both = stream_api.client.get(
        f"/games/{game}/stream?after=1", headers={"Last-Event-ID": "4"}, buffered=False
    )
    assert events_of(both, 1)[0].id == "5"
    both.close()


def test_a_quiet_stream_sends_heartbeats_and_ends_after_its_lifetime(stream_api: Api) -> None:
    game, _, _ = stream_api.scripted_game()
    stream_api.client.application.config["STREAM_LIFETIME"] = 1.0
    stream = open_stream(stream_api.client, game)
    seen = list(messages(stream.response))  # ends by itself after STREAM_LIFETIME
    stream.close()
    assert seen[0].retry == 1000
    comments = [m.comment for m in seen if m.comment is not None]
    assert "heartbeat" in comments and len(comments) >= 3
    assert [m.id for m in seen if m.id is not None] == [
        str(i) for i in range(1, len([m for m in seen if m.id]) + 1)
    ]


def test_streams_beyond_the_cap_answer_503_with_retry_after(stream_api: Api) -> None:
    game, _, _ = stream_api.scripted_game()
    held = [open_stream(stream_api.client, game) for _ in range(2)]  # STREAM_MAX
    assert [s.status_code for s in held] == [200, 200]
    refused = open_stream(stream_api.client, game)
    problem(refused, 503, "too_many_streams")
    assert refused.headers["Retry-After"] == "5"
    held.pop().close()
    again = open_stream(stream_api.client, game)
    assert again.status_code == 200
    for stream in [*held, again]:
        stream.close()


def test_bad_stream_requests_are_refused(stream_api: Api) -> None:
    game, _, _ = stream_api.scripted_game()
    problem(open_stream(stream_api.client, game, **{"Last-Event-ID": "abc"}), 400,
            "invalid_last_event_id")  # fmt: skip
    problem(open_stream(stream_api.client, "nope"), 404, "game_not_found")
    problem(open_stream(stream_api.client, game, "not-a-token"), 401, "invalid_token")
    problem(stream_api.client.get(f"/games/{game}/stream?after=-1"), 422, "validation_error")
    # Refusals hold no stream slot.
    held = [open_stream(stream_api.client, game) for _ in range(2)]
    assert [s.status_code for s in held] == [200, 200]
    for stream in held:
        stream.close()


def test_a_spectators_stream_keeps_the_games_spectator_delay(stream_api: Api) -> None:
    answer = stream_api.create(
        preset="express",
        options={"spectator_delay": 2},
        seats=[{"name": "Ann"}, {"name": "Bob"}],
        deck=DECK,
        first_dealer=1,
    )
    assert answer.status_code == 201, answer.json
    game, ann = answer.json["id"], answer.json["seats"][0]["token"]  # type: ignore[index]
    for move in (DRAW, {"type": "discard", "card": "SQ"}):
        assert stream_api.move(game, ann, move).status_code == 200
    last = stream_api.view(game, ann).json["last_event"]  # type: ignore[index]
    public = stream_api.events(game).json
    assert public is not None
    stream_api.client.application.config["STREAM_LIFETIME"] = 0.5
    spectator = open_stream(stream_api.client, game)
    seen = [int(m.id) for m in messages(spectator.response) if m.id is not None]
    spectator.close()
    # The same events as the spectator's long-poll: all but the latest two.
    assert seen == [e["seq"] for e in public["events"]] == list(range(1, last - 1))
    player = open_stream(stream_api.client, game, ann)
    assert [int(m.id or 0) for m in events_of(player, last)] == list(range(1, last + 1))
    player.close()
