"""Only `service/serving/` touches the private parts of the libraries the
service is built on: no other module imports a private name or module of
theirs, or reads an underscore attribute that one of them defines (and the
service itself does not)."""

from __future__ import annotations

import ast
import functools
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"
#: The one package allowed to reach into the libraries.
SERVING = SERVICE / "serving"

#: The libraries whose private parts count: the web framework, its server and
#: worker, the metrics client and the Redis client.
LIBRARIES = (
    "flask",
    "werkzeug",
    "flask_smorest",
    "webargs",
    "apispec",
    "marshmallow",
    "gunicorn",
    "gevent",
    "prometheus_client",
    "redis",
    "hiredis",
)


#: Names that look private but are documented as public: Werkzeug's way to the
#: object a proxy stands for (`LocalProxy._get_current_object`, in Flask's
#: "Notes On Proxies").
DOCUMENTED = frozenset({"_get_current_object"})


def _private(name: str) -> bool:
    return (
        name.startswith("_")
        and not (name.startswith("__") and name.endswith("__"))
        and name not in DOCUMENTED
    )


def _defined_names(files: Iterator[Path]) -> set[str]:
    """Every private name a set of files defines: functions, classes, module
    names, attributes assigned (``self._x = ...``)."""
    names: set[str] = set()
    for path in files:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                candidates = [node.name]
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                candidates = [node.attr]
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                candidates = [node.id]
            elif isinstance(node, ast.arg):
                candidates = [node.arg]
            else:
                continue
            names.update(name for name in candidates if _private(name))
    return names


@functools.cache
def library_private_names() -> frozenset[str]:
    """The private names the libraries define that the service does not define itself."""
    files: list[Path] = []
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        assert spec is not None and spec.submodule_search_locations, library
        for location in spec.submodule_search_locations:
            files.extend(Path(location).rglob("*.py"))
    own = _defined_names(path for path in SERVICE.rglob("*.py") if SERVING not in path.parents)
    return frozenset(_defined_names(iter(files)) - own)


def violations(path: Path) -> list[str]:
    """What `path` touches of the libraries' private parts: ``line: what``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = library_private_names()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] in LIBRARIES:
                names = [alias.name for alias in node.names]
                if any(_private(part) for part in parts) or any(map(_private, names)):
                    found.append(f"{node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in LIBRARIES and any(_private(part) for part in parts):
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in private:
            found.append(f"{node.lineno}: .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "hasattr", "setattr", "delattr"}
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in private
        ):
            found.append(f"{node.lineno}: {node.func.id}(…, {node.args[1].value!r})")
    return found


def test_no_module_outside_serving_touches_the_libraries_private_parts() -> None:
    found = {
        str(path.relative_to(ROOT)): hits
        for path in sorted(SERVICE.rglob("*.py"))
        if SERVING not in path.parents and (hits := violations(path))
    }
    assert found == {}


@pytest.mark.parametrize(
    "planted",
    [
        "from flask.globals import _cv_request\n",
        "from flask.globals import _cv_app as app\n",
        "import werkzeug._internal\n",
        "from werkzeug._internal import _missing\n",
        "def read(request):\n    return request._cached_data\n",
        "def respond(answer):\n    answer._status_code = 200\n",
        "def document(view, wrapper):\n    view._apidoc = wrapper._apidoc\n",
        "def socket_of(connection):\n    return connection._sock\n",
        "def plain(sock):\n    return getattr(sock, '_sock', sock)\n",
    ],
)
def test_a_planted_reference_is_caught(tmp_path: Path, planted: str) -> None:
    path = tmp_path / "planted.py"
    path.write_text(planted, encoding="utf-8")
    assert violations(path)


def test_public_names_and_the_services_own_private_names_pass(tmp_path: Path) -> None:
    path = tmp_path / "fine.py"
    path.write_text(
        "from flask import request\n"
        "from werkzeug.exceptions import NotFound\n"
        "from service.http import current\n"
        "def f(x):\n    return request.environ, x.__dict__, NotFound\n",
        encoding="utf-8",
    )
    assert violations(path) == []
