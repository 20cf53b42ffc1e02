"""The Compose file parses and names the images, volumes and Redis settings it needs."""

from __future__ import annotations

from typing import Any

import yaml

from tests.deploy.conftest import DEPLOY, ROOT, known_settings


def compose() -> dict[str, Any]:
    """deploy/compose.yaml as data."""
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def test_services_images_and_volumes() -> None:
    data = compose()
    web, redis = data["services"]["web"], data["services"]["redis"]
    assert web["image"].startswith("rummy-service")
    assert (DEPLOY / web["build"]["context"] / web["build"]["dockerfile"]).resolve() == (
        ROOT / "Dockerfile"
    )
    assert redis["image"].startswith("redis:7")
    assert "redis-data" in data["volumes"]
    assert "redis-data:/data" in redis["volumes"]


def test_web_uses_redis_and_several_workers() -> None:
    data = compose()
    env = data["services"]["web"]["environment"]
    assert env["STORE_URL"] == "redis://redis:6379/0"
    assert "WEB_CONCURRENCY" in env
    assert data["services"]["web"]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "/readyz" in " ".join(data["services"]["web"]["healthcheck"]["test"])


def test_redis_runs_the_production_config_with_aof_everysec() -> None:
    redis = compose()["services"]["redis"]
    mounts = {m.split(":")[1]: m.split(":")[0] for m in redis["volumes"]}
    conf_path = redis["command"][1]
    assert (DEPLOY / mounts[conf_path]).resolve() == DEPLOY / "redis.conf"
    settings = dict(
        line.split(None, 1)
        for line in (DEPLOY / "redis.conf").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert settings["appendonly"] == "yes"
    assert settings["appendfsync"] == "everysec"
    assert settings["maxmemory-policy"] == "noeviction"


def test_web_sets_only_known_settings() -> None:
    assert compose()["services"]["web"]["environment"].keys() <= known_settings()


def test_worker_runs_the_runner_on_the_same_image_and_redis() -> None:
    services = compose()["services"]
    worker, web = services["worker"], services["web"]
    assert worker["image"] == web["image"]
    assert worker["entrypoint"] == ["python", "-m", "service.worker"]
    for name in ("STORE_URL", "STORE_PASSWORD"):
        assert worker["environment"][name] == web["environment"][name]
    assert worker["environment"].keys() <= known_settings()
    assert worker["depends_on"]["redis"]["condition"] == "service_healthy"
