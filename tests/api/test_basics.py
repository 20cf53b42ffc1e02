"""Service-wide behaviour: health, docs, problems for bad requests, CORS, the 500 fallback."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.config import Config, TestConfig, store_settings
from tests.api.helpers import Api, problem


def test_healthz_and_readyz(client: FlaskClient) -> None:
    assert client.get("/healthz").json == {"status": "ok"}
    assert client.get("/readyz").json == {"status": "ready"}


def test_readyz_answers_503_when_the_store_is_down(make_app: Callable[..., Flask]) -> None:
    # Nothing listens on port 1: the store cannot answer.
    app = make_app(replace(TestConfig(), STORE_URL="redis://127.0.0.1:1/0"))
    answer = app.test_client().get("/readyz")
    problem(answer, 503, "store_unavailable")
    assert answer.headers["Retry-After"] == "1"


def test_a_game_request_answers_503_when_the_store_is_down(make_app: Callable[..., Flask]) -> None:
    app = make_app(replace(TestConfig(), STORE_URL="redis://127.0.0.1:1/0"))
    client = app.test_client()
    problem(client.get("/games/abc"), 503, "store_unavailable")
    answer = client.post("/games", json={"seats": [{"name": "A"}, {"name": "B"}]})
    problem(answer, 503, "store_unavailable")
    assert answer.headers["Retry-After"] == "1"


def test_openapi_is_3_1_and_docs_are_served_without_a_cdn(client: FlaskClient) -> None:
    spec = client.get("/openapi.json").json
    assert spec is not None and spec["openapi"] == "3.1.0"
    page = client.get("/docs").get_data(as_text=True)
    assert "/docs/static/swagger-ui-bundle.js" in page
    assert "//cdn" not in page and "unpkg" not in page and "jsdelivr" not in page
    bundle = client.get("/docs/static/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and len(bundle.get_data()) > 100_000


def test_unknown_route_is_a_404_problem(client: FlaskClient) -> None:
    problem(client.get("/no/such/thing"), 404, "not_found")


def test_unknown_game_is_game_not_found(api: Api) -> None:
    problem(api.view("NoSuchGame123"), 404, "game_not_found")
    problem(api.view("bad id!"), 404, "game_not_found")
    problem(api.legal("NoSuchGame123", "tok"), 404, "game_not_found")
    problem(api.events("NoSuchGame123"), 404, "game_not_found")
    problem(
        api.move("NoSuchGame123", "tok", {"type": "draw", "source": "stock"}), 404, "game_not_found"
    )
    problem(api.client.post("/games/NoSuchGame123/join", json={"name": "Z"}), 404, "game_not_found")


def test_405_keeps_the_allow_header(client: FlaskClient) -> None:
    answer = client.delete("/games")
    problem(answer, 405, "method_not_allowed")
    assert set(answer.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


def test_malformed_json_is_400_invalid_json(client: FlaskClient) -> None:
    answer = client.post("/games", data=b'{"seats": [', content_type="application/json")
    problem(answer, 400, "invalid_json")


def test_deeply_nested_json_is_a_4xx(client: FlaskClient) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    problem(
        client.post("/games", data=deep[:60_000] + deep[-60:], content_type="application/json"),
        400,
        "invalid_json",
    )
    nested = (
        b'{"seats": [{"name": "A"}, {"name": "B"}], "options": {"x": '
        + b"[" * 5000
        + b"]" * 5000
        + b"}}"
    )
    answer = client.post("/games", data=nested, content_type="application/json")
    assert 400 <= answer.status_code < 500
    assert answer.mimetype == "application/problem+json"


def test_huge_arrays_are_422(client: FlaskClient) -> None:
    body = {"seats": [{"name": "A"}, {"name": "B"}], "deck": ["H2"] * 5000}
    problem(client.post("/games", json=body), 422, "validation_error")
    many_seats = {"seats": [{"name": "A"}] * 1000}
    problem(client.post("/games", json=many_seats), 422, "validation_error")


def test_body_too_large_is_413(client: FlaskClient) -> None:
    body = b'{"seats": [], "pad": "' + b"x" * (70 * 1024) + b'"}'
    answer = client.post("/games", data=body, content_type="application/json")
    body_json = problem(answer, 413, "body_too_large")
    assert "65536" in body_json["detail"]


def test_max_content_length_is_configurable(make_app: Callable[..., Flask]) -> None:
    app = make_app(replace(TestConfig(), MAX_CONTENT_LENGTH=100))
    answer = app.test_client().post(
        "/games", json={"seats": [{"name": "A" * 60}, {"name": "B" * 60}]}
    )
    problem(answer, 413, "body_too_large")


def test_non_json_body_is_415(client: FlaskClient) -> None:
    answer = client.post("/games", data="seats=2", content_type="application/x-www-form-urlencoded")
    problem(answer, 415, "unsupported_media_type")


def test_validation_error_lists_fields(client: FlaskClient) -> None:
    body = problem(
        client.post("/games", json={"seats": "two", "bogus": 1}), 422, "validation_error"
    )
    assert "seats" in body["errors"] and "bogus" in body["errors"]
    problem(client.post("/games"), 422, "validation_error")


def test_cors_is_off_by_default(client: FlaskClient) -> None:
    answer = client.get("/healthz", headers={"Origin": "https://app.example"})
    assert "Access-Control-Allow-Origin" not in answer.headers


def test_cors_allows_configured_origins_and_exposes_headers(make_app: Callable[..., Flask]) -> None:
    app = make_app(replace(TestConfig(), CORS_ORIGINS=("https://app.example",)))
    client = app.test_client()
    answer = client.get("/healthz", headers={"Origin": "https://app.example"})
    assert answer.headers["Access-Control-Allow-Origin"] == "https://app.example"
    exposed = answer.headers["Access-Control-Expose-Headers"]
    assert "ETag" in exposed and "Location" in exposed and "Retry-After" in exposed
    preflight = client.options(
        "/games/x/moves",
        headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 200
    assert "If-Match" in preflight.headers["Access-Control-Allow-Headers"]
    other = client.get("/healthz", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers


def test_config_reads_the_environment() -> None:
    config = Config.from_env(
        {
            "STORE_URL": "redis://r:6379/1",
            "MAX_CONTENT_LENGTH": "1000",
            "CORS_ORIGINS": "https://a.example, https://b.example",
            "IDLE_TTL": "60",
            "LONGPOLL_MAX": "99",
            "LONGPOLL_SUBSCRIBERS": "12",
            "STORE_PIPELINING": "0",
            "QUOTA_PENDING": "2.5",
            "DATA_DIR": "/srv/games",
            "STORE_WAIT_REPLICAS": "2",
            "STORE_WAIT_TIMEOUT_MS": "0",
        }
    )
    assert config.STORE_URL == "redis://r:6379/1"
    assert config.MAX_CONTENT_LENGTH == 1000
    assert config.CORS_ORIGINS == ("https://a.example", "https://b.example")
    assert config.IDLE_TTL == 60
    assert config.LONGPOLL_MAX == 30.0  # never more than the documented 30 s
    assert config.LONGPOLL_SUBSCRIBERS == 12
    assert config.STORE_PIPELINING is False and Config().STORE_PIPELINING is True
    assert config.QUOTA_PENDING == 2.5
    assert store_settings(config.flask_settings())["quota_pending"] == 2.5
    assert config.DATA_DIR == "/srv/games" and Config().DATA_DIR == "rummy-data"
    assert (config.STORE_WAIT_REPLICAS, Config().STORE_WAIT_REPLICAS) == (2, 0)  # off by default
    assert config.STORE_WAIT_TIMEOUT_MS == 1 and Config().STORE_WAIT_TIMEOUT_MS == 500
    waiting = store_settings(config.flask_settings())
    assert (waiting["wait_replicas"], waiting["wait_timeout_ms"]) == (2, 1)
    assert Config.from_env({}) == Config()


def test_config_reads_the_abuse_limits() -> None:
    config = Config.from_env(
        {
            "QUOTA_BOT_GAMES": "4",
            "LONGPOLL_WAITING_MAX": "50",
            "LONGPOLL_PER_ADDRESS": "-3",
            "IDEMPOTENCY_BYTES": "2048",
        }
    )
    assert (config.QUOTA_BOT_GAMES, config.LONGPOLL_WAITING_MAX) == (4, 50)
    assert config.LONGPOLL_PER_ADDRESS == 0  # no limit, never a negative one
    assert store_settings(config.flask_settings())["idempotency_bytes"] == 2048
    defaults = Config()
    assert (defaults.QUOTA_BOT_GAMES, defaults.QUOTA_ACTIVE_GAMES) == (10, 100)
    assert (defaults.LONGPOLL_WAITING_MAX, defaults.LONGPOLL_PER_ADDRESS) == (200, 20)
    assert defaults.IDEMPOTENCY_BYTES == 8192


@pytest.mark.parametrize("name", ["STREAM_PUSH_INTERVAL", "WAKEUP_READ_INTERVAL"])
@pytest.mark.parametrize(
    ("given", "taken"), [("0", 0.0), ("0.2", 0.2), ("1", 1.0), ("1.5", 1.0), ("-1", 0.0)]
)
def test_stream_intervals_are_bounded(name: str, given: str, taken: float) -> None:
    """`STREAM_PUSH_INTERVAL` and `WAKEUP_READ_INTERVAL` are 0 (each save written,
    or read, at once) to 1 s, 50 ms by default; the store is given the read interval."""
    assert getattr(Config(), name) == 0.05
    config = Config.from_env({name: given})
    interval = getattr(config, name)
    assert interval == taken
    settings = store_settings(config.flask_settings())
    assert settings["wakeup_read_interval"] == config.WAKEUP_READ_INTERVAL


def _app_with_failing_route(make_app: Callable[..., Flask], raise_unexpected: bool) -> Flask:
    app = make_app(replace(TestConfig(), RAISE_UNEXPECTED=raise_unexpected))

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("boom")

    return app


def test_unexpected_errors_become_a_logged_500_problem(
    caplog: pytest.LogCaptureFixture, make_app: Callable[..., Flask]
) -> None:
    app = _app_with_failing_route(make_app, raise_unexpected=False)
    body = problem(app.test_client().get("/boom"), 500, "internal_error")
    assert "boom" not in body["detail"]
    assert any("unexpected error" in r.message for r in caplog.records)


def test_test_config_raises_unexpected_errors(make_app: Callable[..., Flask]) -> None:
    # The suite runs with RAISE_UNEXPECTED: any request that reached the
    # fallback would fail its test instead of passing as a 500.
    app = _app_with_failing_route(make_app, raise_unexpected=True)
    with pytest.raises(RuntimeError):
        app.test_client().get("/boom")


POSTS = ["/games", "/games/{game}/join", "/games/{game}/moves"]
GETS = [
    "/games",
    "/games/{game}",
    "/games/{game}/legal-moves",
    "/games/{game}/events",
    "/readyz",
]


@pytest.mark.parametrize("path", POSTS)
def test_every_post_answers_400_413_415_as_problems(api: Api, path: str) -> None:
    created = api.create(seats=[{"name": "Ann"}, {"name": None}]).json
    assert created is not None
    url = path.format(game=created["id"])
    token = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    client = api.client
    problem(
        client.post(url, data=b"{", content_type="application/json", headers=token),
        400,
        "invalid_json",
    )
    big = b'{"x": "' + b"y" * 70_000 + b'"}'
    problem(
        client.post(url, data=big, content_type="application/json", headers=token),
        413,
        "body_too_large",
    )
    problem(
        client.post(url, data=b"a=b", content_type="text/plain", headers=token),
        415,
        "unsupported_media_type",
    )


@pytest.mark.parametrize("path", POSTS + GETS)
def test_every_store_endpoint_answers_503_when_the_store_is_down(
    path: str, make_app: Callable[..., Flask]
) -> None:
    app = make_app(replace(TestConfig(), STORE_URL="redis://127.0.0.1:1/0"))
    client = app.test_client()
    url = path.format(game="SomeGame123")
    if path in POSTS:
        body = {"seats": [{"name": "A"}, {"name": "B"}]} if path == "/games" else {"name": "B"}
        if path.endswith("/moves"):
            body = {"type": "draw", "source": "stock"}
        answer = client.post(url, json=body, headers={"Authorization": "Bearer x"})
    else:
        answer = client.get(url, headers={"Authorization": "Bearer x"})
    problem(answer, 503, "store_unavailable")
    assert answer.headers["Retry-After"] == "1"
