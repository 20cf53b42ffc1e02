"""The application factory: `create_app(config)`."""

from __future__ import annotations

from typing import Any

from flask import Flask

from service import webui
from service.api import (
    cors,
    docs,
    errors,
    events,
    games,
    headers,
    health,
    hints,
    jsonio,
    moves,
    presets,
    queue,
    records,
    spec_overrides,
)
from service.api.access import STORE_EXTENSION
from service.api.smorest import Api
from service.bots import expert
from service.config import Config
from service.http.problems import register_fallback
from service.ops import init_app as init_observability
from service.ops import ratelimit
from service.ops.store_metrics import instrument
from service.serving.dispatch import dispatch_hot_operations
from service.serving.flaskapp import ServiceFlask
from service.store.memory import MemoryStore
from service.worker import InProcessRunner, Runner, matcher_for, settings_from

API_SETTINGS: dict[str, Any] = {
    "API_TITLE": "Rummy service",
    "API_VERSION": "1.0.0",
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "OPENAPI_SWAGGER_UI_PATH": "/docs",
    "OPENAPI_SWAGGER_UI_URL": docs.STATIC_URL,
    "API_SPEC_OPTIONS": {
        "info": {
            "description": (
                "Basic Rummy and its well-known variants over HTTP. Errors are RFC 9457 "
                "problem details (application/problem+json) with a stable `code`. "
                "Seat tokens go in `Authorization: Bearer <token>`; every answer that "
                'carries a game has `ETag: "<version>"`.'
            )
        },
        "components": {
            "securitySchemes": {
                "seatToken": {"type": "http", "scheme": "bearer"},
                # A quick-play ticket's secret (`POST /queue`), not a seat's token.
                "ticketSecret": {"type": "http", "scheme": "bearer"},
            }
        },
    },
}


def create_app(config: Config | None = None) -> Flask:
    """Build the app: store, JSON, errors, CORS, blueprints, docs, then extensions."""
    config = Config.from_env() if config is None else config
    app = ServiceFlask("service")
    app.config.update(API_SETTINGS)
    app.config.update(config.flask_settings())
    app.url_map.strict_slashes = False
    jsonio.install(app)

    from service.api.access import init_store

    init_store(app)
    events.init_streams(app)
    queue.init_queue(app)
    # The expert bot's budgets are per process (bots play in the process that
    # applies the move).
    expert.configure(expert.Budget(config.BOT_EXPERT_NODES, config.BOT_EXPERT_SECONDS or None))

    api = Api(app)
    blueprints = (
        presets.blp,
        games.blp,
        moves.blp,
        hints.blp,
        events.blp,
        records.blp,
        queue.blp,
        health.blp,
    )
    for blueprint in blueprints:
        api.register_blueprint(blueprint)
    dispatch_hot_operations(app)
    spec_overrides.apply(api.spec, app.config["LONGPOLL_MAX"])
    errors.register(app)
    register_fallback(app)
    docs.install(app)
    webui.install(app)
    cors.install(app)
    headers.install(app)

    # Extensions (request logs, /metrics, rate limiting) hook in here, each an
    # `init_app(app)` that adds its own before/after-request handlers or routes.
    init_extensions(app)
    return app


def init_extensions(app: Flask) -> None:
    """Operational extensions of the app; each is an `init_app(app)` call."""
    init_observability(app)
    app.extensions[STORE_EXTENSION] = instrument(app.extensions[STORE_EXTENSION])
    ratelimit.init_app(app)
    init_runner(app)


#: The in-process runner of an app on the memory store (`InProcessRunner`).
RUNNER_EXTENSION = "rummy.runner"


def init_runner(app: Flask) -> None:
    """With the memory store, run the runner as a thread of this process
    (started by the first save that queues a game); with Redis it is the
    `worker` process (service/worker.py)."""
    store = app.extensions[STORE_EXTENSION]
    memory = getattr(store, "inner", store)
    if isinstance(memory, MemoryStore) and app.config["RUNNER_IN_PROCESS"]:
        runner = Runner(store, settings_from(app.config), matcher=matcher_for(store, app.config))
        app.extensions[RUNNER_EXTENSION] = InProcessRunner(memory, runner)


def shutdown(app: Flask) -> None:
    """Release what the app holds in this process: stop its in-process runner
    (after the game it is advancing) and close its store, with the store's
    wake-up subscription. For an app that goes away while the process lives on
    (a test's app, an embedding program); the app serves no request after it."""
    runner = app.extensions.get(RUNNER_EXTENSION)
    if runner is not None:
        runner.stop()
    app.extensions[STORE_EXTENSION].close()
