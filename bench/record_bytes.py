"""Bytes of a finished game's record, stored and served.

Usage: .venv/bin/python -m bench.record_bytes [--games 5] [--players 4] [--preset standard]

Runs the app in-process (Flask test client) on a throwaway redis-server and
plays whole games of bots (greedy and random seats in turn, dealt at random),
each within its create. For each finished game it prints its events, the bytes
its keys hold in Redis (``MEMORY USAGE … SAMPLES 0`` over all of them: what
`RECORD_TTL` keeps), and the bytes of `GET /games/{id}/record` as JSON (and
gzipped), as the text transcript and as ndjson; then the medians.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
from dataclasses import replace

from service.app import create_app, shutdown
from service.config import TestConfig
from tests.support.redis_server import RedisServer

FIGURES = ("events", "stored", "json", "json_gzip", "text", "ndjson")


def game_figures(client: object, redis: RedisServer, preset: str, players: int) -> dict[str, int]:
    """One finished game's figures (`FIGURES`)."""
    seats = [{"bot": ("greedy", "random")[i % 2]} for i in range(players)]
    created = client.post("/games", json={"preset": preset, "seats": seats})  # type: ignore[attr-defined]
    body = created.get_json()
    assert created.status_code == 201 and body["status"] == "finished", body
    game = body["id"]
    r = redis.client()
    keys = list(r.scan_iter(match=f"rummy:{{{game}}}:*"))
    stored = sum(r.memory_usage(key, samples=0) or 0 for key in keys)
    path = f"/games/{game}/record"
    record = client.get(path)  # type: ignore[attr-defined]
    assert record.status_code == 200 and record.get_json()["verified"] is True
    text = client.get(path, headers={"Accept": "text/plain"})  # type: ignore[attr-defined]
    lines = client.get(path, headers={"Accept": "application/x-ndjson"})  # type: ignore[attr-defined]
    return {
        "events": len(record.get_json()["events"]),
        "stored": stored,
        "json": len(record.data),
        "json_gzip": len(gzip.compress(record.data)),
        "text": len(text.data),
        "ndjson": len(lines.data),
    }


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="standard")
    args = parser.parse_args()
    with RedisServer() as redis:
        config = replace(
            TestConfig(),
            STORE_URL=redis.url,
            STORE_PREFIX="rummy",
            ACCESS_LOG=False,
            # The whole game within its create: no runner process needed.
            BOT_MOVES_PER_REQUEST=1_000_000,
            BOT_SECONDS_PER_REQUEST=600.0,
            BOT_SECONDS_PER_OWNER=0.0,
        )
        app = create_app(config)
        try:
            client = app.test_client()
            rows = [
                game_figures(client, redis, args.preset, args.players) for _ in range(args.games)
            ]
        finally:
            shutdown(app)
    print(f"{args.games} finished {args.players}-player {args.preset} games of bots:")
    print("  " + "  ".join(f"{name:>9}" for name in FIGURES))
    for row in rows:
        print("  " + "  ".join(f"{row[name]:>9}" for name in FIGURES))
    medians = {name: int(statistics.median(row[name] for row in rows)) for name in FIGURES}
    print("  " + "  ".join(f"{medians[name]:>9}" for name in FIGURES) + "  (median)")
    print(
        f"stored {medians['stored'] / medians['events']:.0f} B an event, served as JSON "
        f"{medians['json'] / medians['events']:.0f} B ({medians['json_gzip']} B gzipped)"
    )


if __name__ == "__main__":
    main()
