"""The Procfile passes `honcho check`, names `web` and `worker`, and `web` serves /healthz."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.deploy.conftest import ROOT, venv_tool
from tests.support.redis_server import find_free_port


def honcho_check(root: Path) -> str:
    """`honcho check` in ``root``; its output (it fails the test on a non-zero exit)."""
    result = subprocess.run(
        [venv_tool("honcho"), "check"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def test_honcho_check_passes_and_finds_web_and_worker() -> None:
    # honcho skips lines it cannot read, so the check must also name both.
    assert "Valid procfile detected (web, worker)" in honcho_check(ROOT)


def test_the_worker_line_runs_the_runner() -> None:
    lines = dict(line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines())
    assert lines["worker"] == "python -m service.worker"


def test_honcho_check_names_what_it_found(tmp_path: Path) -> None:
    (tmp_path / "Procfile").write_text("worker: sleep 1\nnot a process line\n")
    assert "Valid procfile detected (worker)" in honcho_check(tmp_path)


def get_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=1) as answer:
            return int(answer.status)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


@pytest.mark.slow  # starts gunicorn through honcho: seconds
def test_web_process_started_by_honcho_answers_healthz(tmp_path: Path) -> None:
    port = find_free_port()
    env = {
        **os.environ,
        # The Procfile's commands are found on PATH, as on a platform.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOST": "127.0.0.1",
        "STORE_URL": "memory://",
        "WEB_CONCURRENCY": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
    }
    log = (tmp_path / "honcho.log").open("wb")
    honcho = subprocess.Popen(
        [venv_tool("honcho"), "--no-colour", "start", "--port", str(port), "web"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        status = None
        deadline = time.monotonic() + 90  # generous: the machine may be busy
        while status != 200 and time.monotonic() < deadline and honcho.poll() is None:
            status = get_status(f"http://127.0.0.1:{port}/healthz")
            time.sleep(0.1)
        output = (tmp_path / "honcho.log").read_text(errors="replace")
        assert status == 200, output
        assert "web.1" in output
    finally:
        honcho.send_signal(signal.SIGTERM)
        try:
            honcho.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(honcho.pid, signal.SIGKILL)
            honcho.wait(5)
        log.close()
