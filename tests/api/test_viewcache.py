"""`service.games.viewcache`: a state's public view built once for all its answers."""

from __future__ import annotations

import time
from datetime import datetime

import orjson

from service.games import viewcache
from service.games.caches import STATES
from service.games.viewcache import PUBLIC_VIEWS, PublicViews
from service.rules import views
from tests.api.helpers import DRAW, Api


def test_every_seat_view_of_a_version_shares_one_public_view(api: Api) -> None:
    game, ann, bob = api.scripted_game()
    api.view(game, ann)  # whatever this version's first answer built
    before = PUBLIC_VIEWS.built
    first, other, again = api.view(game, ann), api.view(game, bob), api.view(game, ann)
    assert PUBLIC_VIEWS.built == before
    assert first.json and other.json and again.json
    assert first.json["hand"] != other.json["hand"]
    assert other.json["you"] == 1 and first.json["you"] == 0
    moved = api.move(game, ann, DRAW)  # a new state: its answer builds its public view
    assert moved.status_code == 200 and PUBLIC_VIEWS.built == before + 1
    after = api.view(game, bob)
    assert after.json and after.json["version"] == first.json["version"] + 1
    assert PUBLIC_VIEWS.built == before + 1


def test_answers_hold_exactly_the_fresh_view(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    api.move(game, ann, DRAW)
    answer = api.view(game, ann)
    assert answer.json
    state = STATES.kept(game)
    assert state is not None and state.round is not None
    fresh = views.seat_view(state, 0)
    added = ("id", "version", "last_event", "now")
    shown = {k: v for k, v in answer.json.items() if k not in added}
    assert shown == fresh
    assert list(answer.json)[2:-2] == list(fresh)  # the same fields in the same order


def test_a_games_state_is_known_by_identity_and_the_oldest_game_is_forgotten(
    api: Api,
) -> None:
    game, ann, _ = api.scripted_game()
    before = STATES.kept(game)
    api.move(game, ann, DRAW)
    after = STATES.kept(game)
    assert before is not None and after is not None and after is not before
    cache = PublicViews(1)
    first = cache.get(game, before)
    assert cache.get(game, before) is first and cache.built == 1
    assert cache.get(game, after) is not first and cache.built == 2  # the game's new state
    other, _, _ = api.scripted_game()
    other_state = STATES.kept(other)
    assert other_state is not None
    cache.get(other, other_state)  # one game kept: the first is forgotten
    assert cache.get(game, after) is not first and cache.built == 4


def test_now_text_is_rfc3339_of_the_current_millisecond() -> None:
    before = time.time()
    text = viewcache.now_text()
    after = time.time()
    assert len(text) == 24 and text.endswith("Z") and text[19] == "."
    moment = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    assert before - 0.001 <= moment <= after
    assert text[:19] == str(views.rfc3339(int(moment * 1000)))[:19]


def test_the_shared_parts_are_serialised_once_for_every_view_that_shares_them(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    before = STATES.kept(game)
    api.move(game, ann, DRAW)
    after = STATES.kept(game)
    assert before is not None and after is not None and before.round is not None
    first, second = viewcache.public_view(game, before), viewcache.public_view(game, after)
    plain = views.public_view(after)
    for view in (first, second):
        assert isinstance(view["options"], orjson.Fragment)
        assert all(isinstance(entry, orjson.Fragment) for entry in view["seats"])
        assert isinstance(view["round"]["melds"], orjson.Fragment)
        assert isinstance(view["rounds"], orjson.Fragment)
    assert second["options"] is first["options"]  # the same options: serialised once
    mover = before.round.turn if before.round is not None else -1
    kept = [i for i in range(len(plain["seats"])) if i != mover]
    assert all(second["seats"][i] is first["seats"][i] for i in kept)
    assert orjson.dumps(second) == orjson.dumps(plain)  # the very same bytes


def test_the_serialised_parts_are_bounded() -> None:
    viewcache.fragment.kept.clear()
    parts = [{"a": i} for i in range(viewcache.FRAGMENTS_KEPT)] + [[2], {"b": [3]}]
    made = [viewcache.fragment(part) for part in parts]
    assert len(viewcache.fragment.kept) == 2  # the one past the bound emptied the table first
    assert viewcache.fragment(parts[-1]) is made[-1]
    assert [orjson.dumps(m) for m in made] == [orjson.dumps(p) for p in parts]
