"""Map the engine's and the store's exceptions to problem answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask, Response
from werkzeug.exceptions import HTTPException

from service.games.errors import RematchRefused
from service.http.problems import game_not_found, http_exception_response, problem_response
from service.rules.cards import CardCodeError
from service.rules.engine import FixedDealRefused
from service.rules.moves import IllegalMove, MoveFormatError
from service.rules.options import OptionsError
from service.store.errors import GameNotFound, NotReplicated, StoreUnavailable


def _illegal_move(error: IllegalMove) -> Response:
    return problem_response(409, error.code, error.detail)


def _rematch_refused(error: RematchRefused) -> Response:
    return problem_response(409, error.code, error.detail)


def _move_format(error: MoveFormatError) -> Response:
    # A malformed move body (`service.rules.moves.parse_request`), answered as
    # any body that does not match its schema: `<field>: <message>`.
    field = error.field or "_schema"
    return problem_response(
        422, "validation_error", f"{field}: {error.detail}", errors={field: [error.detail]}
    )


def _options(error: OptionsError) -> Response:
    return problem_response(
        422, "validation_error", "The preset or options are not valid.", errors=error.errors
    )


def _fixed_deal(error: FixedDealRefused) -> Response:
    return problem_response(422, "fixed_deal_refused", error.detail, errors=error.errors)


def _card_code(error: CardCodeError) -> Response:
    return problem_response(422, "validation_error", str(error), errors={"cards": [str(error)]})


def _game_not_found(error: GameNotFound) -> Response:
    return http_exception_response(game_not_found(error.game_id))


def _store_unavailable(error: StoreUnavailable) -> Response:
    detail = "The game store does not answer; retry shortly."
    if isinstance(error, NotReplicated):
        detail = (
            "The game store's replicas did not confirm the write in time; retry shortly "
            "with the same Idempotency-Key."
        )
    return problem_response(503, "store_unavailable", detail, headers={"Retry-After": "1"})


def _too_deep(error: RecursionError) -> Response:
    return problem_response(400, "invalid_json", "The request body is nested too deeply.")


#: The answer to each exception type the engine and the store raise.
HANDLERS: dict[type[Exception], Callable[[Any], Response]] = {
    IllegalMove: _illegal_move,
    RematchRefused: _rematch_refused,
    MoveFormatError: _move_format,
    OptionsError: _options,
    FixedDealRefused: _fixed_deal,
    CardCodeError: _card_code,
    GameNotFound: _game_not_found,
    StoreUnavailable: _store_unavailable,
    RecursionError: _too_deep,
}


def answer_for(error: Exception) -> Response | None:
    """The problem answer the app gives for `error` (a problem or any
    `HTTPException`, or a type of `HANDLERS` or a subclass of one); `None` for
    an error the app answers as unexpected."""
    if isinstance(error, HTTPException):
        return http_exception_response(error)
    for kind in type(error).__mro__:
        handler = HANDLERS.get(kind)
        if handler is not None:
            return handler(error)
    return None


def register(app: Flask) -> None:
    """Install the handlers on the app."""
    for kind, handler in HANDLERS.items():
        app.register_error_handler(kind, handler)
