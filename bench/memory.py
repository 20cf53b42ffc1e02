"""Bytes a game keeps in Redis along a whole game, with its events capped.

Usage: .venv/bin/python -m bench.memory [--players 4] [--moves 400] [--max-events 24 32]

Runs the app in-process (Flask test client) on a throwaway redis-server and
plays one scripted game (`bench.plan`, seed 1) move by move; after every move
it sums ``MEMORY USAGE … SAMPLES 0`` over all of the game's keys. Prints, per
``MAX_EVENTS``, the figure after 40 moves and the mean and maximum over the
game.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from bench.plan import plan_game
from service.app import create_app
from service.config import TestConfig
from tests.support.redis_server import RedisServer


def game_bytes(redis: RedisServer, cap: int, players: int, moves: int) -> list[int]:
    """All of one game's keys in bytes after each of its moves."""
    config = replace(
        TestConfig(),
        STORE_URL=redis.url,
        STORE_PREFIX="rummy",
        MAX_EVENTS=cap,
        ACCESS_LOG=False,
    )
    client = create_app(config).test_client()
    seats = [{"name": f"p{i}"} for i in range(players)]
    plan = plan_game(1, players, "standard", max_moves=moves)
    created = client.post("/games", json={"preset": "standard", "seats": seats, "seed": 1})
    game = created.get_json()["id"]
    tokens = [seat["token"] for seat in created.get_json()["seats"]]
    r = redis.client()
    sizes = []
    for seat, body in plan.moves:
        answer = client.post(
            f"/games/{game}/moves",
            data=body,
            headers={"Authorization": f"Bearer {tokens[seat]}"},
            content_type="application/json",
        )
        assert answer.status_code == 200, answer.get_json()
        keys = list(r.scan_iter(match=f"rummy:{{{game}}}:*"))
        sizes.append(sum(r.memory_usage(key, samples=0) or 0 for key in keys))
    return sizes


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--max-events", type=int, nargs="+", default=[24])
    args = parser.parse_args()
    with RedisServer() as redis:
        for cap in args.max_events:
            sizes = game_bytes(redis, cap, args.players, args.moves)
            print(
                f"MAX_EVENTS={cap}, {args.players} players, {len(sizes)} moves: "
                f"after 40 moves {sizes[min(39, len(sizes) - 1)]} B, "
                f"mean {sum(sizes) // len(sizes)} B, max {max(sizes)} B"
            )


if __name__ == "__main__":
    main()
