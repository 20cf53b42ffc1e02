"""Shared pytest set-up: throwaway Redis servers and the Hypothesis profile."""

from __future__ import annotations

import os
import sys
import threading
import traceback
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from hypothesis import settings

from service.app import create_app, shutdown
from service.config import Config, TestConfig
from service.store.base import GameStore
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from tests.support.browser import browser, page_log  # noqa: F401  (fixtures)
from tests.support.redis_server import RedisCluster, RedisServer

# Property tests draw the same examples on every run, so a run that passed
# here passes in CI, and a failure reproduces. HYPOTHESIS_PROFILE=explore
# draws new examples (run it now and then to search further). The fast tier
# draws a quarter of them (`fast`, loaded by `pytest_configure`; explicit counts
# follow it through `tests.support.examples`).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.register_profile("fast", derandomize=True, max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

#: The line that marks every test of a module slow.
SLOW_MODULE = "\npytestmark = pytest.mark.slow\n"


def _fast_tier(config: pytest.Config) -> bool:
    """Whether this run is the edit loop's fast tier: exactly `-m "not slow"`."""
    return " ".join(config.option.markexpr.split()) == "not slow"


def pytest_configure(config: pytest.Config) -> None:
    """The fast tier loads the `fast` Hypothesis profile, unless HYPOTHESIS_PROFILE
    names one (the full suite draws every example)."""
    if _fast_tier(config) and "HYPOTHESIS_PROFILE" not in os.environ:
        settings.load_profile("fast")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast tier does not import a module whose tests are all slow: importing
    them (Schemathesis, which also builds its tests then, Playwright, gunicorn
    helpers) would cost seconds for tests that are then deselected."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    if not _fast_tier(config):
        return None
    return SLOW_MODULE in collection_path.read_text(encoding="utf-8") or None


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A plain redis-server on a free port, shared by the whole test session.

    Tests sharing it must not flush it or rely on it being empty; use random keys
    (game ids are random) or a key prefix of their own.
    """
    server = RedisServer().start()
    yield server
    server.cleanup()


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    """``redis://127.0.0.1:PORT/0`` of the session's ``redis_server``."""
    return redis_server.url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    """A 3-master Redis Cluster on free ports, started on first use, shared by the session."""
    cluster = RedisCluster().start()
    yield cluster
    cluster.cleanup()


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[GameStore]:
    """A memory store, then a Redis store on the session's redis-server (a key prefix of
    its own); tests/store/ has its own `store` over every backend."""
    if request.param == "memory":
        yield MemoryStore()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    made = RedisStore(server.url, prefix=f"t{uuid.uuid4().hex[:12]}")
    yield made
    made.close()


#: The name of the in-process runner's thread (service/worker.py).
RUNNER_THREAD = "rummy-runner"


@pytest.fixture
def make_app() -> Iterator[Callable[..., Flask]]:
    """Build apps (`TestConfig` unless given a config), shut down after the test:
    no runner thread of one test advances games during another."""
    made: list[Flask] = []

    def make(config: Config | None = None) -> Flask:
        app = create_app(TestConfig() if config is None else config)
        made.append(app)
        return app

    yield make
    for app in made:
        shutdown(app)


@pytest.fixture(scope="module", autouse=True)
def no_runner_thread_outlives_its_module() -> Iterator[None]:
    """Fail a module that leaves an in-process runner thread running: such a
    thread saves games (and moves the process's metrics) during later tests.
    An app a module builds is shut down (`service.app.shutdown`) by its fixture."""
    yield
    left = [
        t
        for t in threading.enumerate()
        if t.name == RUNNER_THREAD and t.is_alive() and t not in _REPORTED_THREADS
    ]
    _REPORTED_THREADS.update(left)  # one module's leak fails that module, not all later ones
    assert not left, "runner threads left running (shut the module's apps down):\n" + "\n".join(
        map(_describe_thread, left)
    )


#: Runner threads already reported as left running by a module.
_REPORTED_THREADS: set[threading.Thread] = set()
#: The test during which each runner thread still running at its end was started.
_STARTED_DURING: dict[threading.Thread, str] = {}


@pytest.fixture(autouse=True)
def note_the_test_that_left_a_runner_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    """Remember which test a runner thread outlived, for the module's report."""
    yield
    for thread in threading.enumerate():
        if thread.name == RUNNER_THREAD and thread.is_alive():
            _STARTED_DURING.setdefault(thread, request.node.nodeid)


def _describe_thread(thread: threading.Thread) -> str:
    """Whether the runner owning `thread` was told to stop, and where the thread is."""
    owner = getattr(getattr(thread, "_target", None), "__self__", None)
    stopped = getattr(getattr(owner, "_stop", None), "is_set", lambda: "unknown")()
    frame = sys._current_frames().get(thread.ident or -1)
    where = "".join(traceback.format_stack(frame)) if frame is not None else "(no frame)"
    during = _STARTED_DURING.get(thread, "before any test ended")
    return f"{thread.name} (left by {during}; its runner told to stop: {stopped}) at:\n{where}"
