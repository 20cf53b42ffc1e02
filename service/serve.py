"""`rummy-service`: serve the app with gunicorn and the production settings.

Defaults to http://127.0.0.1:8000 on the embedded memory store, in one
process (the memory store lives in that process); HOST, PORT, STORE_URL and,
for a shared store such as Redis, WEB_CONCURRENCY are honoured.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: deploy/gunicorn.conf.py of the source tree this package is installed from.
GUNICORN_CONF = Path(__file__).resolve().parent.parent / "deploy" / "gunicorn.conf.py"


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
        argv += ["--worker-class", "service.balanced_worker.BalancedGeventWorker"]
        argv += ["--timeout", "45"]
        argv += ["--workers", env.get("WEB_CONCURRENCY", "1")]
    argv += ["--bind", f"{env['HOST']}:{env['PORT']}", "service.wsgi:app"]
    return argv, env


def main(argv: Sequence[str] | None = None) -> None:
    """Replace this process with gunicorn serving `service.wsgi:app`."""
    command, env = gunicorn_command(dict(os.environ))
    print(
        f"Serving on http://{env['HOST']}:{env['PORT']} (store {env.get('STORE_URL', 'memory://')})",
        flush=True,
    )
    os.execve(command[0], command, env)


if __name__ == "__main__":
    main()
