"""A Python client generated from openapi/openapi.json, as a client author would make it.

openapi-python-client generates the client into a temporary directory (no
warning, no endpoint skipped); the client then plays a whole game against a
server bot on a real gunicorn, using only its typed functions: `create_game`,
`get_legal_moves`, `make_move` with bodies that are the `LegalMoves` items
themselves, and `get_game`.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.gunicorn import GunicornServer

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "rummy_contract_client"

pytestmark = pytest.mark.slow


def generate(output: Path) -> str:
    """Run the generator on the committed document; its whole output."""
    config = output.parent / "generator.yaml"
    # No formatter hooks: the output is checked as generated.
    config.write_text("post_hooks: []\n")
    run = subprocess.run(
        [
            str(GENERATOR), "generate",
            "--path", str(ROOT / "openapi" / "openapi.json"),
            "--meta", "none",
            "--output-path", str(output),
            "--config", str(config),
        ],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    output_text = run.stdout + run.stderr
    assert run.returncode == 0, output_text
    return output_text


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, str]]:
    """The generated package, imported, and the generator's output."""
    where = tmp_path_factory.mktemp("client")
    output = generate(where / PACKAGE)
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE), output
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def server() -> Iterator[GunicornServer]:
    """gunicorn with the production config on the memory store."""
    with GunicornServer(env={"RATELIMIT_ENABLED": "0"}, workers=1) as live:
        yield live


def test_the_client_generates_without_a_warning_or_a_skipped_endpoint(
    generated: tuple[ModuleType, str],
) -> None:
    package, output = generated
    problems = [
        line
        for line in output.splitlines()
        if "warning" in line.lower() or "will not be generated" in line or "Unable to" in line
    ]
    assert problems == [], output
    api = Path(package.__file__).parent / "api"
    functions = {path.stem for path in api.rglob("*.py") if path.stem != "__init__"}
    expected = {"create_game", "list_games", "join_game", "get_game", "get_legal_moves"}
    assert expected | {"make_move", "get_events"} <= functions
    # Auth is the client's (`AuthenticatedClient`), not a stray header argument.
    make_move = importlib.import_module(f"{PACKAGE}.api.moves.make_move")
    assert "authorization" not in make_move.sync.__code__.co_varnames


def _choose(moves: list[Any], models: ModuleType) -> Any:
    """Meld or lay off when possible, else draw from the stock, else discard the
    last card listed (the highest)."""
    for kind in (models.MeldMove, models.LayoffMove):
        for move in moves:
            if isinstance(move, kind):
                return move
    for move in moves:
        if isinstance(move, models.DrawMove) and move.source.value == "stock":
            return move
    discards = [move for move in moves if isinstance(move, models.DiscardMove)]
    return discards[-1] if discards else moves[0]


def test_the_generated_client_plays_a_whole_game_against_a_server_bot(
    generated: tuple[ModuleType, str], server: GunicornServer
) -> None:
    client_module = importlib.import_module(f"{PACKAGE}.client")
    models = importlib.import_module(f"{PACKAGE}.models")
    create_game = importlib.import_module(f"{PACKAGE}.api.games.create_game")
    get_game = importlib.import_module(f"{PACKAGE}.api.games.get_game")
    get_legal_moves = importlib.import_module(f"{PACKAGE}.api.moves.get_legal_moves")
    make_move = importlib.import_module(f"{PACKAGE}.api.moves.make_move")

    anonymous = client_module.Client(base_url=server.url)
    body = models.CreateGame.from_dict(
        {"preset": "express", "seats": [{"name": "Ann"}, {"bot": "greedy"}], "seed": 5}
    )
    created = create_game.sync(client=anonymous, body=body)
    assert isinstance(created, models.Created), created
    token = created.seats[0].token
    seat = client_module.AuthenticatedClient(base_url=server.url, token=token)
    kinds_played: set[str] = set()
    for _turn in range(2000):
        legal = get_legal_moves.sync(game_id=created.id, client=seat)
        assert isinstance(legal, models.LegalMoves), legal
        if not legal.moves:
            break
        move = _choose(legal.moves, models)
        view = make_move.sync(
            game_id=created.id, client=seat, body=move, if_match=f'"{legal.version}"'
        )
        assert isinstance(view, models.GameView), view
        kinds_played.add(type(move).__name__)
        if view.status.value == "finished":
            break
    final = get_game.sync(game_id=created.id, client=seat)
    assert isinstance(final, models.GameView), final
    assert final.status.value == "finished"
    assert final.winners
    assert {"DrawMove", "DiscardMove"} <= kinds_played
    # Without a seat token there is nothing to list: a typed 401 problem.
    refused = get_legal_moves.sync(game_id=created.id, client=anonymous)
    assert isinstance(refused, models.Problem) and refused.code == "missing_token"


def test_the_generated_client_plays_a_re_engage_decision(
    generated: tuple[ModuleType, str], server: GunicornServer
) -> None:
    """An elimination game of two seats held by the client: both draw and discard what
    they drew until the stock runs out; Ann (30 points against a target of 20) is to
    decide, sees the offer as a typed model, and re-engages with Bob's total."""
    client_module = importlib.import_module(f"{PACKAGE}.client")
    models = importlib.import_module(f"{PACKAGE}.models")
    create_game = importlib.import_module(f"{PACKAGE}.api.games.create_game")
    get_game = importlib.import_module(f"{PACKAGE}.api.games.get_game")
    get_legal_moves = importlib.import_module(f"{PACKAGE}.api.moves.get_legal_moves")
    make_move = importlib.import_module(f"{PACKAGE}.api.moves.make_move")
    from tests.api.test_rulings_over_http import deck_of

    deck = deck_of([["DK", "SK", "HQ"], ["C2", "D3", "H7"]], ["HA"])
    body = models.CreateGame.from_dict(
        {
            "preset": "elimination",
            "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "deck": deck,
            "first_dealer": 1,
            "options": {"hand_size": 3, "target_score": 20, "stock_refill": "none"},
        }
    )
    anonymous = client_module.Client(base_url=server.url)
    created = create_game.sync(client=anonymous, body=body)
    assert isinstance(created, models.Created), created
    seats = [
        client_module.AuthenticatedClient(base_url=server.url, token=s.token) for s in created.seats
    ]
    for _turn in range(200):
        movers = [
            (i, get_legal_moves.sync(game_id=created.id, client=seat))
            for i, seat in enumerate(seats)
        ]
        i, legal = next((i, legal) for i, legal in movers if legal.moves)
        if any(isinstance(m, models.ReengageMove) for m in legal.moves):
            break
        draw = next(
            m for m in legal.moves if isinstance(m, models.DrawMove) and m.source.value == "stock"
        )
        before = set(get_game.sync(game_id=created.id, client=seats[i]).hand)
        view = make_move.sync(game_id=created.id, client=seats[i], body=draw)
        assert isinstance(view, models.GameView), view
        if view.round_ is None or view.round_.phase.value != "play":
            continue  # the draw from the empty stock ended the round
        (card,) = set(view.hand) - before
        discard = models.DiscardMove.from_dict({"type": "discard", "card": card})
        view = make_move.sync(game_id=created.id, client=seats[i], body=discard)
        assert isinstance(view, models.GameView), view
    assert i == 0 and {type(m).__name__ for m in legal.moves} == {
        "ReengageMove",
        "DeclineReengageMove",
    }
    seen = get_legal_moves.sync(game_id=created.id, client=seats[0])
    offer = make_move.sync(game_id=created.id, client=seats[1], body=seen.moves[0])
    assert isinstance(offer, models.Problem) and offer.code == "cannot_reengage"
    back = make_move.sync(game_id=created.id, client=seats[0], body=seen.moves[0])
    assert isinstance(back, models.GameView), back
    assert back.reengage is None and back.round_ is not None and back.round_.number == 2
    assert back.seats[0].score == back.seats[1].score and not back.seats[0].eliminated


def test_the_generated_client_queues_is_matched_and_plays(
    generated: tuple[ModuleType, str], server: GunicornServer
) -> None:
    """Two tickets for 2-player `express`, queued, long-polled and cancelled with
    the typed functions only; each matched seat's token reads its own hand."""
    client_module = importlib.import_module(f"{PACKAGE}.client")
    models = importlib.import_module(f"{PACKAGE}.models")
    enqueue = importlib.import_module(f"{PACKAGE}.api.queue.enqueue")
    get_ticket = importlib.import_module(f"{PACKAGE}.api.queue.get_ticket")
    cancel_ticket = importlib.import_module(f"{PACKAGE}.api.queue.cancel_ticket")
    get_game = importlib.import_module(f"{PACKAGE}.api.games.get_game")
    anonymous = client_module.Client(base_url=server.url)
    # A ticket for a table nobody else wants leaves the queue again.
    alone = enqueue.sync(
        client=anonymous,
        body=models.Enqueue.from_dict({"preset": "block", "players": 5, "name": "Al"}),
    )
    assert isinstance(alone, models.Enqueued), alone
    holder = client_module.AuthenticatedClient(base_url=server.url, token=alone.secret)
    assert cancel_ticket.sync_detailed(ticket=alone.ticket, client=holder).status_code == 204
    tickets = [
        enqueue.sync(
            client=anonymous,
            body=models.Enqueue.from_dict({"preset": "express", "players": 2, "name": name}),
        )
        for name in ("Ann", "Bob")
    ]
    seats = []
    for ticket in tickets:
        assert isinstance(ticket, models.Enqueued), ticket
        holder = client_module.AuthenticatedClient(base_url=server.url, token=ticket.secret)
        for _ in range(10):
            read = get_ticket.sync(ticket=ticket.ticket, client=holder, wait=5.0)
            assert isinstance(read, models.Ticket), read
            if read.status.value == "matched":
                break
        seats.append(read)
    assert seats[0].game == seats[1].game and {s.seat for s in seats} == {0, 1}
    for read in seats:
        seat = client_module.AuthenticatedClient(base_url=server.url, token=read.token)
        view = get_game.sync(game_id=read.game, client=seat)
        assert isinstance(view, models.GameView), view
        assert view.you == read.seat and len(view.hand) > 0


def test_the_generated_client_rematches(
    generated: tuple[ModuleType, str], server: GunicornServer
) -> None:
    """Ann and Bob finish an express game, Ann asks for the rematch, Bob follows (the
    same next game, his own seat; asking again answers the same token), and a
    stranger's token is refused with a typed problem."""
    client_module = importlib.import_module(f"{PACKAGE}.client")
    models = importlib.import_module(f"{PACKAGE}.models")
    create_game = importlib.import_module(f"{PACKAGE}.api.games.create_game")
    get_game = importlib.import_module(f"{PACKAGE}.api.games.get_game")
    get_legal_moves = importlib.import_module(f"{PACKAGE}.api.moves.get_legal_moves")
    make_move = importlib.import_module(f"{PACKAGE}.api.moves.make_move")
    rematch = importlib.import_module(f"{PACKAGE}.api.games.rematch")

    anonymous = client_module.Client(base_url=server.url)
    body = models.CreateGame.from_dict(
        {"preset": "express", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 11}
    )
    created = create_game.sync(client=anonymous, body=body)
    assert isinstance(created, models.Created), created
    seats = [
        client_module.AuthenticatedClient(base_url=server.url, token=s.token) for s in created.seats
    ]
    too_soon = rematch.sync(game_id=created.id, client=seats[0])
    assert isinstance(too_soon, models.Problem) and too_soon.code == "game_not_finished"
    for _turn in range(2000):
        movers = [(seat, get_legal_moves.sync(game_id=created.id, client=seat)) for seat in seats]
        playing = [(seat, legal) for seat, legal in movers if legal.moves]
        if not playing:
            break
        seat, legal = playing[0]
        make_move.sync(game_id=created.id, client=seat, body=_choose(legal.moves, models))
    old = get_game.sync(game_id=created.id, client=anonymous)
    assert isinstance(old, models.GameView) and old.status.value == "finished"
    assert old.next_game is None

    ann = rematch.sync(game_id=created.id, client=seats[0])
    assert isinstance(ann, models.Rematched), ann
    assert ann.seat == 1 and ann.game.status.value == "waiting"
    linked = get_game.sync(game_id=created.id, client=anonymous)
    assert linked.next_game == ann.game.id
    bob = rematch.sync(game_id=created.id, client=seats[1])
    assert isinstance(bob, models.Rematched), bob
    assert (bob.game.id, bob.seat) == (ann.game.id, 0)
    assert bob.game.status.value == "active"
    again = rematch.sync(game_id=created.id, client=seats[1])
    assert isinstance(again, models.Rematched) and again.token == bob.token
    next_seat = client_module.AuthenticatedClient(base_url=server.url, token=bob.token)
    mine = get_game.sync(game_id=bob.game.id, client=next_seat)
    assert isinstance(mine, models.GameView) and mine.you == 0 and mine.hand

    other = create_game.sync(client=anonymous, body=body)
    stranger = client_module.AuthenticatedClient(base_url=server.url, token=other.seats[0].token)
    refused = rematch.sync(game_id=created.id, client=stranger)
    assert isinstance(refused, models.Problem) and refused.code == "invalid_token"
