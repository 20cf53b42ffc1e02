"""`ServiceFlask` keeps Flask's behaviour: `ensure_sync`'s answers (each function
checked once) and the order of every hook, signal and view of a request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask import Blueprint, Flask, Response, after_this_request

from service.serving import flaskapp
from service.serving.flaskapp import ServiceFlask


def test_plain_functions_are_checked_once_and_returned_as_they_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[object] = []
    real = flaskapp.inspect.iscoroutinefunction

    def counting(func: object) -> bool:
        checked.append(func)
        return real(func)

    monkeypatch.setattr(flaskapp.inspect, "iscoroutinefunction", counting)
    app = ServiceFlask("t")

    def hook() -> None:
        return None

    class View:
        def get(self) -> None:
            return None

    view = View()
    for _ in range(3):
        assert app.ensure_sync(hook) is hook
        bound = view.get  # a new bound method on every access
        assert app.ensure_sync(bound) == bound
    assert len(checked) == 2


def test_coroutine_functions_are_still_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ServiceFlask("t")
    wrapped: list[Callable[..., Any]] = []

    def to_sync(func: Callable[..., Any]) -> Callable[..., Any]:
        wrapped.append(func)
        return lambda: "sync"

    monkeypatch.setattr(app, "async_to_sync", to_sync)

    async def view() -> str:
        return "async"

    for _ in range(2):
        assert app.ensure_sync(view)() == "sync"
    assert wrapped == [view, view]


def test_other_callables_are_checked_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import functools

    app = ServiceFlask("t")

    def add(a: int, b: int) -> int:
        return a + b

    partial = functools.partial(add, 1)
    assert app.ensure_sync(partial) is partial
    assert partial not in app._is_coroutine  # partials are not kept (new ones each time)


def _traced_app(cls: type[Flask]) -> tuple[Flask, list[str]]:
    """An app of ``cls`` whose every hook, in app and blueprint, notes its call."""
    trace: list[str] = []
    app = cls("t")
    blp = Blueprint("b", __name__, url_prefix="/b")
    inner = Blueprint("i", __name__, url_prefix="/i")

    def note(name: str, answer: Any = None) -> Callable[..., Any]:
        def hook(*args: Any) -> Any:
            trace.append(name)
            return args[0] if name.startswith("after") else answer

        return hook

    for target, prefix in ((app, "app"), (blp, "b"), (inner, "i")):
        target.url_value_preprocessor(lambda endpoint, values, p=prefix: trace.append(f"url-{p}"))
        target.before_request(note(f"before-{prefix}-1"))
        target.before_request(note(f"before-{prefix}-2"))
        target.after_request(note(f"after-{prefix}-1"))
        target.after_request(note(f"after-{prefix}-2"))
        target.teardown_request(
            lambda exc, p=prefix: trace.append(f"teardown-{p}-{type(exc).__name__}")
        )

    @inner.get("/<int:n>")
    def view(n: int) -> str:
        trace.append(f"view-{n}")

        @after_this_request
        def later(response: Response) -> Response:
            trace.append("after-this-request")
            return response

        return "ok"

    @inner.get("/boom")
    def boom() -> str:
        raise ValueError("boom")

    @app.get("/stop")
    def stop() -> str:
        return "unreached"

    blp.register_blueprint(inner)
    app.register_blueprint(blp)
    return app, trace


def test_hooks_run_as_flask_runs_them() -> None:
    """Every override keeps Flask's order: URL preprocessors, before hooks
    (app first), the view, after-this-request, after hooks (innermost
    blueprint first, each in reverse), teardown hooks with the exception."""
    traces = []
    for cls in (Flask, ServiceFlask):
        app, trace = _traced_app(cls)
        client = app.test_client()
        answers = [
            client.get("/b/i/7").status_code,
            client.get("/b/i/boom").status_code,
            client.get("/nowhere").status_code,
            client.options("/b/i/7").headers.get("Allow"),
        ]
        traces.append((answers, trace))
    assert traces[0] == traces[1]
    answers, trace = traces[1]
    assert answers[:3] == [200, 500, 404]
    assert trace[:12] == [
        "url-app", "url-b", "url-i",
        "before-app-1", "before-app-2", "before-b-1", "before-b-2", "before-i-1", "before-i-2",
        "view-7", "after-this-request", "after-i-2",
    ]  # fmt: skip


def test_a_before_hook_answer_stops_the_request() -> None:
    for cls in (Flask, ServiceFlask):
        app = cls("t")
        app.before_request(lambda: ("refused", 429))
        app.add_url_rule("/x", "x", lambda: "reached")
        answer = app.test_client().get("/x")
        assert (answer.status_code, answer.get_data()) == (429, b"refused")


def test_without_a_secret_key_every_request_shares_one_null_session() -> None:
    from flask import session
    from flask.sessions import NullSession

    app = ServiceFlask("t")
    seen: list[object] = []

    @app.get("/read")
    def read() -> str:
        seen.append(session._get_current_object())  # type: ignore[attr-defined]
        return str(session.get("x"))

    @app.get("/write")
    def write() -> str:
        session["x"] = 1  # refused, as Flask refuses it without a secret key
        return "written"

    client = app.test_client()
    assert client.get("/read").get_data() == b"None"
    assert client.get("/read").get_data() == b"None"
    assert len(seen) == 2 and seen[0] is seen[1] and isinstance(seen[0], NullSession)
    app.testing = True  # the view's error reaches the test
    with pytest.raises(RuntimeError, match="no secret key"):
        client.get("/write")
    assert client.get("/read").get_data() == b"None"  # nothing was stored


def test_with_a_secret_key_sessions_are_flasks() -> None:
    from flask import session

    app = ServiceFlask("t")
    app.secret_key = "k"

    @app.get("/count")
    def count() -> str:
        session["n"] = session.get("n", 0) + 1
        return str(session["n"])

    client = app.test_client()
    assert [client.get("/count").get_data() for _ in range(3)] == [b"1", b"2", b"3"]
