"""Self-play over HTTP against a real gunicorn: every game finishes, no error."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from service.bots.selfplay import percentile, run_selfplay
from tests.support.gunicorn import ROOT

# Whole games over HTTP against a real gunicorn.
pytestmark = pytest.mark.slow


def test_twenty_self_played_games_over_http_have_no_error(service_url: str) -> None:
    report = run_selfplay(service_url, 20, seats=3, preset="express", concurrency=4, seed=100)
    assert report.errors == []
    assert report.finished == 20
    assert sum(report.wins_by_seat) == 20
    assert report.moves > 20 * 3  # every seat moved in every game
    assert report.stale == 0  # one seat moves at a time: no version race
    lat = report.latencies_ms
    assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"]


def test_selfplay_command_with_a_long_polling_thread_per_seat(service_url: str) -> None:
    command = [sys.executable, "-m", "service.bots.selfplay", "--url", service_url, "--json"]
    command += ["--games", "2", "--seats", "3", "--preset", "express", "--concurrency", "2"]
    command += ["--seed", "7", "--mode", "threads"]
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == report["finished"] == 2
    assert report["errors"] == []
    assert report["moves"] > 0 and report["moves_per_second"] > 0


def test_selfplay_reports_a_service_it_cannot_reach() -> None:
    report = run_selfplay("http://127.0.0.1:9", 2, seats=2, concurrency=1, retries=1)
    assert report.finished == 0
    assert len(report.errors) == 2
    assert all("gave up" in e for e in report.errors)


def test_percentiles_by_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([], 0.5) == 0.0


def test_expert_clients_self_play_over_http(service_url: str) -> None:
    """`--strategy expert`: each seat's client searches on its own view only (on the
    tests' small budget) and the games end without an error."""
    report = run_selfplay(
        service_url, 2, seats=2, preset="express", strategy="expert", concurrency=2, seed=3
    )
    assert report.errors == [] and report.finished == 2
