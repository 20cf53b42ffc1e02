"""`rummy_moves_total` is counted by the move handler from its answer, not read
back from the request log."""

from __future__ import annotations

import pytest

from service.ops import metrics, request_log
from tests.api.helpers import Api


def counted(move_type: str, result: str, code: str = "") -> float:
    """The count of one label set in this process's registry."""
    labels = {"type": move_type, "result": result, "code": code}
    return metrics.REGISTRY.get_sample_value("rummy_moves_total", labels) or 0.0


def test_moves_count_by_their_answer_with_the_request_log_saying_nothing(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(request_log, "annotate", lambda **fields: None)
    game, ann, bob = api.scripted_game()
    to_move = ann if api.legal(game, ann).json["moves"] else bob  # type: ignore[index]
    other = bob if to_move == ann else ann

    before = {
        "applied": counted("draw", "applied"),
        "refused": counted("discard", "refused", "must_draw_first"),
        "not_your_turn": counted("draw", "refused", "not_your_turn"),
        "no_seat": counted("draw", "failed", "401"),
        "stale": counted("draw", "stale"),
    }
    discard = {"type": "discard", "card": "2C"}
    assert api.move(game, to_move, discard).status_code == 409
    assert api.move(game, other, {"type": "draw", "source": "stock"}).status_code == 409
    assert api.move(game, None, {"type": "draw", "source": "stock"}).status_code == 401
    stale = api.move(game, to_move, {"type": "draw", "source": "stock"}, **{"If-Match": '"999"'})
    assert stale.status_code == 412
    assert api.move(game, to_move, {"type": "draw", "source": "stock"}).status_code == 200

    assert counted("draw", "applied") == before["applied"] + 1
    assert counted("discard", "refused", "must_draw_first") == before["refused"] + 1
    assert counted("draw", "refused", "not_your_turn") == before["not_your_turn"] + 1
    assert counted("draw", "failed", "401") == before["no_seat"] + 1
    assert counted("draw", "stale") == before["stale"] + 1
