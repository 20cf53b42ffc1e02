"""Shared helpers for the deploy-file tests."""

from __future__ import annotations

import shutil
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from service.config import Config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def venv_tool(name: str) -> str:
    """Path of a console script installed beside this interpreter (or on PATH)."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; run pip install -e '.[test]'")
    return found


def known_settings() -> set[str]:
    """Every environment variable the service or its gunicorn config reads."""
    server = {
        "PORT",
        "HOST",
        "WEB_CONCURRENCY",
        "GUNICORN_THREADS",
        "GUNICORN_ACCESSLOG",
        "GUNICORN_KEEPALIVE",
    }
    return {f.name for f in fields(Config)} | server | {"PROMETHEUS_MULTIPROC_DIR"}
