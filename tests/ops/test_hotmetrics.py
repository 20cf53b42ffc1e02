"""`service.serving.hotmetrics`: in multi-process mode the hot children write what
prometheus_client's own would, each process in its own file, read at once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from service.ops import metrics
from service.serving import hotmetrics

# Run in a fresh interpreter: prometheus_client picks its mode when imported.
RECORD = textwrap.dedent(
    """
    import os, sys
    from service.ops import metrics
    from service.serving import hotmetrics
    if sys.argv[1] == "plain":  # prometheus_client's own children, in its own files
        hotmetrics.multiprocess = lambda: False
    from service.ops import store_metrics  # noqa: F401 - makes the store's children
    for seconds in (0.0001, 0.0002, 0.003, 0.07, 0.5, 3.0, 99.0):
        metrics.STORE_DURATIONS.labels("load").observe(seconds)
        metrics._REQUEST_DURATIONS.labels("POST", "/games/<game_id>/moves", "200").observe(seconds)
    for result in ("applied", "applied", "stale"):
        metrics.record_move("draw", result)
    if sys.argv[3:] == ["grow"]:
        # Series enough to outgrow the files' first map (64 KB), which is made anew:
        # the first series are still written in the right place.
        for n in range(300):
            metrics._REQUEST_DURATIONS.labels("GET", f"/grow/{n}", "200").observe(0.001)
        metrics.STORE_DURATIONS.labels("load").observe(0.002)
        metrics.record_move("draw", "applied")
    if sys.argv[2] == "fork":
        pid = os.fork()
        if pid == 0:  # the child's counts start over, in its own file
            metrics.record_move("draw", "applied")
            metrics.STORE_DURATIONS.labels("save").observe(0.004)
            os._exit(0)
        os.waitpid(pid, 0)
        metrics.record_move("draw", "applied")
    sys.stdout.write(metrics.render()[0].decode())
    """
)


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape by (name, labels), whatever the order of the lines."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def record(
    tmp_path: Path, name: str, how: str, fork: str = "", *more: str
) -> tuple[str, list[str]]:
    directory = tmp_path / name
    directory.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    done = subprocess.run(
        [sys.executable, "-c", RECORD, how, fork, *more], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, sorted(path.name for path in directory.iterdir())


def test_the_scrape_is_the_one_prometheus_client_would_give(tmp_path: Path) -> None:
    hot, hot_files = record(tmp_path, "hot", "hot")
    plain, plain_files = record(tmp_path, "plain", "plain")
    assert samples(hot) == samples(plain)
    families = [
        {(f.name, f.documentation, f.type) for f in text_string_to_metric_families(text)}
        for text in (hot, plain)
    ]
    assert families[0] == families[1]
    assert 'rummy_moves_total{code="",result="applied",type="draw"} 2.0' in hot
    assert 'rummy_store_operation_duration_seconds_bucket{le="0.005",operation="load"} 3.0' in hot
    assert 'rummy_store_operation_duration_seconds_count{operation="ping"} 0.0' in hot
    pid = hot_files[0].split("_")[1].removesuffix(".db")
    assert hotmetrics.file_name("histogram", int(pid)) in hot_files
    assert not any(name.endswith(f"_{hotmetrics.FILE_SUFFIX}.db") for name in plain_files)


def test_a_forked_process_counts_in_its_own_file(tmp_path: Path) -> None:
    text, files = record(tmp_path, "forked", "hot", "fork")
    assert 'rummy_moves_total{code="",result="applied",type="draw"} 4.0' in text
    assert 'rummy_store_operation_duration_seconds_count{operation="save"} 1.0' in text
    assert len([name for name in files if name.startswith("counter_") and "_hot" in name]) == 2


def test_one_process_uses_prometheus_client_children() -> None:
    assert not hotmetrics.multiprocess()  # the test suite's own process
    child = metrics.STORE_DURATIONS.labels("load")
    assert child is metrics.STORE_DURATION.labels("load")
    assert metrics.STORE_DURATIONS.labels("load") is child


def test_values_stay_in_place_when_the_file_grows(tmp_path: Path) -> None:
    hot, hot_files = record(tmp_path, "hot", "hot", "", "grow")
    plain, _ = record(tmp_path, "plain", "plain", "", "grow")
    assert samples(hot) == samples(plain)
    assert 'rummy_store_operation_duration_seconds_count{operation="load"} 8.0' in hot
    assert 'rummy_moves_total{code="",result="applied",type="draw"} 3.0' in hot
    histograms = tmp_path / "hot" / next(name for name in hot_files if "histogram" in name)
    assert histograms.stat().st_size > 64 * 1024  # the file did outgrow its first map
