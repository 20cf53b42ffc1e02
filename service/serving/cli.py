"""`rummy-service`: serve the app with gunicorn and the production settings.

Without a ``STORE_URL`` it serves on http://127.0.0.1:8000 as production does
(gunicorn on a ``redis://`` store, and the runner process, the Procfile's
``worker``), on a `valkey-server` of its own whose append-only file lives in
``DATA_DIR`` (service/serving/embedded.py): games outlive a restart. With
``STORE_URL=redis://…`` it runs gunicorn and the runner on that Redis; with
``STORE_URL=memory://`` (the tests' store) one gunicorn worker keeps the games,
and runs the runner as a thread, in its memory: the banner says they are lost
on restart. HOST, PORT and, on Redis, WEB_CONCURRENCY are honoured.

`rummy-service` stays the parent of what it starts. On SIGTERM or SIGINT (a
Ctrl-C reaches it alone: its children have process groups of their own) it
stops gunicorn and the runner, waits for them, then stops the server, whose
last writes are then saved. gunicorn's workers end their event streams at
once (the clients reconnect: deploy/gunicorn.conf.py's ``post_worker_init``),
and a long-poll still waiting is cut after `GRACEFUL_TIMEOUT` s, so the whole
stops within a few seconds.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from service.config import Config

#: deploy/gunicorn.conf.py of the source tree this package is installed from.
GUNICORN_CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"

#: gunicorn's ``graceful_timeout`` here (deploy/gunicorn.conf.py's is 40 s, so that
#: a rolling deploy lets the longest long-poll end): on one machine, a stop should
#: not wait out long-polls, whose clients poll again once the service is back.
GRACEFUL_TIMEOUT = 5

#: Seconds gunicorn and the runner have to exit once asked, before SIGKILL.
STOP_TIMEOUT = GRACEFUL_TIMEOUT + 10


def gunicorn_command(environ: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The gunicorn command line and environment `main` runs."""
    env = dict(environ)
    env.setdefault("HOST", "127.0.0.1")
    env.setdefault("PORT", "8000")
    store_url = env.get("STORE_URL", "memory://")
    if store_url.startswith("memory:"):
        env["WEB_CONCURRENCY"] = "1"  # games live in this one process
    argv = [sys.executable, "-m", "gunicorn"]
    if GUNICORN_CONF.is_file():
        argv += ["--config", str(GUNICORN_CONF)]
    else:  # installed without the source tree: the same essentials
        argv += ["--worker-class", "service.serving.balanced_worker.BalancedGeventWorker"]
        argv += ["--timeout", "45"]
        argv += ["--workers", env.get("WEB_CONCURRENCY", "1")]
    argv += ["--graceful-timeout", str(GRACEFUL_TIMEOUT)]
    argv += ["--bind", f"{env['HOST']}:{env['PORT']}", "service.wsgi:app"]
    return argv, env


def runner_command() -> list[str]:
    """The runner process's command line (the Procfile's ``worker``)."""
    return [sys.executable, "-m", "service.worker"]


def banner(env: dict[str, str], data_dir: Path | None) -> str:
    """The line printed once the socket is bound: where it serves, and where games live."""
    where = f"http://{env['HOST']}:{env['PORT']}"
    store_url = env.get("STORE_URL", "memory://")
    if data_dir is not None:
        store = f"games kept in {data_dir}"
    elif store_url.startswith("memory:"):
        store = "store memory://: games are lost on restart"
    else:
        store = f"store {_without_password(store_url)}"
    return f"Serving on {where} ({store}; docs at /docs)"


def _without_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not at:
        return url
    user = userinfo.partition(":")[0]
    return f"{scheme}{sep}{user}:***@{host}" if user else f"{scheme}{sep}***@{host}"


def parser() -> argparse.ArgumentParser:
    """The command line of `rummy-service`."""
    command = argparse.ArgumentParser(
        prog="rummy-service",
        description="Serve the Rummy service (HTTP API, /docs) with gunicorn.",
        epilog=(
            "Settings come from the environment: HOST (default 127.0.0.1), PORT (8000), "
            f"DATA_DIR ({Config.DATA_DIR}: the games, kept by a Redis-protocol server this "
            "command starts), STORE_URL (unset: that server; redis://host:port/db: another "
            "Redis; memory://: in this one process, lost on restart), WEB_CONCURRENCY "
            "(worker processes, on Redis) and the others listed in the README. The contract "
            "is served at /openapi.json, the interactive docs at /docs."
        ),
    )
    command.add_argument("--host", help="address to listen on (overrides HOST)")
    command.add_argument("--port", type=int, help="port to listen on (overrides PORT)")
    return command


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGTERM a child when `rummy-service` dies
    (even by SIGKILL), so nothing it started is left behind."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up now, not after fork
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    return preexec


def _spawn(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    # A process group of its own: a terminal's Ctrl-C reaches `rummy-service`
    # alone, which stops the children in order.
    return subprocess.Popen(argv, env=env, process_group=0, preexec_fn=_die_with_parent())


def _stop(children: list[subprocess.Popen[bytes]]) -> int:
    """SIGTERM every child, SIGKILL those left after `STOP_TIMEOUT`; the first
    failed exit status, else 0."""
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    status = 0
    for child in children:
        try:
            child.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill()
        status = status or child.wait()
    return status


def main(argv: Sequence[str] | None = None) -> None:
    """Serve until SIGTERM or SIGINT, or until gunicorn exits (see the module docstring).

    The banner naming the URL is printed by gunicorn's `when_ready` hook
    (deploy/gunicorn.conf.py), once the socket is bound.
    """
    from service.serving.embedded import EmbeddedServer

    args = parser().parse_args(argv)
    environ = dict(os.environ)
    if args.host:
        environ["HOST"] = args.host
    if args.port is not None:
        environ["PORT"] = str(args.port)
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, on_signal)
    server: EmbeddedServer | None = None
    data_dir: Path | None = None
    if not environ.get("STORE_URL"):
        data_dir = Path(Config.from_env(environ).DATA_DIR or Config.DATA_DIR).resolve()
        try:
            server = EmbeddedServer(data_dir).start()
        except RuntimeError as error:
            raise SystemExit(f"rummy-service: {error}") from None
        environ["STORE_URL"] = server.url
        environ["STORE_PASSWORD"] = server.password
    if stopping.is_set():  # asked to stop while the server loaded its data
        if server is not None:
            server.stop()
        sys.exit(0)
    command, env = gunicorn_command(environ)
    env["RUMMY_SERVE_BANNER"] = banner(env, data_dir)
    children = [_spawn(command, env)]
    if not env["STORE_URL"].startswith("memory:"):
        children.append(_spawn(runner_command(), env))  # memory://: a thread of the web process
    server_died = False
    try:
        # Until a signal, or until a child exits (gunicorn failing to bind, say)
        # or the server does (then nothing could be saved: stop rather than 503).
        while not stopping.wait(0.2):
            if any(child.poll() is not None for child in children):
                break
            if server is not None and not server.running:
                server_died = True
                print(
                    f"rummy-service: the store's server exited:\n{server.log_tail()}",
                    file=sys.stderr,
                )
                break
    finally:
        status = _stop(children)
        if server is not None:
            server.stop()
    if server_died:
        sys.exit(1)
    sys.exit(0 if stopping.is_set() else status)


if __name__ == "__main__":
    main()
