"""`rummy-service`: serve the app with gunicorn and the production settings.

Defaults to http://127.0.0.1:8000 on the embedded memory store, in one
process (the memory store lives in that process); HOST, PORT, STORE_URL and,
for a shared store such as Redis, WEB_CONCURRENCY are honoured.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: deploy/gunicorn.conf.py of the source tree this package is installed from.
GUNICORN_CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"


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
    argv += ["--bind", f"{env['HOST']}:{env['PORT']}", "service.wsgi:app"]
    return argv, env


def parser() -> argparse.ArgumentParser:
    """The command line of `rummy-service`."""
    command = argparse.ArgumentParser(
        prog="rummy-service",
        description="Serve the Rummy service (HTTP API, /docs) with gunicorn.",
        epilog=(
            "Settings come from the environment: HOST (default 127.0.0.1), PORT (8000), "
            "STORE_URL (memory:// keeps games in this one process; redis://host:port/db "
            "shares them), WEB_CONCURRENCY (worker processes, on a shared store) and the "
            "others listed in the README. The contract is served at /openapi.json, the "
            "interactive docs at /docs."
        ),
    )
    command.add_argument("--host", help="address to listen on (overrides HOST)")
    command.add_argument("--port", type=int, help="port to listen on (overrides PORT)")
    return command


def main(argv: Sequence[str] | None = None) -> None:
    """Replace this process with gunicorn serving `service.wsgi:app`.

    The banner naming the URL is printed by gunicorn's `when_ready` hook
    (deploy/gunicorn.conf.py), once the socket is bound.
    """
    args = parser().parse_args(argv)
    environ = dict(os.environ)
    if args.host:
        environ["HOST"] = args.host
    if args.port is not None:
        environ["PORT"] = str(args.port)
    command, env = gunicorn_command(environ)
    env["RUMMY_SERVE_BANNER"] = (
        f"Serving on http://{env['HOST']}:{env['PORT']} "
        f"(store {env.get('STORE_URL', 'memory://')}; docs at /docs)"
    )
    os.execve(command[0], command, env)


if __name__ == "__main__":
    main()
