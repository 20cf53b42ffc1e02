"""The Kubernetes manifests validate offline and wire the pieces together."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

from service.config import Config
from tests.deploy.conftest import DEPLOY, known_settings, venv_tool

MANIFESTS = sorted((DEPLOY / "kubernetes").glob("*.yaml"))


def validate(*paths: Path) -> subprocess.CompletedProcess[str]:
    """Run kubernetes-validate --strict (unknown fields are errors) on the files."""
    return subprocess.run(
        [venv_tool("kubernetes-validate"), "--strict", "--quiet", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def resources() -> dict[str, dict[str, Any]]:
    """Every manifest document by "Kind/name"."""
    out: dict[str, dict[str, Any]] = {}
    for path in MANIFESTS:
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                out[f"{doc['kind']}/{doc['metadata']['name']}"] = doc
    return out


def test_every_manifest_validates() -> None:
    assert MANIFESTS
    result = validate(*MANIFESTS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_validator_rejects_a_broken_manifest(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    doc = resources()["Deployment/rummy-web"]
    doc["spec"]["replicas"] = "two"
    broken.write_text(yaml.safe_dump(doc))
    assert validate(broken).returncode != 0


def test_all_required_kinds_are_present() -> None:
    kinds = {key.split("/")[0] for key in resources()}
    assert {
        "Deployment",
        "Service",
        "ConfigMap",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "StatefulSet",
    } <= kinds


def test_web_deployment_probes_resources_and_config() -> None:
    res = resources()
    deployment = res["Deployment/rummy-web"]
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= container["resources"][kind].keys()
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    config = container["envFrom"][0]["configMapRef"]["name"]
    settings = res[f"ConfigMap/{config}"]["data"]
    assert settings["STORE_URL"].startswith("redis://")
    assert container["ports"][0]["containerPort"] == int(settings["PORT"])
    # Selectors of the Service, the PDB and the Deployment all match the pods.
    labels = pod["metadata"]["labels"]
    for key in ("Service/rummy-web", "PodDisruptionBudget/rummy-web"):
        spec = res[key]["spec"]
        selector = spec["selector"].get("matchLabels", spec["selector"])
        assert selector.items() <= labels.items(), key
    hpa = res["HorizontalPodAutoscaler/rummy-web"]["spec"]
    assert hpa["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "rummy-web",
    }
    assert hpa["minReplicas"] >= 2


def test_redis_statefulset_is_durable_and_matches_store_url() -> None:
    res = resources()
    redis = res["StatefulSet/rummy-redis"]["spec"]
    assert redis["replicas"] == 1
    assert redis["volumeClaimTemplates"][0]["metadata"]["name"] == "data"
    (container,) = redis["template"]["spec"]["containers"]
    assert {"name": "data", "mountPath": "/data"} in container["volumeMounts"]
    # Its redis.conf is deploy/redis.conf itself, AOF included.
    conf = res["ConfigMap/rummy-redis"]["data"]["redis.conf"]
    assert conf == (DEPLOY / "redis.conf").read_text()
    assert "appendonly yes" in conf
    # The web pods reach pod 0 through the headless service.
    url = res["ConfigMap/rummy-web"]["data"]["STORE_URL"]
    assert url.startswith(f"redis://rummy-redis-0.{redis['serviceName']}:6379")
    assert res[f"Service/{redis['serviceName']}"]["spec"]["clusterIP"] == "None"


def test_configmap_sets_only_known_settings() -> None:
    settings = resources()["ConfigMap/rummy-web"]["data"]
    assert settings.keys() <= known_settings()
    assert settings["STORE_URL"] == Config.from_env(settings).STORE_URL


def test_worker_deployment_runs_the_runner_with_the_web_settings() -> None:
    res = resources()
    worker = res["Deployment/rummy-worker"]
    (container,) = worker["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["python", "-m", "service.worker"]
    web = res["Deployment/rummy-web"]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == web["image"]
    # The same STORE_URL, settings and Redis password.
    assert container["envFrom"] == web["envFrom"] and container["env"] == web["env"]
    assert worker["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True


def test_redis_requires_the_secret_password_and_only_the_service_reaches_it() -> None:
    res = resources()
    conf = (DEPLOY / "redis.conf").read_text().splitlines()
    assert "protected-mode yes" in conf
    assert not any(line.startswith(("requirepass", "masterauth")) for line in conf)
    (redis,) = res["StatefulSet/rummy-redis"]["spec"]["template"]["spec"]["containers"]
    args = redis["args"]
    password = args[args.index("--requirepass") + 1]
    assert password == "$(REDIS_PASSWORD)"
    secret = {"name": "rummy-redis", "key": "password"}
    redis_env = {item["name"]: item["valueFrom"]["secretKeyRef"] for item in redis["env"]}
    assert redis_env["REDIS_PASSWORD"] == secret == redis_env["REDISCLI_AUTH"]
    (web,) = res["Deployment/rummy-web"]["spec"]["template"]["spec"]["containers"]
    web_env = {item["name"]: item["valueFrom"]["secretKeyRef"] for item in web["env"]}
    assert web_env["STORE_PASSWORD"] == secret
    # Only pods of the web and worker components may open a connection to Redis.
    policy = res["NetworkPolicy/rummy-redis"]["spec"]
    redis_labels = res["StatefulSet/rummy-redis"]["spec"]["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= redis_labels.items()
    assert policy["policyTypes"] == ["Ingress"]
    (rule,) = policy["ingress"]
    assert rule["ports"] == [{"protocol": "TCP", "port": 6379}]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}
    expressions = {e["key"]: set(e["values"]) for e in source["podSelector"]["matchExpressions"]}
    assert expressions == {
        "app.kubernetes.io/name": {"rummy"},
        "app.kubernetes.io/component": {"web", "worker"},
    }
    web_labels = res["Deployment/rummy-web"]["spec"]["template"]["metadata"]["labels"]
    assert web_labels["app.kubernetes.io/component"] in expressions["app.kubernetes.io/component"]


SECRET_TEMPLATE = DEPLOY / "kubernetes" / "secret.yaml.template"
PLACEHOLDER = "@REDIS_PASSWORD@"


def test_the_redis_secret_template_is_what_the_pods_read_and_holds_no_password(
    tmp_path: Path,
) -> None:
    text = SECRET_TEMPLATE.read_text()
    # `kubectl apply -f deploy/kubernetes/` reads .yaml, .yml and .json files only:
    # the template, with its placeholder, is never applied by accident.
    assert SECRET_TEMPLATE not in MANIFESTS and SECRET_TEMPLATE.suffix == ".template"
    (secret,) = yaml.safe_load_all(text)
    assert secret["kind"] == "Secret" and secret["stringData"] == {"password": PLACEHOLDER}
    # Filled in as deploy/README.md says, it is a valid manifest...
    filled = tmp_path / "secret.yaml"
    filled.write_text(text.replace(PLACEHOLDER, "0123456789abcdef" * 4))
    result = validate(filled)
    assert result.returncode == 0, result.stdout + result.stderr
    # ... of the Secret, and the key, that Redis, the web pods and the workers read.
    res = resources()
    wanted = {"name": secret["metadata"]["name"], "key": "password"}
    for workload in ("StatefulSet/rummy-redis", "Deployment/rummy-web", "Deployment/rummy-worker"):
        (container,) = res[workload]["spec"]["template"]["spec"]["containers"]
        refs = [e["valueFrom"]["secretKeyRef"] for e in container["env"] if "valueFrom" in e]
        assert refs and all(ref == wanted for ref in refs), workload
