"""The versions of the libraries whose internals `service.serving` uses, as checked.

Each module of this package that reaches past a library's public API names
the library here with the minor versions its tests passed on. `unchecked()`
compares them with the installed versions: the test suite fails on any other
(tests/serving/test_versions.py), so an upgrade is taken only once the serving
tests pass on it and this table is updated (pyproject.toml pins the same).
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Final

#: Distribution → (minor versions checked, what of it is used).
CHECKED: Final[dict[str, tuple[tuple[str, ...], str]]] = {
    "flask": (("3.1",), "request context and dispatch steps (flaskapp.py)"),
    "werkzeug": (
        ("3.1",),
        "request body cache, response fields, URL matcher (bodies, answers, routematch)",
    ),
    "flask-smorest": (
        ("0.47",),
        "`_apidoc`, the documentation its decorators keep on a view (doconly.py)",
    ),
    "gunicorn": (("27.0",), "GeventWorker.run and its connection handling (balanced_worker.py)"),
    "prometheus-client": (("0.26",), "MmapedDict's file layout (hotmetrics.py)"),
    "gevent": (("26.9",), "its socket's wrapped plain socket, `_sock` (sockets.py)"),
    "redis": (
        ("8.2",),
        "Connection's socket, packer and parser, Script's SHA (leancall, pipelining, subscription)",
    ),
}


def minor(full: str) -> str:
    """``"3.1.9"`` → ``"3.1"``."""
    return ".".join(full.split(".")[:2])


def unchecked() -> dict[str, str]:
    """Each library of `CHECKED` whose installed version was not checked: name → version."""
    return {
        name: installed
        for name, (checked, _) in CHECKED.items()
        if minor(installed := version(name)) not in checked
    }
