"""/metrics in one process: request latency by route template, and moves by answer."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask, Response

from service.ops import init_app, metrics


def sample(name: str, **labels: str) -> float:
    """The current value of one sample in this process's registry."""
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def test_requests_are_measured_by_route_template_and_status(
    make_app: Callable[..., Flask],
) -> None:
    client = make_app().test_client()
    count = "rummy_http_request_duration_seconds_count"
    health = sample(count, method="GET", route="/healthz", status="200")
    missing = sample(count, method="GET", route=metrics.UNMATCHED_ROUTE, status="404")
    game = sample(count, method="GET", route="/games/<string:game_id>", status="404")
    assert client.get("/healthz").status_code == 200
    assert client.get("/no/such/path").status_code == 404
    assert client.get("/games/unknown-game").status_code == 404
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.mimetype == "text/plain"
    text = answer.get_data(as_text=True)
    assert "rummy_http_request_duration_seconds_bucket{" in text
    assert sample(count, method="GET", route="/healthz", status="200") == health + 1
    # Unknown paths share one label value: random URLs cannot grow the series.
    assert sample(count, method="GET", route=metrics.UNMATCHED_ROUTE, status="404") == missing + 1
    assert sample(count, method="GET", route="/games/<string:game_id>", status="404") == game + 1


def test_move_answers_are_counted_by_result() -> None:
    def counted(result: str, code: str = "") -> float:
        return sample("rummy_moves_total", type="meld", result=result, code=code)

    cases = [
        (Response("{}", 200), "applied", ""),
        (Response("{}", 200, {"Idempotency-Replayed": "true"}), "replayed", ""),
        (Response('{"code": "invalid_meld"}', 409), "refused", "invalid_meld"),
        (Response("not json", 409), "refused", "unknown"),
        (Response("{}", 412), "stale", ""),
        (Response("{}", 503), "failed", "503"),
    ]
    for response, result, code in cases:
        before = counted(result, code)
        metrics.record_move_answer("meld", response)
        assert counted(result, code) == before + 1, (result, code)


def test_an_app_route_for_metrics_is_kept() -> None:
    app = Flask("declares-metrics")
    app.add_url_rule("/metrics", "documented", lambda: metrics.metrics_view())
    init_app(app)
    assert [r.endpoint for r in app.url_map.iter_rules() if r.rule == "/metrics"] == ["documented"]
    assert b"rummy_moves_total" in app.test_client().get("/metrics").data


def test_a_replayed_answer_is_read_from_its_first_header_in_any_case() -> None:
    def counted(result: str) -> float:
        return sample("rummy_moves_total", type="draw", result=result, code="")

    for headers, result in (
        ([("idempotency-replayed", "true")], "replayed"),
        ([("Idempotency-Replayed", "false"), ("Idempotency-Replayed", "true")], "applied"),
        ([("Idempotency-Replayed", "TRUE")], "applied"),
    ):
        before = counted(result)
        metrics.record_move_answer("draw", Response("{}", 200, headers))
        assert counted(result) == before + 1, headers
