"""Schemathesis hooks of the live CLI run (loaded through ``SCHEMATHESIS_HOOKS``).

Before each call, a generated request that names a well-formed game id is
pointed at one of a pool of real games with a real seat token, as in the
in-process test (see tests/contract/pool.py). The pool is created on first
use through the API at ``RUMMY_CONTRACT_URL``.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import requests
import schemathesis

from tests.contract.pool import Pool, make_games

_lock = threading.Lock()
_pool: Pool | None = None


def _post(path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    answer = requests.post(os.environ["RUMMY_CONTRACT_URL"] + path, json=body, headers=headers)
    return answer.status_code, answer.json()


def _the_pool() -> Pool:
    global _pool
    with _lock:
        if _pool is None:
            _pool = Pool(make_games(_post))
        return _pool


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    """Point the request at a real game and seat, in turn."""
    _the_pool().inject(case)
