"""The reference bot client: plays one seat of a game over the public HTTP API.

    RUMMY_TOKEN=TOKEN python -m service.bots.client --url http://127.0.0.1:8000 --game ID \\
        [--strategy greedy] [--seed N] [--wait 25]
    python -m service.bots.client --url http://127.0.0.1:8000 --game ID --join NAME \\
        [--client-seed SEED]

The seat's token comes from ``RUMMY_TOKEN`` or ``--token-file PATH``, never the
command line (`service.bots.token_source`); with ``--join NAME`` the client takes
an open seat itself, sending a random ``client_seed`` (`service.bots.http.new_client_seed`,
or ``--client-seed``) and checking that the game's view shows it (docs/fairness.md).

The protocol, as any third-party bot would follow it:

1. ``GET /games/{id}/stream`` (Server-Sent Events, read by a background thread;
   resumed with ``Last-Event-ID``) tells it when something happens, or, where the
   service has no stream to give, ``GET /games/{id}/events?after=N&wait=S``
   long-polls (the client remembers the public facts in a :class:`Memory`);
2. ``GET /games/{id}`` gives the seat's view, ``GET /games/{id}/legal-moves`` the
   moves it may make now with the game ``version`` (empty: not its turn, poll again);
3. ``POST /games/{id}/moves`` sends the chosen move with ``If-Match: "<version>"``
   and a fresh ``Idempotency-Key``; a ``503``/``429`` is retried with the same key
   after a backoff, a ``412`` (the game moved on) reloads and chooses again;
4. it stops when the view's ``status`` is ``finished``.

The exit status is 0 when the game finished, 1 on an error, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.bots.http import Answer, Api, ApiError, EventStream, new_client_seed, seed_used
from service.bots.memory import Memory
from service.bots.strategies import STRATEGIES, choose_move
from service.bots.token_source import add_token_options, token_from
from service.rules.moves import Move, parse_move


class ClientError(Exception):
    """The service answered something a correct client never expects."""


@dataclass
class BotClient:
    """Plays seat ``token`` of game ``game_id`` with a built-in strategy."""

    api: Api
    game_id: str
    strategy: str = "greedy"
    rng: random.Random = field(default_factory=random.Random)
    wait: float = 25.0
    memory: Memory = field(default_factory=Memory)
    #: Seconds each accepted move took (request to answer, retries included).
    latencies: list[float] = field(default_factory=list)
    #: Moves answered 412 (the game had moved on) and chosen again.
    stale: int = 0
    #: The latest view of the seat.
    view: dict[str, Any] = field(default_factory=dict)
    #: When set, :meth:`play` gives up at its next wake-up (raises :class:`ClientError`).
    stop: threading.Event = field(default_factory=threading.Event)
    #: Whether to follow the game's event stream (else long-poll only).
    use_stream: bool = True
    #: The event stream, once opened (``None``: not yet, or not used).
    stream: EventStream | None = None
    _after: int = 0

    @property
    def finished(self) -> bool:
        """Whether the game is over (as far as the latest view says)."""
        return self.view.get("status") == "finished"

    def play(self) -> dict[str, Any]:
        """Play until the game is finished; return the final view."""
        while not self.stop.is_set():
            moved = self.step()
            if self.finished:
                return self.view
            if not moved:
                self.catch_up(self.wait)
        raise ClientError("stopped before the game ended")

    def step(self) -> bool:
        """Make at most one move if it is this seat's turn; whether a move was made.

        Reads the events since the last call (no waiting), the view and the legal
        moves; a move answered 412 counts as not made (the next step reloads).
        """
        self.catch_up(0)
        self.view = self._expect(self.api.get(self._path()), 200)
        if self.finished:
            return False
        listed = self._expect(self.api.get(self._path("/legal-moves")), 200)
        if not listed["moves"]:
            return False
        if listed["version"] != self.view["version"]:
            return False  # the game changed between the two reads: read again
        moves: list[Move] = [parse_move(m) for m in listed["moves"]]
        move = choose_move(self.strategy, self.view, moves, self.rng, self.memory)
        answer = self.api.post(
            self._path("/moves"),
            move.to_json(),
            {"If-Match": f'"{listed["version"]}"', "Idempotency-Key": uuid.uuid4().hex},
        )
        if answer.status == 412:
            self.stale += 1
            return False
        self.view = self._expect(answer, 200)
        self.latencies.append(answer.seconds)
        return True

    def catch_up(self, wait: float) -> list[dict[str, Any]]:
        """Read the events after the last one seen (waiting up to ``wait`` s for one:
        from the event stream while it works, else by long-polling)."""
        if wait > 0 and self.use_stream:
            if self.stream is None:
                self.stream = EventStream(self.api, self._path("/stream"), self._after)
            if self.stream.failed is None:
                streamed = [e for e in self.stream.events(wait) if e["seq"] > self._after]
                self.memory.observe_all(streamed)
                if streamed:
                    self._after = streamed[-1]["seq"]
                if self.stream.failed is None:
                    return streamed
        params: dict[str, Any] = {"after": self._after}
        if wait > 0:
            params["wait"] = int(wait)
        got = self._expect(self.api.get(self._path("/events"), params), 200)
        events: list[dict[str, Any]] = got["events"]
        self.memory.observe_all(events)
        if events:
            self._after = max(self._after, got.get("last", events[-1]["seq"]))
        return events

    def close(self) -> None:
        """Close the connections (the event stream's too)."""
        if self.stream is not None:
            self.stream.close()
        self.api.close()

    def _path(self, tail: str = "") -> str:
        return f"/games/{self.game_id}{tail}"

    @staticmethod
    def _expect(answer: Answer, status: int) -> Any:
        if answer.status != status:
            body = answer.body if isinstance(answer.body, dict) else {}
            code = body.get("code", "")
            raise ClientError(f"HTTP {answer.status} {code}: {body.get('detail', answer.body)}")
        return answer.body


def join_seat(url: str, game_id: str, name: str, client_seed: str | None = None) -> str:
    """Take an open seat of `game_id` as `name` with `client_seed` (default: a random
    one) and return its token, after checking that the game shows the seed as the
    seat's (so every round secret mixes it in: docs/fairness.md)."""
    seed = client_seed or new_client_seed()
    api = Api(url)
    try:
        answer = api.join(game_id, name, client_seed=seed)
    finally:
        api.close()
    body = BotClient._expect(answer, 201)
    if not seed_used(body["game"], body["seat"], seed):
        raise ClientError(f"the game does not show seat {body['seat']}'s client_seed {seed!r}")
    return str(body["token"])


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: play one seat to the end of the game."""
    parser = argparse.ArgumentParser(
        prog="python -m service.bots.client",
        description="Play one seat of a game over HTTP.",
        allow_abbrev=False,
    )
    parser.add_argument("--url", required=True, help="service base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--game", required=True, help="game id")
    add_token_options(parser, "the seat's token")
    parser.add_argument("--strategy", default="greedy", choices=sorted(STRATEGIES))
    parser.add_argument("--seed", type=int, default=None, help="seed of the strategy's choices")
    parser.add_argument("--wait", type=float, default=25.0, help="long-poll seconds (at most 30)")
    parser.add_argument(
        "--join",
        metavar="NAME",
        help="take an open seat as NAME (instead of a token), with a random client_seed",
    )
    parser.add_argument(
        "--client-seed",
        metavar="SEED",
        help="the client_seed sent with --join (default: a random one)",
    )
    args = parser.parse_args(argv)
    try:
        token = (
            join_seat(args.url, args.game, args.join, args.client_seed)
            if args.join is not None
            else token_from(args, parser, required=True)
        )
    except (ApiError, ClientError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    client = BotClient(
        Api(args.url, token),
        args.game,
        args.strategy,
        random.Random(args.seed),
        wait=min(max(args.wait, 1.0), 30.0),
    )
    try:
        final = client.play()
    except KeyboardInterrupt:
        return 130
    except (ApiError, ClientError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        client.close()
    you = final.get("you")
    print(
        f"game {args.game} finished: seat {you}, {len(client.latencies)} moves, "
        f"winners {final.get('winners')}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
