"""The libraries `service.serving` reaches into are at versions it was checked on."""

from __future__ import annotations

import pytest

from service.serving import versions


def test_every_library_is_at_a_checked_version() -> None:
    assert versions.unchecked() == {}, (
        "service/serving uses these libraries' internals and was not checked on these "
        "versions: run the serving tests on them, then update service/serving/versions.py "
        "and the pins in pyproject.toml"
    )


def test_an_unchecked_version_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    installed = {"flask": "3.2.0", "werkzeug": "3.1.9"}
    monkeypatch.setattr(versions, "version", lambda name: installed.get(name, "0.0"))
    found = versions.unchecked()
    assert found["flask"] == "3.2.0"
    assert "werkzeug" not in found
    assert set(found) == set(versions.CHECKED) - {"werkzeug"}


def test_the_pins_are_the_checked_versions() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    pins = set(project["project"]["dependencies"])
    for name, (checked, _) in versions.CHECKED.items():
        assert [f"{name}=={minor}.*" for minor in checked] == [
            pin for pin in pins if pin.startswith(f"{name}==")
        ], name
