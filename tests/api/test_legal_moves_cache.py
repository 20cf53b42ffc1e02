"""`GET /games/{id}/legal-moves`: one listing per (game, version, seat), and `304` before any."""

from __future__ import annotations

from service.games.caches import LEGAL_MOVES
from tests.api.helpers import DRAW, Api, bearer


def test_a_version_is_listed_once_per_seat(api: Api) -> None:
    game, ann, bob = api.scripted_game()
    before = LEGAL_MOVES.computed
    first = api.legal(game, ann)
    again = api.legal(game, ann)
    assert first.status_code == again.status_code == 200
    assert first.data == again.data and first.json and first.json["moves"]
    assert LEGAL_MOVES.computed == before + 1
    api.legal(game, bob)  # another seat: its own listing
    assert LEGAL_MOVES.computed == before + 2
    assert api.move(game, ann, DRAW).status_code == 200
    after = api.legal(game, ann)  # a new version: listed anew
    assert after.json and after.json["version"] == first.json["version"] + 1
    assert after.json["moves"] != first.json["moves"]
    assert LEGAL_MOVES.computed == before + 3


def test_not_modified_is_answered_before_any_listing(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    etag = api.view(game).headers["ETag"]
    before = LEGAL_MOVES.computed
    answer = api.client.get(
        f"/games/{game}/legal-moves", headers={**bearer(ann), "If-None-Match": etag}
    )
    assert answer.status_code == 304 and answer.headers["ETag"] == etag
    assert LEGAL_MOVES.computed == before
    # A wrong token is still refused, not answered 304.
    wrong = api.client.get(
        f"/games/{game}/legal-moves", headers={**bearer("nope"), "If-None-Match": etag}
    )
    assert wrong.status_code == 401
