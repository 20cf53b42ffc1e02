"""`rummy-service` and deploy/gunicorn.conf.py: the settings they give gunicorn."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from service.serving import gc_tuning
from service.serving.cli import GRACEFUL_TIMEOUT, GUNICORN_CONF, banner, gunicorn_command

ROOT = Path(__file__).resolve().parents[2]


def test_rummy_service_serves_the_memory_store_in_one_process_on_localhost() -> None:
    argv, env = gunicorn_command({"WEB_CONCURRENCY": "8"})
    assert argv[-3:] == ["--bind", "127.0.0.1:8000", "service.wsgi:app"]
    assert ["--config", str(GUNICORN_CONF)] == argv[3:5]
    assert env["WEB_CONCURRENCY"] == "1"


def test_rummy_service_stops_without_waiting_out_long_polls() -> None:
    argv, _ = gunicorn_command({})
    at = argv.index("--graceful-timeout")
    assert int(argv[at + 1]) == GRACEFUL_TIMEOUT <= 5  # the config's 40 s waits out long-polls


def test_the_banner_says_where_games_live_and_whether_a_restart_loses_them() -> None:
    env = {"HOST": "127.0.0.1", "PORT": "8000"}
    kept = banner({**env, "STORE_URL": "redis://127.0.0.1:1234/0"}, Path("/srv/rummy-data"))
    assert kept == "Serving on http://127.0.0.1:8000 (games kept in /srv/rummy-data; docs at /docs)"
    lost = banner({**env, "STORE_URL": "memory://"}, None)
    assert "games are lost on restart" in lost
    other = banner({**env, "STORE_URL": "redis://:s3cret@r:6379/0"}, None)
    assert "s3cret" not in other and "r:6379" in other


def test_rummy_service_honours_host_port_and_workers_on_redis() -> None:
    argv, env = gunicorn_command(
        {"HOST": "0.0.0.0", "PORT": "9001", "STORE_URL": "redis://r:6379/0", "WEB_CONCURRENCY": "3"}
    )
    assert "0.0.0.0:9001" in argv
    assert env["WEB_CONCURRENCY"] == "3"


def test_the_gunicorn_config_suits_long_polls() -> None:
    # Read in a child process: the config prepares the metrics directory on import.
    script = (
        "import json, runpy; c = runpy.run_path('deploy/gunicorn.conf.py'); "
        "print(json.dumps({k: c[k] for k in ('bind', 'workers', 'worker_class', "
        "'worker_connections', 'timeout', 'graceful_timeout', 'control_socket_disable')}))"
    )
    env = {"PORT": "8123", "WEB_CONCURRENCY": "3", "STORE_URL": "redis://r:6379/0"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    settings = json.loads(done.stdout.strip().splitlines()[-1])
    assert settings["bind"] == ["0.0.0.0:8123"] and settings["workers"] == 3
    assert settings["worker_class"] == "service.serving.balanced_worker.BalancedGeventWorker"
    assert settings["worker_connections"] >= 100
    assert settings["timeout"] > 30 and settings["graceful_timeout"] > 30
    assert settings["control_socket_disable"] is True
    procfile = (ROOT / "Procfile").read_text()
    assert procfile.startswith("web: gunicorn --config deploy/gunicorn.conf.py service.wsgi:app")


def test_a_worker_freezes_the_loaded_app_out_of_full_collections() -> None:
    # gunicorn calls post_worker_init once the worker has loaded the app.
    script = (
        "import gc, json, runpy\n"
        "import service.wsgi\n"
        "assert gc.get_freeze_count() == 0\n"
        "before = gc.get_threshold()\n"
        "c = runpy.run_path('deploy/gunicorn.conf.py')\n"
        "c['post_worker_init'](None)\n"
        "print(json.dumps([gc.get_freeze_count(), before, gc.get_threshold()]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={"STORE_URL": "memory://"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    frozen, python_default, thresholds = json.loads(done.stdout.splitlines()[-1])
    assert frozen > 10_000  # the app's objects: no full collection walks them again
    assert thresholds == list(gc_tuning.THRESHOLDS) != python_default


def test_the_root_redirects_to_the_docs(app: Any) -> None:
    answer = app.test_client().get("/")
    assert answer.status_code == 302
    assert answer.headers["Location"] == "/docs"
    assert app.test_client().get("/docs").status_code == 200


def test_rummy_service_help_prints_usage_and_serves_nothing() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("rummy-service")), "--help"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: rummy-service")
    for word in ("--host", "--port", "STORE_URL", "/docs"):
        assert word in done.stdout
    bad = subprocess.run(
        [str(Path(sys.executable).with_name("rummy-service")), "--nope"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "usage:" in bad.stderr


@pytest.mark.slow
def test_the_serve_banner_appears_once_the_socket_is_bound(tmp_path: Path) -> None:
    from tests.support.redis_server import find_free_port

    port = find_free_port()
    env = {k: v for k, v in os.environ.items() if k != "STORE_URL"}
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("rummy-service")), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
        env={**env, "DATA_DIR": str(tmp_path / "data")},
    )  # fmt: skip
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith(f"Serving on http://127.0.0.1:{port} "), line
        # The banner comes after the bind: the port takes connections at once.
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        # Stop it once it serves (a worker killed while booting is another story).
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def test_a_data_folder_in_use_is_refused_before_any_server_starts(tmp_path: Path) -> None:
    import fcntl

    from service.serving.embedded import EmbeddedServer

    (tmp_path / "lock").touch()
    with (tmp_path / "lock").open() as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(RuntimeError, match="in use by another rummy-service"):
            EmbeddedServer(tmp_path, executable="/nonexistent").start()
