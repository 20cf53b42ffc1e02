"""Game options (RULES.md §7), the named presets (RULES.md §8) and validation of overrides.

An :class:`Options` value fixes every rule of a game. A game is created from a
preset plus overrides; :func:`resolve_options` checks every value and refuses
impossible combinations (a player count outside the preset's range, a hand size
that cannot be dealt, elimination without penalty scoring, ...) with an
:class:`OptionsError` whose ``errors`` map each option to its messages.

Representation decisions:

- ``hand_size`` is ``None`` for "by player count" (2: 10, 3-4: 7, 5-6: 6).
- ``target_score`` is an int or a map from player count to int; it is stored as
  a sorted tuple of ``(players, score)`` pairs so that ``Options`` stays hashable,
  and shown in JSON as ``{"2": 100, ...}`` (JSON keys are strings).
- ``rounds`` is ``None`` unless ``end`` is ``rounds``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TargetScore = int | tuple[tuple[int, int], ...]

ACE_MODES = ("low", "high_or_low", "around")
RUMMY_BONUSES = ("double", "plus10", "none")
STOCK_REFILLS = ("shuffle", "turn_over", "none")
NO_WINNER = ("void", "lowest_takes_difference", "count")
SCORINGS = ("winner_takes_all", "penalty")
ENDS = ("target", "rounds", "express", "elimination")

MIN_PLAYERS = 2
MAX_PLAYERS = 6


class OptionsError(ValueError):
    """Unknown preset or option, a bad value or an impossible combination.

    ``errors`` maps the option name (or ``"preset"``, ``"players"``, ``"deck"``) to
    its messages, ready for an API ``errors`` field.
    """

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        text = "; ".join(f"{k}: {' '.join(v)}" for k, v in sorted(errors.items()))
        super().__init__(text)


#: Largest ``spectator_delay`` (events): the store keeps each game's latest
#: ``MAX_EVENTS`` events (24 by default), and a delayed spectator must still find
#: the events it has yet to see.
MAX_SPECTATOR_DELAY = 20


@dataclass(frozen=True, slots=True)
class Options:
    """Every option of RULES.md §7, one field each."""

    players: tuple[int, int] = (2, 6)
    hand_size: int | None = None
    ace: str = "low"
    ace_points: int = 1
    melds_per_turn: int | None = None
    layoff_requires_own_meld: bool = False
    go_out_requires_discard: bool = False
    rummy_bonus: str = "double"
    stock_refill: str = "shuffle"
    refill_keeps_top: bool = True
    max_refills: int | None = None
    no_winner: str = "void"
    scoring: str = "winner_takes_all"
    end: str = "target"
    target_score: TargetScore = 150
    rounds: int | None = None
    reengage: bool = False
    reengage_limit: int = 0
    decks: int = 1
    jokers: int = 0
    joker_points: int = 0
    joker_swap: bool = False
    first_meld_min_points: int = 0
    concealed_rounds: tuple[int, ...] = ()
    first_turn_no_draw: bool = False
    spectator_delay: int = 0
    turn_seconds: int | None = None
    timeouts_to_away: int = 2

    def to_json(self) -> dict[str, Any]:
        """Every option with its JSON value (lists for tuples, string keys for maps)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "target_score" and isinstance(value, tuple):
                value = {str(k): v for k, v in value}
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    def hand_size_for(self, players: int) -> int:
        """Cards dealt to each player when ``players`` are dealt in (RULES.md §3)."""
        if self.hand_size is not None:
            return self.hand_size
        if players <= 2:
            return 10
        if players <= 4:
            return 7
        return 6

    def target_for(self, players: int) -> int:
        """The target score for a game of ``players`` seats."""
        if isinstance(self.target_score, int):
            return self.target_score
        table = dict(self.target_score)
        if players in table:
            return table[players]
        # Validation guarantees an entry for the game's player count; fall back to the largest.
        return max(table.values())

    def deck_size(self) -> int:
        """Number of cards in the game's deck."""
        return 52 * self.decks + self.jokers


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Options))


@dataclass(frozen=True, slots=True)
class Preset:
    """A named, complete rule set."""

    name: str
    description: str
    options: Options

    def to_json(self) -> dict[str, Any]:
        """``{"name", "description", "options"}`` as the API lists it."""
        return {
            "name": self.name,
            "description": self.description,
            "options": self.options.to_json(),
        }


_STANDARD = Options()
_STRAIGHT = dataclasses.replace(
    _STANDARD,
    melds_per_turn=1,
    rummy_bonus="none",
    stock_refill="turn_over",
    refill_keeps_top=False,
    target_score=100,
)
_EXPRESS = dataclasses.replace(
    _STANDARD,
    players=(2, 4),
    ace_points=15,
    scoring="penalty",
    end="express",
    rummy_bonus="double",
    refill_keeps_top=False,
    no_winner="count",
)

PRESETS: Mapping[str, Preset] = {
    p.name: p
    for p in (
        Preset("standard", "full common rules", _STANDARD),
        Preset(
            "traditional",
            "the classic online Basic Rummy",
            dataclasses.replace(
                _STANDARD,
                players=(2, 4),
                refill_keeps_top=False,
                max_refills=1,
                target_score=((2, 100), (3, 150), (4, 200)),
            ),
        ),
        Preset("straight", "Straight Rummy as in the card-game literature", _STRAIGHT),
        Preset(
            "block",
            "Block Rummy",
            dataclasses.replace(
                _STRAIGHT, stock_refill="none", no_winner="lowest_takes_difference"
            ),
        ),
        Preset(
            "meld_first",
            "four-player online rummy to 200",
            dataclasses.replace(
                _STANDARD,
                players=(2, 4),
                layoff_requires_own_meld=True,
                rummy_bonus="none",
                stock_refill="turn_over",
                refill_keeps_top=False,
                max_refills=1,
                target_score=200,
            ),
        ),
        Preset("express", "one-round game, aces 15", _EXPRESS),
        Preset(
            "elimination",
            "points game with elimination",
            dataclasses.replace(
                _EXPRESS, end="elimination", target_score=100, reengage=True, reengage_limit=1
            ),
        ),
        Preset(
            "penalty",
            "penalty-point house rule",
            dataclasses.replace(_STANDARD, scoring="penalty", no_winner="count", target_score=100),
        ),
        Preset(
            "ace_high",
            "ace high or low house rule",
            dataclasses.replace(_STANDARD, ace="high_or_low", ace_points=15),
        ),
        Preset(
            "vrotham",
            "jokers variant (55 cards)",
            dataclasses.replace(
                _STANDARD,
                jokers=3,
                joker_points=15,
                joker_swap=True,
                end="rounds",
                rounds=6,
                hand_size=7,
                first_turn_no_draw=True,
                concealed_rounds=(4, 5, 6),
            ),
        ),
        Preset(
            "romme",
            "two decks, six jokers",
            dataclasses.replace(
                _STANDARD,
                decks=2,
                jokers=6,
                joker_points=20,
                first_meld_min_points=40,
                joker_swap=True,
                hand_size=13,
                first_turn_no_draw=True,
            ),
        ),
    )
}


def _is_int(v: object) -> bool:
    return type(v) is int


def _convert(name: str, value: object, errors: dict[str, list[str]]) -> object:
    """Check one override's type and range; return the stored form of the value."""

    def bad(msg: str) -> None:
        errors.setdefault(name, []).append(msg)

    def choice(allowed: tuple[str, ...]) -> object:
        if value not in allowed:
            bad(f"must be one of {', '.join(allowed)}, not {value!r}")
        return value

    def boolean() -> object:
        if type(value) is not bool:
            bad(f"must be true or false, not {value!r}")
        return value

    def integer(lo: int, hi: int | None = None, nullable: bool = False) -> object:
        if value is None and nullable:
            return None
        if not _is_int(value) or value < lo or (hi is not None and value > hi):  # type: ignore[operator]
            rng = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
            bad(f"must be an integer {rng}{' or null' if nullable else ''}, not {value!r}")
        return value

    if name == "players":
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or not all(_is_int(v) for v in value)
            or not MIN_PLAYERS <= value[0] <= value[1] <= MAX_PLAYERS
        ):
            bad(
                f"must be [min, max] with {MIN_PLAYERS} <= min <= max <= {MAX_PLAYERS}, "
                f"not {value!r}"
            )
            return value
        return (value[0], value[1])
    if name == "hand_size":
        return integer(1, 60, nullable=True)
    if name == "ace":
        return choice(ACE_MODES)
    if name == "ace_points":
        if value not in (1, 15) or type(value) is not int:
            bad(f"must be 1 or 15, not {value!r}")
        return value
    if name == "melds_per_turn":
        if value is not None and (value != 1 or type(value) is not int):
            bad(f"must be null or 1, not {value!r}")
        return value
    if name in ("layoff_requires_own_meld", "go_out_requires_discard", "refill_keeps_top"):
        return boolean()
    if name in ("reengage", "joker_swap", "first_turn_no_draw"):
        return boolean()
    if name == "rummy_bonus":
        return choice(RUMMY_BONUSES)
    if name == "stock_refill":
        return choice(STOCK_REFILLS)
    if name == "max_refills":
        return integer(0, None, nullable=True)
    if name == "no_winner":
        return choice(NO_WINNER)
    if name == "scoring":
        return choice(SCORINGS)
    if name == "end":
        return choice(ENDS)
    if name == "target_score":
        if isinstance(value, Mapping):
            pairs: list[tuple[int, int]] = []
            for k, v in value.items():
                try:
                    count = int(k) if isinstance(k, str) and k.isdigit() else k
                except ValueError:  # pragma: no cover - isdigit guards int()
                    count = k
                if (
                    not _is_int(count)
                    or not MIN_PLAYERS <= count <= MAX_PLAYERS
                    or not _is_int(v)
                    or v < 1
                ):
                    bad(
                        "map entries must be player count (2-6) -> positive integer, "
                        f"not {k!r}: {v!r}"
                    )
                    return value
                pairs.append((count, v))
            if not pairs:
                bad("must not be an empty map")
            return tuple(sorted(pairs))
        return integer(1)
    if name == "rounds":
        return integer(1, 1000, nullable=True)
    if name == "reengage_limit":
        return integer(0, 100)
    if name == "decks":
        return integer(1, 2)
    if name == "jokers":
        return integer(0, 6)
    if name == "joker_points":
        return integer(0, 100)
    if name == "first_meld_min_points":
        return integer(0, 500)
    if name == "spectator_delay":
        return integer(0, MAX_SPECTATOR_DELAY)
    if name == "turn_seconds":
        return integer(5, 3600, nullable=True)
    if name == "timeouts_to_away":
        return integer(1, 10)
    if name == "concealed_rounds":
        if not isinstance(value, list | tuple) or not all(_is_int(v) and v >= 1 for v in value):
            bad(f"must be a list of round numbers (positive integers), not {value!r}")
            return value
        return tuple(sorted(set(value)))
    bad("unknown option")  # pragma: no cover - caller filters names
    return value


def check_options(options: Options, players: int) -> dict[str, list[str]]:
    """Return the errors of this combination of options for a game of ``players`` seats."""
    errors: dict[str, list[str]] = {}

    def bad(name: str, msg: str) -> None:
        errors.setdefault(name, []).append(msg)

    lo, hi = options.players
    if not _is_int(players) or not lo <= players <= hi:
        bad("players", f"this rule set allows {lo} to {hi} players, not {players!r}")
        return errors
    hand = options.hand_size_for(players)
    needed = players * hand + 1  # every hand plus the first up-card (or the extra card)
    if needed > options.deck_size():
        bad(
            "hand_size",
            f"{players} hands of {hand} cards and one more need {needed} cards; "
            f"the deck has {options.deck_size()}",
        )
    if options.end == "elimination" and options.scoring != "penalty":
        bad("end", "elimination needs penalty scoring")
    if options.end == "rounds" and options.rounds is None:
        bad("rounds", "end 'rounds' needs a number of rounds")
    if isinstance(options.target_score, tuple) and players not in dict(options.target_score):
        bad("target_score", f"the map has no target for {players} players")
    if options.go_out_requires_discard and hand < 3:
        # Two cards plus the draw make one meld at most, which leaves nothing to discard,
        # so nobody could ever meld and every round would be blocked.
        bad("hand_size", f"with go_out_requires_discard a hand needs at least 3 cards, not {hand}")
    return errors


def resolve_options(preset: str, overrides: Mapping[str, object], players: int) -> Options:
    """The preset's options with ``overrides`` applied, checked for a game of ``players`` seats."""
    if preset not in PRESETS:
        raise OptionsError({"preset": [f"unknown preset {preset!r}; known: {', '.join(PRESETS)}"]})
    errors: dict[str, list[str]] = {}
    changes: dict[str, object] = {}
    for name, value in overrides.items():
        if name not in OPTION_NAMES:
            errors.setdefault(name, []).append("unknown option")
            continue
        changes[name] = _convert(name, value, errors)
    if errors:
        raise OptionsError(errors)
    options = dataclasses.replace(PRESETS[preset].options, **changes)  # type: ignore[arg-type]
    errors = check_options(options, players)
    if errors:
        raise OptionsError(errors)
    return options


def options_from_json(values: Mapping[str, object]) -> Options:
    """Rebuild :class:`Options` from :meth:`Options.to_json` output (every option present).

    Checks each value's type and range, not the player count; raises :class:`OptionsError`.
    """
    errors: dict[str, list[str]] = {}
    missing = [n for n in OPTION_NAMES if n not in values]
    unknown = [n for n in values if n not in OPTION_NAMES]
    for n in missing:
        errors.setdefault(n, []).append("missing")
    for n in unknown:
        errors.setdefault(n, []).append("unknown option")
    if errors:
        raise OptionsError(errors)
    changes = {n: _convert(n, values[n], errors) for n in OPTION_NAMES}
    if errors:
        raise OptionsError(errors)
    return Options(**changes)  # type: ignore[arg-type]
