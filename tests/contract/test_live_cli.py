"""The Schemathesis CLI against a live gunicorn (production config) on a throwaway redis-server.

`schemathesis run` with every check, a fixed seed, 100 examples per operation
and all four phases (examples, coverage, fuzzing, stateful), with the
settings of `schemathesis.toml` and the hooks of `live_hooks.py` (real games
and seat tokens). It must report no failure, and gunicorn must log no error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.robustness.logs import error_lines
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
EXAMPLES = 100
SEED = 1


@pytest.fixture(scope="module")
def live() -> Iterator[GunicornServer]:
    """gunicorn (2 workers, production config) on its own redis-server."""
    redis_server = RedisServer().start()
    server = GunicornServer(
        env={
            "STORE_URL": redis_server.url,
            # Generated long-polls stay short; the served document states this bound.
            "LONGPOLL_MAX": "0.5",
            "STREAM_LIFETIME": "0.5",
            # The run sends thousands of requests from one address; rate limits
            # are tested on their own (tests/ops/test_ratelimit.py).
            "RATELIMIT_ENABLED": "0",
        },
        workers=2,
    )
    try:
        yield server.start()
    finally:
        server.stop()
        redis_server.cleanup()


def test_schemathesis_cli_finds_no_failure(live: GunicornServer, tmp_path: Path) -> None:
    command = [
        str(SCHEMATHESIS),
        "--config-file", str(ROOT / "schemathesis.toml"),
        "run", f"{live.url}/openapi.json",
        "--checks", "all",
        "--max-examples", str(EXAMPLES),
        "--seed", str(SEED),
        "--phases", "examples,coverage,fuzzing,stateful",
        # Bot play inside a request is bounded (BOT_SECONDS_PER_REQUEST): a game of
        # bots only, expert ones included, answers well within this.
        "--request-timeout", "10",
    ]  # fmt: skip
    env = {
        **os.environ,
        "CI": "true",
        "NO_COLOR": "1",
        "PYTHONPATH": str(ROOT),
        "SCHEMATHESIS_HOOKS": "tests.contract.live_hooks",
        "RUMMY_CONTRACT_URL": live.url,
    }
    run = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=420, check=False
    )
    output = run.stdout + run.stderr
    (tmp_path / "schemathesis-output.txt").write_text(output)  # kept for a look afterwards
    assert run.returncode == 0, output[-12000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅  {phase}" in output or f"✅ {phase}" in output, output[-6000:]
    with urllib.request.urlopen(f"{live.url}/openapi.json", timeout=10) as answer:
        document = json.load(answer)
    operations = sum(
        1
        for item in document["paths"].values()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    )
    assert f"Tested: {operations}" in output, output[-6000:]
    log = Path(live._log.name).read_text(errors="replace")
    assert error_lines(log) == [], live.log_tail(80)
