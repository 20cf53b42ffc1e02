"""Two gunicorn instances on one Redis: requests alternate between them, nothing is lost."""

from __future__ import annotations

import threading

import pytest

from tests.e2e.http import Client, play_to_the_end
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow


def test_a_game_alternating_between_two_instances(
    redis_gunicorn: GunicornServer, second_gunicorn: GunicornServer
) -> None:
    one, two = Client(redis_gunicorn.url), Client(second_gunicorn.url)
    created = one.post(
        "/games",
        {
            "preset": "express",
            "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cid"}],
            "seed": 8,
        },
    )
    assert created.status == 201
    game = created.json["id"]
    tokens = {s["seat"]: s["token"] for s in created.json["seats"]}
    seen = two.get(f"/games/{game}", tokens[1])
    assert seen.status == 200 and seen.json["you"] == 1, seen
    final = play_to_the_end([one, two], game, tokens, seed=3)
    assert final["status"] == "finished"
    seen_one = one.get(f"/games/{game}/events?after=0").json["events"]
    seen_two = two.get(f"/games/{game}/events?after=0").json["events"]
    assert seen_one == seen_two
    # The latest MAX_EVENTS events are kept, in order, up to the game's last.
    seqs = [e["seq"] for e in seen_one]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert seqs[-1] == final["last_event"]
    assert seen_one[-1]["version"] == final["version"]


def test_concurrent_joins_on_two_instances_all_get_a_seat(
    redis_gunicorn: GunicornServer, second_gunicorn: GunicornServer
) -> None:
    creator = Client(redis_gunicorn.url)
    created = creator.post("/games", {"seats": [{"name": "Host"}] + [{"name": None}] * 5})
    game = created.json["id"]
    results: list[tuple[int, object]] = []

    def join(url: str, name: str) -> None:
        client = Client(url)
        answer = client.post(f"/games/{game}/join", {"name": name})
        results.append((answer.status, answer.json))
        client.close()

    threads = [
        threading.Thread(
            target=join, args=((redis_gunicorn if i % 2 else second_gunicorn).url, f"P{i}")
        )
        for i in range(5)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(status for status, _ in results) == [201] * 5, results
    seats = sorted(body["seat"] for _, body in results)  # type: ignore[index]
    assert seats == [1, 2, 3, 4, 5]
    view = creator.get(f"/games/{game}").json
    assert view["status"] == "active"
    assert view["version"] == 6  # created + five joins, none lost
    names = sorted(s["name"] for s in view["seats"])
    assert names == sorted(["Host", "P0", "P1", "P2", "P3", "P4"])


def test_a_long_poll_on_one_instance_sees_a_move_made_on_the_other(
    redis_gunicorn: GunicornServer, second_gunicorn: GunicornServer
) -> None:
    one, two = Client(redis_gunicorn.url), Client(second_gunicorn.url)
    created = one.post("/games", {"preset": "express", "seats": [{"name": "A"}, {"name": "B"}]})
    game = created.json["id"]
    tokens = {s["seat"]: s["token"] for s in created.json["seats"]}
    view = one.get(f"/games/{game}").json
    last = view["last_event"]
    found: list[object] = []
    waiter = threading.Thread(
        target=lambda: found.append(two.get(f"/games/{game}/events?after={last}&wait=20").json)
    )
    waiter.start()
    mover = tokens[view["round"]["turn"]]
    assert (
        one.post(f"/games/{game}/moves", {"type": "draw", "source": "stock"}, mover).status == 200
    )
    waiter.join(25)
    assert found and found[0]["events"][0]["type"] == "drew"  # type: ignore[index]


def test_racing_retries_of_one_move_apply_it_once(
    redis_gunicorn: GunicornServer, second_gunicorn: GunicornServer
) -> None:
    setup = Client(redis_gunicorn.url)
    created = setup.post("/games", {"preset": "express", "seats": [{"name": "A"}, {"name": "B"}]})
    game = created.json["id"]
    tokens = {s["seat"]: s["token"] for s in created.json["seats"]}
    view = setup.get(f"/games/{game}").json
    mover = tokens[view["round"]["turn"]]
    answers: list[tuple[int, str, str]] = []

    def send(url: str) -> None:
        client = Client(url)
        answer = client.post(
            f"/games/{game}/moves",
            {"type": "draw", "source": "stock"},
            mover,
            **{"Idempotency-Key": "the-draw"},
        )
        answers.append(
            (
                answer.status,
                answer.headers.get("etag", ""),
                answer.headers.get("idempotency-replayed", ""),
            )
        )
        client.close()

    threads = [
        threading.Thread(target=send, args=((redis_gunicorn if i % 2 else second_gunicorn).url,))
        for i in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [status for status, _, _ in answers] == [200] * 6, answers
    tags = {tag for _, tag, _ in answers}  # one version, one epoch
    assert len(tags) == 1 and tags.pop().startswith(f'"{view["version"] + 1}.')
    assert sorted(replayed for _, _, replayed in answers) == [""] + ["true"] * 5
    after = setup.get(f"/games/{game}").json
    assert after["version"] == view["version"] + 1
    drawn = [
        e for e in setup.get(f"/games/{game}/events?after=0").json["events"] if e["type"] == "drew"
    ]
    assert len(drawn) == 1
