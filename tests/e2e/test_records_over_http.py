"""Records over HTTP, as deployed: gunicorn (deploy/gunicorn.conf.py), redis-server
and the runner process. `GAMES` finished games of bots of every preset are
exported (`GET /games/{id}/record`) and each is verified offline by the command
(`python -m service.bots.dealcheck verify RECORD.json`, run in-process here: the
same code path). ``RUMMY_RECORD_GAMES`` lowers the count for a quick run.

A game of more than `MAX_EVENTS` events (a few long 4-player `elimination` games
of greedy and random bots) keeps only its latest: its record must say it is not
verified and the command must exit `INCOMPLETE`, never pass; every other record
verifies."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

from service.bots import dealcheck
from tests.e2e.http import Client
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow

#: Finished games exported and verified per preset.
GAMES = int(os.environ.get("RUMMY_RECORD_GAMES", "100"))


def _export(url: str, preset: str, players: int, number: int, folder: Path) -> Path:
    client = Client(url)
    seats = [{"bot": ("greedy", "random")[(number + i) % 2]} for i in range(players)]
    created = client.post("/games", {"preset": preset, "seats": seats})
    assert created.status == 201, created
    game = created.json["id"]
    deadline = time.monotonic() + 300
    while client.get(f"/games/{game}").json["status"] != "finished":  # the runner plays on
        assert time.monotonic() < deadline, f"{preset} game {game} did not finish"
        time.sleep(0.05)
    answer = client.get(f"/games/{game}/record")
    client.close()
    assert answer.status == 200, answer
    whole = answer.json["events"][0]["seq"] == 1
    assert answer.json["verified"] is whole, answer
    path = folder / f"{preset}-{number}.json"
    path.write_bytes(orjson.dumps(answer.json))
    return path


def test_finished_games_of_every_preset_export_records_that_verify_offline(
    redis_gunicorn: GunicornServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    presets: dict[str, Any] = {
        p["name"]: p["options"]["players"]
        for p in Client(redis_gunicorn.url).get("/presets").json["presets"]
    }
    jobs = [
        (preset, min(4, players[1]), number)
        for preset, players in sorted(presets.items())
        for number in range(GAMES)
    ]
    with ThreadPoolExecutor(4) as pool:
        paths = list(pool.map(lambda job: _export(redis_gunicorn.url, *job, tmp_path), jobs))
    assert len(paths) == GAMES * len(presets)
    cut = 0
    for path in paths:
        record = orjson.loads(path.read_bytes())
        status = dealcheck.main(["verify", str(path)])
        out = capsys.readouterr().out
        if record["events"][0]["seq"] != 1:  # past MAX_EVENTS: the first events are gone
            cut += 1
            assert status == dealcheck.INCOMPLETE, (path.name, out[-2000:])
            continue
        assert status == dealcheck.OK, (path.name, out[-2000:])
        assert "the rules engine replays all" in out
    assert cut <= len(paths) // 50, f"{cut} records lost their first events"
