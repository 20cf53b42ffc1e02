"""Documenting answers adds no layer around a view (service/api/smorest.py)."""

from __future__ import annotations

from typing import Any

from service.api.smorest import Blueprint


def test_alt_responses_and_doc_stay_on_the_view_itself() -> None:
    blp = Blueprint("t", __name__)

    def view() -> str:
        return "answer"

    documented = blp.doc(operationId="op")(blp.problem(404, "gone")(blp.alt_response(304)(view)))
    assert documented is view
    apidoc: dict[str, Any] = view._apidoc  # type: ignore[attr-defined]
    assert set(apidoc["response"]["responses"]) == {304, 404}
    assert apidoc["manual_doc"] == {"operationId": "op"}


def test_two_views_keep_their_own_docs() -> None:
    blp = Blueprint("t", __name__)

    def first() -> None:
        return None

    def second() -> None:
        return None

    blp.problem(404, "gone")(first)
    blp.problem(409, "conflict")(blp.problem(404, "gone")(second))
    assert set(first._apidoc["response"]["responses"]) == {404}  # type: ignore[attr-defined]
    assert set(second._apidoc["response"]["responses"]) == {404, 409}  # type: ignore[attr-defined]
