"""Check a game's deals: ``python -m service.bots.dealcheck verify GAME_URL [--token-file PATH]``,
or a downloaded record: ``python -m service.bots.dealcheck verify RECORD.json``
(`service.bots.recordcheck`, docs/records.md).

Part of the bot kit; it needs only Python's standard library (and
:mod:`service.rules.fairness`, which does too). It reads the game's view and the
events the service still keeps, checks every revealed secret against its
commitment, re-derives the deal and every stock refill of each round whose events
are all kept and replays the round card by card (docs/fairness.md). Exit status:
0 when everything matches, 1 on a mismatch, 2 when there is nothing to check, 3
when a check it was asked for could not be made: a finished round (all of them,
or those given with ``--round``) whose events are no longer kept, or a finished
game whose commitment made at its creation (``game_created``) is gone.
A seat token (to check that seat's dealt hands too) comes from ``RUMMY_TOKEN``
or ``--token-file PATH``, never the command line (`service.bots.token_source`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.bots.token_source import add_token_options, token_from
from service.rules import fairness

#: Exit statuses of the command.
OK, MISMATCH, NOTHING_TO_CHECK, INCOMPLETE = 0, 1, 2, 3

_SUITS = ("C", "D", "H", "S")
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = "JK"


def fresh_deck(decks: int, jokers: int) -> list[str]:
    """The fresh deck of docs/fairness.md: each deck's C, D, H, S (A..K), then the jokers."""
    return [s + r for s in _SUITS for r in _RANKS] * decks + [JOKER] * jokers


@dataclass
class Report:
    """What a check found: one line per check, and the mismatches among them."""

    lines: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    #: Checks asked for that could not be made (the events they need are gone).
    missing: list[str] = field(default_factory=list)

    def ok(self, text: str) -> None:
        """Record a check that passed."""
        self.lines.append(f"ok        {text}")

    def note(self, text: str) -> None:
        """Record something that could not be checked."""
        self.lines.append(f"note      {text}")

    def unchecked(self, text: str) -> None:
        """Record a check that was asked for and could not be made."""
        self.lines.append(f"UNCHECKED {text}")
        self.missing.append(text)

    def expect(self, passed: bool, text: str) -> bool:
        """Record a check; a failed one is a mismatch."""
        if passed:
            self.ok(text)
        else:
            self.lines.append(f"MISMATCH  {text}")
            self.mismatches.append(text)
        return passed


def derive_deal(
    options: dict[str, Any], secret: bytes, dealer: int, dealt: Sequence[bool], size: int
) -> dict[str, Any]:
    """The deal a round's secret gives (docs/fairness.md): every hand (`None` for a
    seat not dealt in), the up-card (`None` with ``first_turn_no_draw``) and the
    stock, the card drawn first first."""
    replay = _Replay(options, secret)
    replay.deal(dealer, dealt, size)
    return {
        "hands": [list(replay.hands[i]) if dealt[i] else None for i in range(len(dealt))],
        "upcard": replay.discard[-1] if replay.discard else None,
        "stock": list(replay.stock),
    }


def dealt_size(options: dict[str, Any], sizes: Sequence[int | None]) -> int:
    """The hand size a round dealt, from its dealt hands' sizes (the first player
    holds one more with ``first_turn_no_draw``)."""
    counted = [s for s in sizes if s is not None]
    extra = 1 if options.get("first_turn_no_draw") else 0
    return (sum(counted) - extra) // max(1, len(counted))


class _Replay:
    """One round replayed from its secret: every hand, the stock and the discard pile."""

    def __init__(self, options: dict[str, Any], secret: bytes) -> None:
        self.options = options
        self.secret = secret
        self.hands: dict[int, list[str]] = {}
        self.stock: list[str] = []  # the next card to draw first
        self.discard: list[str] = []  # bottom to top

    def deal(self, dealer: int, dealt: Sequence[bool], size: int) -> list[int]:
        """Deal as the document says; returns the seats in dealing order."""
        cards = fairness.shuffled(
            fresh_deck(int(self.options["decks"]), int(self.options["jokers"])),
            self.secret,
            fairness.DEAL_LABEL,
        )
        n = len(dealt)
        order = [s % n for s in range(dealer + 1, dealer + 1 + n) if dealt[s % n]]
        self.hands = {seat: [] for seat in range(n)}
        k = len(order)
        for i in range(k * size):
            self.hands[order[i % k]].append(cards[i])
        pos = k * size
        if self.options.get("first_turn_no_draw"):
            self.hands[order[0]].append(cards[pos])
        else:
            self.discard = [cards[pos]]
        self.stock = cards[pos + 1 :]
        return order

    def take_out(self, seat: int, cards: Sequence[str]) -> bool:
        """Remove ``cards`` from the seat's replayed hand; ``False`` if it lacks one."""
        hand = self.hands.get(seat, [])
        for card in cards:
            if card not in hand:
                return False
            hand.remove(card)
        return True


def _sha(hex_text: str) -> str:
    return hashlib.sha256(bytes.fromhex(hex_text)).hexdigest()


def _is_hex(text: object, size: int) -> bool:
    if type(text) is not str or len(text) != size * 2:
        return False
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def verify_game(
    view: dict[str, Any],
    events: list[dict[str, Any]],
    asked: Sequence[int] | None = None,
) -> Report:
    """Check a game from its view and the events kept (see the module docstring);
    `asked`: the rounds that must be replayed (`None`: every finished round)."""
    report = Report()
    if view.get("deal") != "random":
        report.note(f"the game is dealt {view.get('deal')!r}: it has no commitments")
        return report
    rounds = [r for r in view.get("rounds", []) if r.get("secret") is not None]
    seeds = [seat.get("client_seed") for seat in view.get("seats", [])]
    for rec in rounds:
        secret, commit = rec["secret"], rec.get("deal_commitment")
        report.expect(
            _is_hex(secret, 32) and _sha(secret) == commit,
            f"round {rec['number']}: SHA-256(secret) is its deal_commitment",
        )
    game_secret = view.get("game_secret")
    if game_secret is not None:
        report.expect(
            _is_hex(game_secret, fairness.SECRET_BYTES)
            and _sha(game_secret) == view.get("game_commitment"),
            "SHA-256(game_secret) is the game_commitment",
        )
        if _is_hex(game_secret, fairness.SECRET_BYTES):
            for rec in rounds:
                expected = fairness.round_secret(bytes.fromhex(game_secret), rec["number"], seeds)
                report.expect(
                    expected.hex() == rec["secret"],
                    f"round {rec['number']}: its secret comes from the game secret and the "
                    "client seeds",
                )
    else:
        report.note("the game is not over: its game secret is not revealed yet")
    by_number = {rec["number"]: rec for rec in rounds}
    created = next((e for e in events if e.get("type") == "game_created"), None)
    if created is not None:
        report.expect(
            created.get("game_commitment") == view.get("game_commitment"),
            "game_created carries the view's game_commitment",
        )
    elif game_secret is not None:
        # Without the commitment made at the start, a game secret and commitments
        # forged together after the end would agree with each other.
        report.unchecked(
            "game_created is no longer kept: the game_commitment made at the start is unknown"
        )
    starts = {e["number"]: i for i, e in enumerate(events) if e.get("type") == "round_started"}
    ends = {e["number"]: i for i, e in enumerate(events) if e.get("type") == "round_ended"}
    replayed = 0
    wanted = set(by_number) if asked is None else set(asked)
    for number in sorted(wanted - set(by_number)):
        report.unchecked(f"round {number}: it has not ended (no revealed secret to check)")
    for number, rec in sorted(by_number.items()):
        if number not in wanted:
            continue
        if number not in starts or number not in ends:
            report.unchecked(f"round {number}: its events are no longer kept; deal not replayed")
            continue
        # Who must deal: round 1's dealer is drawn from its secret (unless the creator
        # gave one); later rounds pass the deal on from the previous round's dealer.
        dealer_rule: tuple[str, int | None] | None = None
        if number == 1 and created is not None:
            dealer_rule = ("first", created.get("first_dealer"))
        elif number - 1 in starts:
            dealer_rule = ("after", events[starts[number - 1]]["dealer"])
        _replay_round(
            report, view, events[starts[number] : ends[number] + 1], rec, dealer_rule, number
        )
        replayed += 1
    if replayed == 0 and rounds:
        report.note("no round could be replayed: raise MAX_EVENTS to keep a whole game's events")
    return report


def exit_status(report: Report) -> int:
    """The command's exit status for `report` (see the module docstring)."""
    if report.mismatches:
        return MISMATCH
    if report.missing:
        return INCOMPLETE
    if not any(line.startswith("ok") for line in report.lines):
        return NOTHING_TO_CHECK
    return OK


def _replay_round(
    report: Report,
    view: dict[str, Any],
    events: list[dict[str, Any]],
    rec: dict[str, Any],
    dealer_rule: tuple[str, int | None] | None,
    number: int,
) -> None:
    start, end = events[0], events[-1]
    tag = f"round {number}"
    if not report.expect(
        start.get("deal_commitment") == rec.get("deal_commitment")
        and end.get("secret") == rec.get("secret"),
        f"{tag}: round_started and round_ended carry the view's commitment and secret",
    ):
        return
    secret = bytes.fromhex(rec["secret"])
    sizes = start.get("hand_sizes") or [None if h is None else len(h) for h in start["hands"]]
    dealt = [size is not None for size in sizes]
    players = len(sizes)
    dealer = start["dealer"]
    if dealer_rule is not None:
        kind, seat = dealer_rule
        if kind == "first":
            expected = seat if seat is not None else fairness.first_dealer(secret, players)
        else:
            assert seat is not None
            expected = next(
                (seat + k) % players for k in range(1, players + 1) if dealt[(seat + k) % players]
            )
        report.expect(dealer == expected, f"{tag}: the dealer is the one the rules give")
    replay = _Replay(view["options"], secret)
    order = replay.deal(dealer, dealt, dealt_size(view["options"], sizes))
    derived_sizes = [len(replay.hands[i]) if dealt[i] else None for i in range(players)]
    report.expect(
        order[0] == start.get("first")
        and derived_sizes == sizes
        and start.get("discard_pile") == replay.discard
        and start.get("stock_size") == len(replay.stock),
        f"{tag}: the first player, hand sizes, up-card and stock size are the derived deal's",
    )
    if "hand" in start:
        you = view.get("you")
        report.expect(
            you is not None and sorted(start["hand"]) == sorted(replay.hands[you]),
            f"{tag}: seat {you}'s dealt hand is the derived one",
        )
    steps: dict[str, Callable[[dict[str, Any]], str | None]] = {
        "drew": lambda e: _drew(replay, e),
        "stock_refilled": lambda e: _refilled(replay, e),
        "melded": lambda e: _played(replay, e, e["meld"]["cards"]),
        "laid_off": lambda e: _played(replay, e, e["cards"]),
        "joker_swapped": lambda e: _swapped(replay, e),
        "discarded": lambda e: _discarded(replay, e),
    }
    for event in events[1:-1]:
        step = steps.get(str(event.get("type")))
        problem = step(event) if step is not None else None
        if problem is not None:
            report.expect(False, f"{tag}: event {event.get('seq')} ({event['type']}): {problem}")
            return
    final = end.get("hands") or []
    report.expect(
        len(final) == players
        and all(sorted(final[i]) == sorted(replay.hands[i]) for i in range(players)),
        f"{tag}: every move replays from the derived cards to the hands shown at its end",
    )


def _drew(replay: _Replay, event: dict[str, Any]) -> str | None:
    seat = event["seat"]
    if event.get("source") == "discard":
        if not replay.discard or replay.discard[-1] != event.get("card"):
            return f"{event.get('card')} is not the top of the discard pile"
        replay.hands[seat].append(replay.discard.pop())
        return None
    if not replay.stock:
        return "a draw from an empty stock"
    card = replay.stock.pop(0)
    if "card" in event and event["card"] != card:
        return f"drew {event['card']} where the derived stock gives {card}"
    replay.hands[seat].append(card)
    return None


def _refilled(replay: _Replay, event: dict[str, Any]) -> str | None:
    options = replay.options
    if options.get("refill_keeps_top") and replay.discard:
        pile, replay.discard = replay.discard[:-1], replay.discard[-1:]
    else:
        pile, replay.discard = replay.discard, []
    if options.get("stock_refill") == "shuffle":
        label = fairness.refill_label(int(event["refills"]))
        replay.stock = fairness.shuffled(pile, replay.secret, label)
    else:
        replay.stock = list(pile)  # turned over: the card discarded first is drawn first
    if event.get("stock_size") != len(replay.stock) or event.get("discard_pile") != replay.discard:
        return "the refilled stock or discard pile is not the derived one"
    return None


def _played(replay: _Replay, event: dict[str, Any], cards: Sequence[str]) -> str | None:
    if not replay.take_out(event["seat"], cards):
        return f"seat {event['seat']} does not hold {list(cards)} in the replay"
    return None


def _swapped(replay: _Replay, event: dict[str, Any]) -> str | None:
    if not replay.take_out(event["seat"], [event["card"]]):
        return f"seat {event['seat']} does not hold {event['card']} in the replay"
    replay.hands[event["seat"]].append(JOKER)
    return None


def _discarded(replay: _Replay, event: dict[str, Any]) -> str | None:
    if not replay.take_out(event["seat"], [event["card"]]):
        return f"seat {event['seat']} does not hold {event['card']} in the replay"
    replay.discard.append(event["card"])
    return None


def _get(url: str, token: str | None) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def fetch_game(
    game_url: str, token: str | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The game's view and every event the service still keeps, oldest first."""
    game_url = game_url.rstrip("/")
    view = _get(game_url, token)
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        page = _get(f"{game_url}/events?after={after}", token)
        events += page["events"]
        if not page["events"] or page["last"] <= after:
            return view, events
        after = page["last"]


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``verify GAME_URL [--token-file PATH]`` (or ``RUMMY_TOKEN``
    in the environment), or ``verify RECORD.json``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m service.bots.dealcheck",
        description="Check the committed deals of a game dealt at random (docs/fairness.md).",
        allow_abbrev=False,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "verify", help="re-derive and check a game's deals", allow_abbrev=False
    )
    check.add_argument(
        "game_url",
        metavar="GAME_URL|RECORD.json",
        help="the game's URL, e.g. http://127.0.0.1:8000/games/ID, or a downloaded record "
        "(GET /games/ID/record, docs/records.md)",
    )
    add_token_options(check, "a seat token, whose dealt hands are checked too")
    check.add_argument(
        "--round",
        type=int,
        action="append",
        dest="rounds",
        metavar="N",
        help="replay round N (repeatable; default: every finished round)",
    )
    args = parser.parse_args(argv)
    token = token_from(args, check, required=False)
    if not args.game_url.startswith(("http://", "https://")):
        report = _verify_file(args.game_url)
        if report is None:
            return NOTHING_TO_CHECK
        return _print_report(report)
    try:
        view, events = fetch_game(args.game_url, token)
    except (OSError, ValueError, KeyError) as exc:
        print(f"cannot read the game: {exc}", file=sys.stderr)
        return NOTHING_TO_CHECK
    return _print_report(verify_game(view, events, args.rounds))


def _verify_file(path: str) -> Report | None:
    """Check a downloaded record (`service.bots.recordcheck`); `None` if unreadable."""
    from service.bots.recordcheck import verify_record

    try:
        with open(path, encoding="utf-8") as file:
            record = json.load(file)
    except (OSError, ValueError) as exc:
        print(f"cannot read the record: {exc}", file=sys.stderr)
        return None
    if not isinstance(record, dict):
        print("cannot read the record: not a JSON object", file=sys.stderr)
        return None
    try:
        return verify_record(record)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        report = Report()
        report.expect(False, f"the record is malformed: {exc!r}")
        return report


def _print_report(report: Report) -> int:
    for line in report.lines:
        print(line)
    status = exit_status(report)
    if status == MISMATCH:
        print(f"{len(report.mismatches)} mismatch(es)")
    elif status == INCOMPLETE:
        print(f"{len(report.missing)} check(s) could not be made: not verified")
    elif status == NOTHING_TO_CHECK:
        print("nothing to check")
    else:
        print("every check passed")
    return status


if __name__ == "__main__":
    sys.exit(main())
