"""Schemathesis in-process (WSGI): every operation, all checks, real seat tokens, and links.

The schema is the one the app serves, with the settings of `schemathesis.toml`.
Generated requests that name a well-formed game id are pointed, in turn, at
real games (waiting, active, finished, bots) and given a real seat token, so
the checks see the answers of authorised requests too, not only 404 and 401.
The stateful test follows the OpenAPI links the document declares: create →
join → view → legal moves → moves, with `ETag` carried into `If-Match`.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis import Case
from schemathesis.config import SchemathesisConfig
from schemathesis.openapi import from_wsgi

from service.app import create_app, shutdown
from service.config import Config, TestConfig
from tests.contract.pool import Pool, declare_auth, make_games

# Thousands of generated requests: part of the full suite, not the edit loop.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: Long-polls of generated requests are kept short; the served document says so.
LONGPOLL_MAX = 0.2
#: Event streams of generated requests end soon (their answer is read whole).
STREAM_LIFETIME = 0.2

CONFIG = SchemathesisConfig.from_path(str(ROOT / "schemathesis.toml"))
#: Bot play inside a request keeps the production budget (the test settings lift
#: its time bound): a generated game of expert bots is then answered at once.
SETTINGS_OF_APP = replace(
    TestConfig(),
    LONGPOLL_MAX=LONGPOLL_MAX,
    STREAM_LIFETIME=STREAM_LIFETIME,
    BOT_SECONDS_PER_REQUEST=Config.BOT_SECONDS_PER_REQUEST,
)
APP: Flask = create_app(SETTINGS_OF_APP)
SCHEMA = from_wsgi("/openapi.json", APP, config=CONFIG)


class FreshApp:
    """A WSGI app whose store can be started empty again (`renew`).

    Which links the stateful test may follow depends on what the app answers (the
    lobby above all), and Hypothesis needs the same answers each time a sequence of
    steps draws the same choices: each sequence starts on an empty store, so what it
    finds is only what its own steps made."""

    def __init__(self) -> None:
        self.app: Flask = create_app(SETTINGS_OF_APP)

    def renew(self) -> None:
        """Stop the current app and put a new one, with an empty store, in its place."""
        shutdown(self.app)
        self.app = create_app(SETTINGS_OF_APP)

    def __call__(self, environ: Any, start_response: Any) -> Any:
        return self.app(environ, start_response)


STATEFUL_APP = FreshApp()
STATEFUL_SCHEMA = from_wsgi("/openapi.json", STATEFUL_APP, config=CONFIG)


@pytest.fixture(scope="module", autouse=True)
def _shut_down_the_apps() -> Iterator[None]:
    """Stop the module's apps (their runner threads) once its tests are done."""
    yield
    for app in (APP, STATEFUL_APP.app):
        shutdown(app)


#: Examples per operation (the live CLI run goes further: see test_live_cli.py).
EXAMPLES = 60
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _post(path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    answer = APP.test_client().post(path, json=body, headers=headers)
    return answer.status_code, answer.json


@functools.cache
def pool() -> Pool:
    """The games the cases are pointed at, made by the first case that needs them.

    Not at import: the pool's all-bot game is played within a request's production
    time budget, and on a loaded machine what is left of it queues the game and
    starts `APP`'s runner thread; made at collection, that thread ran outside every
    module and outlived them all. Made in a test, it is stopped with the module."""
    return Pool(make_games(_post))


@SCHEMA.parametrize()
@SETTINGS
def test_every_operation_answers_as_documented(case: Case) -> None:
    """Every check of Schemathesis passes on every operation (see schemathesis.toml)."""
    pool().inject(case)
    case.call_and_validate()


class LinkedWorkflow(STATEFUL_SCHEMA.as_state_machine()):  # type: ignore[misc]
    """Sequences of calls that follow the declared links from `POST /games`."""

    def setup(self) -> None:
        """Each sequence of steps starts on an empty store (see `FreshApp`)."""
        STATEFUL_APP.renew()

    def before_call(self, case: Case) -> None:
        """A seat token from a link is a real one (see `declare_auth`)."""
        declare_auth(case)


TestLinkedWorkflow = LinkedWorkflow.TestCase
TestLinkedWorkflow.settings = settings(
    SETTINGS, max_examples=40, stateful_step_count=8, phases=[hypothesis.Phase.generate]
)


def test_the_links_reach_every_step_of_a_game() -> None:
    """The declared links chain create → join → view → legal moves → moves."""
    document = APP.test_client().get("/openapi.json").json
    assert document is not None
    links: dict[str, set[str]] = {}
    for path in document["paths"].values():
        for operation in path.values():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            targets = links.setdefault(operation["operationId"], set())
            for answer in operation["responses"].values():
                targets |= {link["operationId"] for link in answer.get("links", {}).values()}
    assert {"joinGame", "getGame", "getLegalMoves", "makeMove"} <= links["createGame"]
    assert {"getGame", "getLegalMoves", "makeMove"} <= links["joinGame"]
    assert "makeMove" in links["getLegalMoves"]
    assert {"makeMove", "getLegalMoves", "getGame"} <= links["makeMove"]


def test_importing_this_module_starts_no_runner_thread() -> None:
    """Collection makes no game: with a request's bot time all but used up (as on a
    loaded machine), importing the module leaves no runner thread behind."""
    probe = (
        "import threading\n"
        "from service.config import Config\n"
        "Config.BOT_SECONDS_PER_REQUEST = 0.001\n"
        "import tests.contract.test_schemathesis\n"
        "print(sorted(t.name for t in threading.enumerate()))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip().splitlines()[-1] == "['MainThread']"
