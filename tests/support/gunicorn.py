"""A real gunicorn serving the app with the production config (deploy/gunicorn.conf.py).

`GunicornServer(env={...}).start()` runs it on a free port with the given
environment, waits for `/healthz`, and `stop()` ends it (SIGTERM, then SIGKILL).
With a shared store (``STORE_URL`` redis) it also runs the `worker` process of
the Procfile (``python -m service.worker``), as a deployment does, unless
``runner=False``.
Like the test Redis servers, a gunicorn master dies with the test process, even a
killed one, so a test run leaves no server behind.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.redis_server import _die_with_parent, find_free_port

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "gunicorn.conf.py"

_live: set[GunicornServer] = set()


def _established_on(port: int) -> set[str]:
    """Socket inodes of established TCP connections whose local port is `port`."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                inodes.add(fields[9])
    return inodes


@atexit.register
def _stop_all() -> None:
    for server in list(_live):
        server.stop(timeout=5)


class GunicornServer:
    """One gunicorn master and its workers, started by the tests."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        workers: int = 2,
        command: list[str] | None = None,
        runner: bool | None = None,
    ) -> None:
        #: What to run; default: gunicorn with the production config.
        self.command = command or [
            sys.executable, "-m", "gunicorn", "--config", str(CONFIG), "service.wsgi:app"
        ]  # fmt: skip
        self.port = find_free_port()
        self.env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(self.port)}
        self.env["WEB_CONCURRENCY"] = str(workers)
        self.env.update(env or {})
        self.process: subprocess.Popen[bytes] | None = None
        #: Whether to run the runner process beside gunicorn (default: with Redis).
        self.runner = (
            runner if runner is not None else self.env.get("STORE_URL", "").startswith("redis")
        )
        #: The runner process (service/worker.py), when running.
        self.runner_process: subprocess.Popen[bytes] | None = None
        self._runners: list[subprocess.Popen[bytes]] = []
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the server
            prefix="gunicorn-", suffix=".log", delete=False
        )

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> GunicornServer:
        """Start gunicorn and wait until `/healthz` answers 200."""
        self.process = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent(),
        )
        _live.add(self)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited early:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        # After the master's start-up (which empties the metrics
                        # directory the runner writes its counts to as well).
                        if self.runner:
                            self.start_runner()
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer /healthz:\n{self.log_tail()}")

    def start_runner(self) -> subprocess.Popen[bytes]:
        """Start the runner process with the server's environment (a second one
        when one runs already: several runners may share a store)."""
        process = subprocess.Popen(
            [sys.executable, "-m", "service.worker"],
            cwd=ROOT,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent(),
        )
        self._runners.append(process)
        self.runner_process = process
        return process

    def stop_runner(self, timeout: float = 10.0) -> None:
        """Stop every runner process (SIGTERM, then SIGKILL)."""
        for process in self._runners:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(5)
        self._runners.clear()
        self.runner_process = None

    def stop(self, timeout: float = 3.0) -> None:
        """Stop gunicorn (graceful first) and the runner; safe to call twice.

        A worker shuts down gracefully only once its clients have closed their
        connections (up to the config's `graceful_timeout`); a browser or a stream
        left open would hold a test's teardown that long, so the process group is
        killed after ``timeout`` seconds."""
        _live.discard(self)
        self.stop_runner(timeout)
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(5)

    def worker_pids(self) -> list[int]:
        """The pids of the master's worker processes (from /proc)."""
        assert self.process is not None
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                pids.append(int(stat.parent.name))
        return pids

    def connections_per_worker(self) -> Counter[int]:
        """Established client connections on this server's port, per worker pid."""
        served = _established_on(self.port)
        counts: Counter[int] = Counter()
        for pid in self.worker_pids():
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith("socket:[") and target[8:-1] in served:
                    counts[pid] += 1
        return counts

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of gunicorn's output."""
        self._log.flush()
        text = Path(self._log.name).read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> GunicornServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
