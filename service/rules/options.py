"""Game options (docs/rules.md §7), the named presets (§8) and validation of overrides.

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

from service.rules.melds import ACE_MODES

TargetScore = int | tuple[tuple[int, int], ...]

RUMMY_BONUSES = ("double", "plus10", "none")
STOCK_REFILLS = ("shuffle", "turn_over", "none")
NO_WINNER = ("void", "lowest_takes_difference", "count")
SCORINGS = ("winner_takes_all", "penalty")
ENDS = ("target", "rounds", "express", "elimination")
JOKER_LIMITS = ("natural_majority", "one_natural")
LAST_STOCKS = ("next_draw", "when_empty")

MIN_PLAYERS = 2
MAX_PLAYERS = 6

# Upper bounds (docs/security.md says why each is what it is). The work of a
# move's validation and of the legal-move listing grows with the hand (with
# two decks and jokers, a hand of 16 cards forms thousands of melds): a hand is
# dealt at most the largest preset's 13 cards (docs/performance.md measures it).
#: Most cards dealt to a hand.
MAX_HAND_SIZE = 13
#: Highest target score (also each entry of a per-player-count map).
MAX_TARGET_SCORE = 1_000
#: Most rounds of an ``end: rounds`` game; also the highest concealed round number
#: and the longest ``concealed_rounds`` list.
MAX_ROUNDS = 100
#: Most re-engagements per seat.
MAX_REENGAGE_LIMIT = 10
#: Most stock refills per round (``null`` is "no limit": refills end when the pile is empty).
MAX_REFILLS = 100
#: Highest value of a joker left in hand.
MAX_JOKER_POINTS = 100
#: Most chips a player puts in the pot (``stake``): play money, bounded so that a
#: pot of six stakes and six half-stake re-engagements stays a small integer.
MAX_STAKE = 1_000_000
#: Most jokers a game may hold under ``joker_limit: one_natural`` (a meld of one
#: natural card and any number of jokers): each joker more multiplies the melds a
#: hand can form, and so the work of a listing (bench/worst_case.py).
MAX_ONE_NATURAL_JOKERS = 4
#: Highest first-meld minimum (about what a hand of 14 cards can reach; a higher
#: minimum only makes the search for an opening longer).
MAX_FIRST_MELD_POINTS = 150


class OptionsError(ValueError):
    """Unknown preset or option, a bad value or an impossible combination.

    ``errors`` maps the option name (or ``"preset"``, ``"players"``, ``"deck"``) to
    its messages, ready for an API ``errors`` field.
    """

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        text = "; ".join(f"{k}: {' '.join(v)}" for k, v in sorted(errors.items()))
        super().__init__(text)


#: Bounds of a turn clock (``turn_seconds``, docs/api.md "Turn clocks"): a turn
#: short enough to be unplayable, or so long that an absent player holds the
#: table for hours, is refused.
MIN_TURN_SECONDS = 5
MAX_TURN_SECONDS = 3600
#: Most timed-out turns in a row before a seat is played for its absent player.
MAX_TIMEOUTS_TO_AWAY = 10

#: Largest ``spectator_delay`` (events): the store keeps each game's latest
#: ``MAX_EVENTS`` events (5000 by default), and a delayed spectator must still find
#: the events it has yet to see.
MAX_SPECTATOR_DELAY = 20


def _show(value: object) -> str:
    """A value for an error message, cut short (a padded value must not make a long answer)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(v: object) -> bool:
    return type(v) is int


def _player_count(key: object) -> int | None:
    """A target map's key as a player count (``"3"`` or ``3``), or ``None``."""
    if isinstance(key, str) and len(key) == 1 and key.isdigit():
        key = int(key)
    return key if _is_int(key) and MIN_PLAYERS <= key <= MAX_PLAYERS else None  # type: ignore[operator, return-value]


def _json_value(value: object) -> object:
    """The JSON form of a stored option value (lists for tuples, string keys for maps)."""
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return {str(k): v for k, v in value}
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One row of the options table: an option's type, bounds, default and meaning.

    ``kind`` is one of ``bool``, ``choice`` (one of ``choices``, which may hold
    ``None`` and integers), ``int`` (``low..high``, ``None`` too when
    ``nullable``), ``players`` (``[min, max]`` within ``low..high``), ``target``
    (an integer ``low..high`` or a map from player count to one) and
    ``round_list`` (at most ``max_items`` round numbers ``low..high``).
    ``default`` is the value in its stored form (the ``standard`` preset's).
    """

    name: str
    kind: str
    default: Any
    description: str
    low: int = 0
    high: int = 0
    choices: tuple[object, ...] = ()
    nullable: bool = False
    max_items: int = 0

    def convert(self, value: object, errors: dict[str, list[str]]) -> object:
        """Check a JSON value of this option; return its stored form (or add to ``errors``)."""
        problem = self._problem(value)
        if problem is not None:
            errors.setdefault(self.name, []).append(problem)
            return value
        if self.kind == "players":
            assert isinstance(value, list | tuple)
            return (value[0], value[1])
        if self.kind == "target" and isinstance(value, Mapping):
            return tuple(sorted((_player_count(k), v) for k, v in value.items()))
        if self.kind == "round_list":
            assert isinstance(value, list | tuple)
            return tuple(sorted(set(value)))
        return value

    def _in_range(self, value: object) -> bool:
        return _is_int(value) and self.low <= value <= self.high  # type: ignore[operator]

    def _problem(self, value: object) -> str | None:
        """Why ``value`` is refused, or ``None``."""
        shown = _show(value)
        if self.kind == "bool":
            return None if type(value) is bool else f"must be true or false, not {shown}"
        if self.kind == "choice":
            # Compare types too: true is not 1, and 1.0 is not 1.
            if any(value == c and type(value) is type(c) for c in self.choices):
                return None
            names = ["null" if c is None else str(c) for c in self.choices]
            allowed = " or ".join(names) if len(names) == 2 else "one of " + ", ".join(names)
            return f"must be {allowed}, not {shown}"
        if self.kind == "int":
            if (value is None and self.nullable) or self._in_range(value):
                return None
            null = " or null" if self.nullable else ""
            return f"must be an integer {self.low}..{self.high}{null}, not {shown}"
        if self.kind == "players":
            if (
                isinstance(value, list | tuple)
                and len(value) == 2
                and all(_is_int(v) for v in value)
                and self.low <= value[0] <= value[1] <= self.high
            ):
                return None
            return f"must be [min, max] with {self.low} <= min <= max <= {self.high}, not {shown}"
        if self.kind == "target":
            if isinstance(value, Mapping):
                if not value:
                    return "must not be an empty map"
                for k, v in value.items():
                    if _player_count(k) is None or not self._in_range(v):
                        return (
                            f"map entries must be player count ({MIN_PLAYERS}-{MAX_PLAYERS}) -> "
                            f"integer {self.low}..{self.high}, not {_show(k)}: {_show(v)}"
                        )
                return None
            if self._in_range(value):
                return None
            return f"must be an integer {self.low}..{self.high} or a map, not {shown}"
        if self.kind == "round_list":
            if (
                isinstance(value, list | tuple)
                and len(value) <= self.max_items
                and all(self._in_range(v) for v in value)
            ):
                return None
            return (
                f"must be a list of at most {self.max_items} round numbers "
                f"{self.low}..{self.high}, not {shown}"
            )
        raise AssertionError(f"unknown option kind {self.kind!r}")  # pragma: no cover

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of this option's values (for the API contract)."""
        integer: dict[str, Any] = {"type": "integer", "minimum": self.low, "maximum": self.high}
        schema: dict[str, Any]
        if self.kind == "bool":
            schema = {"type": "boolean"}
        elif self.kind == "choice":
            schema = {"enum": list(self.choices)}
        elif self.kind == "int":
            schema = {**integer, "type": ["integer", "null"]} if self.nullable else integer
        elif self.kind == "players":
            schema = {"type": "array", "items": integer, "minItems": 2, "maxItems": 2}
        elif self.kind == "target":
            by_count = {
                "type": "object",
                "propertyNames": {"enum": [str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]},
                "additionalProperties": integer,
                "minProperties": 1,
            }
            schema = {"oneOf": [integer, by_count]}
        else:
            schema = {"type": "array", "items": integer, "maxItems": self.max_items}
        return {**schema, "default": _json_value(self.default), "description": self.description}


def _bool(name: str, default: bool, description: str) -> OptionSpec:
    return OptionSpec(name, "bool", default, description)


def _choice(
    name: str, choices: tuple[object, ...], default: object, description: str
) -> OptionSpec:
    return OptionSpec(name, "choice", default, description, choices=choices)


def _int(
    name: str, low: int, high: int, default: int | None, description: str, nullable: bool = False
) -> OptionSpec:
    return OptionSpec(name, "int", default, description, low=low, high=high, nullable=nullable)


#: Every option, one row each: the one description of its type, bounds, default
#: and meaning. Validation, the `Options` defaults and the API contract's
#: ``options`` schema all come from here.
OPTION_TABLE: tuple[OptionSpec, ...] = (
    OptionSpec(
        "players", "players", (MIN_PLAYERS, MAX_PLAYERS),
        "how many seats a game may have", low=MIN_PLAYERS, high=MAX_PLAYERS,
    ),
    _int(
        "hand_size", 1, MAX_HAND_SIZE, None,
        "cards dealt to each player; null: by player count (2: 10, 3-4: 7, 5-6: 6)",
        nullable=True,
    ),
    _choice(
        "ace", ACE_MODES, "low",
        "where an ace may sit in a run (§2): A-2-3 (`low`), also Q-K-A (`high_or_low`), or "
        "round the corner, Q-K-A-2 (`around`)",
    ),
    _choice("ace_points", (1, 15), 1, "an ace left in a hand counts this many points"),
    _choice(
        "melds_per_turn", (None, 1), None, "melds a player may put down in one turn (null: any)"
    ),
    _bool("layoff_requires_own_meld", False, "lay-offs only after a meld of one's own this round"),
    _bool("go_out_requires_discard", False, "the last card must be discarded to go out"),
    _choice(
        "rummy_bonus", RUMMY_BONUSES, "double",
        "what going rummy (out in one turn, nothing melded before) is worth: the round's "
        "points doubled, 10 more, or nothing (§5)",
    ),
    _choice(
        "stock_refill", STOCK_REFILLS, "shuffle",
        "what an empty stock does: the discard pile is shuffled or turned over into a new "
        "stock, or it is not refilled (§5)",
    ),
    _bool("refill_keeps_top", True, "the top discard stays when the pile becomes the stock"),
    _int(
        "max_refills", 0, MAX_REFILLS, None,
        "refills per round before an empty stock ends the round (null: no limit)", nullable=True,
    ),
    _choice(
        "last_stock", LAST_STOCKS, "next_draw",
        "when a stock that may not be refilled ends the round: when the next player finds it "
        "empty and does not take the discard, or as soon as its last card is drawn and that "
        "turn ends without going out (§5)",
    ),
    _choice(
        "no_winner", NO_WINNER, "void",
        "scoring of a round nobody went out of: nothing, the lowest hand scores the "
        "differences to the others, or each player scores their own hand (§5)",
    ),
    _choice(
        "scoring", SCORINGS, "winner_takes_all",
        "who scores a round: the player who went out takes the others' hands, or each other "
        "player scores their own as penalty points (§6)",
    ),
    _choice(
        "end", ENDS, "target",
        "when the game is over: a total reaches the target, after a number of rounds, after "
        "one round (`express`), or when one player is left (`elimination`) (§6)",
    ),
    OptionSpec(
        "target_score", "target", 150,
        "the target of `target` and `elimination`: one number, or a map from player count "
        "to one",
        low=1, high=MAX_TARGET_SCORE,
    ),
    _int(
        "rounds", 1, MAX_ROUNDS, None, "rounds in a game of `end: rounds` (null otherwise)",
        nullable=True,
    ),
    _bool("reengage", False, "eliminated players may come back, decided between rounds (§6)"),
    _int("reengage_limit", 0, MAX_REENGAGE_LIMIT, 0, "times a player may come back"),
    _int(
        "stake", 1, MAX_STAKE, None,
        "play-money chips each player puts in the pot when the game starts; re-engaging costs"
        " half of it (rounded up); the winners share the pot (§6; null: no stakes)",
        nullable=True,
    ),
    _int("decks", 1, 2, 1, "52-card decks shuffled together"),
    _int("jokers", 0, 6, 0, "jokers added to the deck"),
    _int("joker_points", 0, MAX_JOKER_POINTS, 0, "a joker left in a hand counts this many points"),
    _choice(
        "joker_limit", JOKER_LIMITS, "natural_majority",
        "jokers a meld may hold: no more than its natural cards, or any number beside at "
        "least one natural card (§2; at most 4 jokers in a game under `one_natural`)",
    ),
    _bool(
        "joker_swap", False,
        "a melded joker may be taken for the card it stands for",
    ),
    _int(
        "first_meld_min_points", 0, MAX_FIRST_MELD_POINTS, 0,
        "the first melds of a round, in one turn, must reach it; no lay-off before (0: none)",
    ),
    OptionSpec(
        "concealed_rounds", "round_list", (),
        "rounds in which a player melds only in the turn they go out, the whole hand at once",
        low=1, high=MAX_ROUNDS, max_items=MAX_ROUNDS,
    ),
    _bool(
        "first_turn_no_draw", False,
        "the first player is dealt one card more and does not draw on the first turn",
    ),
    _int(
        "spectator_delay", 0, MAX_SPECTATOR_DELAY, 0,
        "events the public view lags behind the game: a spectator cannot relay what just "
        "happened (docs/fairness.md)",
    ),
    _bool(
        "hints", True,
        "a seat may ask for the expert's move on its turn (a hint); "
        "false for rated or serious play",
    ),
    _int(
        "turn_seconds", MIN_TURN_SECONDS, MAX_TURN_SECONDS, None,
        "seconds a human seat has for each turn before the server plays it (docs/api.md, "
        "\"Turn clocks\"; null: no clock)",
        nullable=True,
    ),
    _int(
        "timeouts_to_away", 1, MAX_TIMEOUTS_TO_AWAY, 2,
        "timed-out turns in a row after which a bot plays the seat until its player is back",
    ),
)  # fmt: skip

#: The rows of `OPTION_TABLE` by option name.
OPTION_SPECS: Mapping[str, OptionSpec] = {spec.name: spec for spec in OPTION_TABLE}
_DEFAULT: dict[str, Any] = {spec.name: spec.default for spec in OPTION_TABLE}


@dataclass(frozen=True, slots=True)
class Options:
    """Every option of the table, one field each (defaults: the table's)."""

    players: tuple[int, int] = _DEFAULT["players"]
    hand_size: int | None = _DEFAULT["hand_size"]
    ace: str = _DEFAULT["ace"]
    ace_points: int = _DEFAULT["ace_points"]
    melds_per_turn: int | None = _DEFAULT["melds_per_turn"]
    layoff_requires_own_meld: bool = _DEFAULT["layoff_requires_own_meld"]
    go_out_requires_discard: bool = _DEFAULT["go_out_requires_discard"]
    rummy_bonus: str = _DEFAULT["rummy_bonus"]
    stock_refill: str = _DEFAULT["stock_refill"]
    refill_keeps_top: bool = _DEFAULT["refill_keeps_top"]
    max_refills: int | None = _DEFAULT["max_refills"]
    last_stock: str = _DEFAULT["last_stock"]
    no_winner: str = _DEFAULT["no_winner"]
    scoring: str = _DEFAULT["scoring"]
    end: str = _DEFAULT["end"]
    target_score: TargetScore = _DEFAULT["target_score"]
    rounds: int | None = _DEFAULT["rounds"]
    reengage: bool = _DEFAULT["reengage"]
    reengage_limit: int = _DEFAULT["reengage_limit"]
    stake: int | None = _DEFAULT["stake"]
    decks: int = _DEFAULT["decks"]
    jokers: int = _DEFAULT["jokers"]
    joker_points: int = _DEFAULT["joker_points"]
    joker_limit: str = _DEFAULT["joker_limit"]
    joker_swap: bool = _DEFAULT["joker_swap"]
    first_meld_min_points: int = _DEFAULT["first_meld_min_points"]
    concealed_rounds: tuple[int, ...] = _DEFAULT["concealed_rounds"]
    first_turn_no_draw: bool = _DEFAULT["first_turn_no_draw"]
    spectator_delay: int = _DEFAULT["spectator_delay"]
    hints: bool = _DEFAULT["hints"]
    turn_seconds: int | None = _DEFAULT["turn_seconds"]
    timeouts_to_away: int = _DEFAULT["timeouts_to_away"]

    def to_json(self) -> dict[str, Any]:
        """Every option with its JSON value (lists for tuples, string keys for maps)."""
        return {f.name: _json_value(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def hand_size_for(self, players: int) -> int:
        """Cards dealt to each player when ``players`` are dealt in (docs/rules.md §3)."""
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

    def may_refill(self, refills: int) -> bool:
        """Whether a round's stock, refilled ``refills`` times so far, may be refilled again."""
        return self.stock_refill != "none" and (
            self.max_refills is None or refills < self.max_refills
        )

    def blocked_ends_early(self) -> bool:
        """Whether a blocked round ends at once (docs/rules.md, "Blocked rounds"): only
        where ending early cannot change its result (``no_winner`` void) or the round
        could otherwise never end (the stock refilled without limit). Elsewhere play
        goes on to the stock's end, since the hands, and so the scores, still change."""
        return self.no_winner == "void" or (
            self.max_refills is None and self.stock_refill != "none"
        )

    def reengage_chips(self) -> int:
        """Chips a re-engagement puts in the pot: half the stake, rounded up (0 without)."""
        return 0 if self.stake is None else -(-self.stake // 2)


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Options))
# One row per field: a new option is a row of the table plus its field.
assert tuple(OPTION_SPECS) == OPTION_NAMES, "Options fields and OPTION_TABLE rows differ"


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
    no_winner="lowest_takes_difference",
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
    go_out_requires_discard=True,
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
                last_stock="when_empty",
                target_score=((2, 100), (3, 150), (4, 200)),
            ),
        ),
        Preset("straight", "Straight Rummy as in the card-game literature", _STRAIGHT),
        Preset("block", "Block Rummy", dataclasses.replace(_STRAIGHT, stock_refill="none")),
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
                last_stock="when_empty",
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
                joker_limit="one_natural",
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
                joker_limit="natural_majority",
                hand_size=13,
                first_turn_no_draw=True,
            ),
        ),
    )
}


def options_json_schema() -> dict[str, Any]:
    """The JSON Schema of a game's ``options`` overrides, from `OPTION_TABLE`."""
    return {
        "type": "object",
        "properties": {spec.name: spec.json_schema() for spec in OPTION_TABLE},
        "additionalProperties": False,
    }


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
    if options.joker_limit == "one_natural" and options.jokers > MAX_ONE_NATURAL_JOKERS:
        bad(
            "jokers",
            f"with joker_limit one_natural a game holds at most {MAX_ONE_NATURAL_JOKERS} "
            f"jokers, not {options.jokers}",
        )
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
        changes[name] = OPTION_SPECS[name].convert(value, errors)
    if errors:
        raise OptionsError(errors)
    options = dataclasses.replace(PRESETS[preset].options, **changes)  # type: ignore[arg-type]
    errors = check_options(options, players)
    if errors:
        raise OptionsError(errors)
    return options


#: What the presets this table changed were before it (one ruling each,
#: docs/rules.md "Rulings"): a game stored before then, whose options were kept as
#: its preset's differences, reads its preset as it was, so it plays on unchanged.
#: The new options (``joker_limit``, ``last_stock``, ``stake``) have their defaults
#: in every older game.
PRESETS_BEFORE_RULINGS: Mapping[str, Mapping[str, object]] = {
    "straight": {"no_winner": "void"},
    "traditional": {"last_stock": "next_draw"},
    "meld_first": {"last_stock": "next_draw"},
    "express": {"go_out_requires_discard": False},
    "elimination": {"go_out_requires_discard": False},
    "vrotham": {"joker_limit": "natural_majority"},
}


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
    changes = {n: OPTION_SPECS[n].convert(values[n], errors) for n in OPTION_NAMES}
    if errors:
        raise OptionsError(errors)
    return Options(**changes)  # type: ignore[arg-type]
