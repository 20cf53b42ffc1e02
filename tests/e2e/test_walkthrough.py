"""The README's curl walkthrough, run against `rummy-service` (the first quickstart command)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "walkthrough.sh"


def test_the_readme_shows_the_walkthrough_script_as_it_is() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(
        r"<!-- walkthrough:start -->\n```bash\n(.*?)```\n<!-- walkthrough:end -->", readme, re.S
    )
    assert block is not None, "README.md lost its walkthrough block"
    assert block.group(1) == SCRIPT.read_text()


def test_the_quickstart_commands_are_the_ci_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = (
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' "
        "&& .venv/bin/python -m pytest"
    )
    assert f"    {test_command}\n" in readme
    assert f"\n{test_command}\n" in ci
    assert (
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/rummy-service" in readme
    )


def test_the_walkthrough_plays_a_game_to_its_end() -> None:
    rummy_service = str(Path(sys.executable).parent / "rummy-service")
    env = {"ACCESS_LOG": "0", "RATELIMIT_ENABLED": "0", "STORE_URL": "memory://"}
    with GunicornServer(env, command=[rummy_service]) as server:
        done = subprocess.run(
            ["bash", str(SCRIPT)],
            env={"BASE": server.url, "PATH": "/usr/bin:/bin:/usr/local/bin"},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "finished, Ann won" in done.stdout
    # Step 9's stream resumed after event 10 and pushed the rest, to the end.
    streamed = re.findall(r"^id: (\d+)$", done.stdout, re.M)
    assert streamed and streamed[0] == "11"
    assert '"type":"game_ended"' in done.stdout.rsplit("id: 11", 1)[1]
