"""The bot kit's command lines take seat tokens from the environment or a file,
never argv (where ``ps`` shows them to every user of the machine)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.gunicorn import ROOT

TOKEN = "s3cr3t-seat-token-of-the-test"
CLIENT = [sys.executable, "-m", "service.bots.client", "--game", "g1", "--wait", "1"]
VERIFY = [sys.executable, "-m", "service.bots.dealcheck", "verify"]


class _Recorder:
    """A local HTTP server that notes each request's ``Authorization`` and answers 404."""

    def __init__(self) -> None:
        self.seen: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.seen.append(self.headers.get("Authorization"))
                body = b'{"status": 404, "code": "game_not_found", "detail": "no game"}'
                self.send_response(404)
                self.send_header("Content-Type", "application/problem+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def recorder() -> Iterator[_Recorder]:
    server = _Recorder()
    yield server
    server.close()


def _run(
    command: list[str], env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {name: value for name, value in os.environ.items() if name != "RUMMY_TOKEN"}
    return subprocess.run(
        command, cwd=ROOT, env={**clean, **(env or {})}, input=stdin,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def _commands(url: str) -> dict[str, list[str]]:
    return {"client": [*CLIENT, "--url", url], "verify": [*VERIFY, f"{url}/games/g1"]}


@pytest.mark.parametrize("which", ["client", "verify"])
@pytest.mark.parametrize(
    "option", [["--token", TOKEN], [f"--token={TOKEN}"], ["--token"], ["--tok", TOKEN]]
)
def test_a_token_on_the_command_line_is_refused(
    recorder: _Recorder, which: str, option: list[str]
) -> None:
    done = _run([*_commands(recorder.url)[which], *option])
    assert done.returncode == 2, done.stdout + done.stderr
    if option[0] != "--tok":  # no abbreviations: refused by argparse itself
        assert "RUMMY_TOKEN" in done.stderr and "--token-file" in done.stderr, done.stderr
        assert TOKEN not in done.stdout + done.stderr  # not echoed either
    assert recorder.seen == []  # refused before any request


@pytest.mark.parametrize("which", ["client", "verify"])
def test_the_token_comes_from_the_environment_or_a_file(
    recorder: _Recorder, which: str, tmp_path: Path
) -> None:
    command = _commands(recorder.url)[which]
    token_file = tmp_path / "token"
    token_file.write_text(f"{TOKEN}\n")
    for extra, env, stdin in (
        ([], {"RUMMY_TOKEN": TOKEN}, None),
        (["--token-file", str(token_file)], {}, None),
        # The file wins over the environment.
        (["--token-file", str(token_file)], {"RUMMY_TOKEN": "other"}, None),
        (["--token-file", "-"], {}, f"{TOKEN}\n"),
    ):
        recorder.seen.clear()
        done = _run([*command, *extra], env, stdin)
        assert "usage:" not in done.stderr, done.stderr
        assert recorder.seen and set(recorder.seen) == {f"Bearer {TOKEN}"}, (extra, recorder.seen)


def test_the_client_needs_a_token_and_verify_reads_without_one(
    recorder: _Recorder, tmp_path: Path
) -> None:
    done = _run(_commands(recorder.url)["client"])
    assert done.returncode == 2 and "RUMMY_TOKEN" in done.stderr, done.stderr
    assert recorder.seen == []
    done = _run(_commands(recorder.url)["verify"])
    assert recorder.seen == [None]  # the public view, without a token
    for path in (tmp_path / "missing", tmp_path / "empty"):
        if path.name == "empty":
            path.write_text("\n")
        done = _run([*_commands(recorder.url)["client"], "--token-file", str(path)])
        assert done.returncode == 2 and str(path) in done.stderr, done.stderr
