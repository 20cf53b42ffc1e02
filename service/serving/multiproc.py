"""Prometheus multi-process mode under gunicorn: the metric files' directory.

With several gunicorn workers each process counts on its own, so
prometheus_client writes every worker's values to files in
``PROMETHEUS_MULTIPROC_DIR`` and ``/metrics`` sums them. The variable must be
set before prometheus_client is first imported, so ``deploy/gunicorn.conf.py``
calls :func:`prepare_dir` when it is loaded (in the master, before the app),
and :func:`mark_worker_dead` from its ``child_exit`` hook.

This module imports nothing from prometheus_client at import time.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

ENV_VAR = "PROMETHEUS_MULTIPROC_DIR"


def prepare_dir(environ: MutableMapping[str, str] | None = None, *, clear: bool = True) -> Path:
    """Make the metric files' directory exist and, with ``clear``, empty it; return it.

    Uses ``PROMETHEUS_MULTIPROC_DIR`` when set (the container images set it),
    else creates a private temporary directory and sets the variable, so the
    worker processes forked later all write there. Files left by an earlier
    run of the server would be summed into the new one's counters, hence
    ``clear`` (gunicorn's ``on_starting``: once, before the first worker).
    """
    env = os.environ if environ is None else environ
    configured = env.get(ENV_VAR)
    if configured:
        path = Path(configured)
        path.mkdir(parents=True, exist_ok=True)
        if not clear:
            return path
        for child in path.iterdir():
            if child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)
    else:
        path = Path(tempfile.mkdtemp(prefix="rummy-metrics-"))
        env[ENV_VAR] = str(path)
        _private_dirs.append(path)
    return path


_private_dirs: list[Path] = []


def remove_private_dir() -> None:
    """Delete the directory :func:`prepare_dir` made (gunicorn ``on_exit``, master)."""
    while _private_dirs:
        shutil.rmtree(_private_dirs.pop(), ignore_errors=True)


def mark_worker_dead(pid: int) -> None:
    """Tell prometheus_client that worker ``pid`` exited (gunicorn ``child_exit``).

    Does nothing outside multi-process mode: prometheus_client fails there.
    """
    if os.environ.get(ENV_VAR):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
