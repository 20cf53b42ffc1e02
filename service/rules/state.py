"""The game state (frozen dataclasses) and its compact, versioned serialisation.

Everything the engine needs to continue a game lives here, including what no
view may show: every hand, the stock order and the seed that drives every
shuffle and bot choice. :func:`encode_state` writes a positional JSON list
(orjson) whose first element is :data:`FORMAT_VERSION`; card sequences are
packed one character per card. :func:`decode_state` reverses it exactly and
raises :class:`StateDecodeError` for anything unknown or corrupt.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass
from typing import Any, cast

import orjson

from service.rules.cards import JOKER, NATURAL_CARDS, Card
from service.rules.identity import by_identity
from service.rules.melds import MeldShape
from service.rules.options import (
    PRESETS,
    PRESETS_BEFORE_RULINGS,
    Options,
    OptionsError,
    options_from_json,
)

FORMAT_VERSION = 4

STATUSES = ("waiting", "active", "finished")
#: How a game's cards are dealt: from committed secrets (docs/fairness.md), from a
#: seed the creator gave, from the creator's deck (then seeded), or from a
#: finished game's revealed secret (a game continued from its record).
DEALS = ("random", "seeded", "explicit", "replayed")
PHASES = ("draw", "play")
REASONS = ("went_out", "stock_exhausted", "blocked")


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat: who plays it and its running total.

    ``token_hash`` is opaque (set by the API) and never shown. ``client_seed`` is the
    entropy the player added to the deals (docs/fairness.md). ``deciding`` marks a
    seat just eliminated that is to decide, before the next deal, whether to
    re-engage; ``rejoining`` a seat that re-engaged in a game stored before that
    decision came between rounds (dealt in again from the next deal); ``carried`` is
    what re-engaging added to its total (so ``score`` is ``carried`` plus the points
    of its rounds). ``chips_in`` and ``chips_out`` are the play-money chips the seat
    put in the pot and took out of it (option ``stake``). ``host`` marks a seat taken
    by the game's creator (its token may delete the game while it waits); ``away`` a
    seat the server plays until its player is back; ``timeouts`` the seat's turns in
    a row that its clock ran out.
    """

    name: str | None
    kind: str
    bot: str | None = None
    token_hash: str | None = None
    score: int = 0
    eliminated: bool = False
    reengaged: int = 0
    rejoining: bool = False
    carried: int = 0
    client_seed: str | None = None
    host: bool = False
    away: bool = False
    timeouts: int = 0
    deciding: bool = False
    chips_in: int = 0
    chips_out: int = 0

    @property
    def is_open(self) -> bool:
        """A human seat nobody has taken yet."""
        return self.kind == "human" and self.name is None


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table with its id and the seat that put it down."""

    id: int
    shape: MeldShape
    owner: int


@dataclass(frozen=True, slots=True)
class RoundState:
    """The round being played.

    ``stock`` holds its top card last; ``discard`` is bottom to top. ``dealt`` says
    which seats were dealt in. ``taken`` is the card taken from the discard pile this
    turn. ``turn_melds``/``turn_acted`` count what the seat to move did this turn;
    ``opening`` is the points put down so far this turn by a seat still short of
    ``first_meld_min_points`` (``None`` otherwise). ``melded`` marks seats with a meld
    of their own this round; ``played`` seats that melded or laid off in an earlier turn
    (for going rummy). ``known`` holds, per seat, the cards everybody saw it take (from
    the discard pile, or a joker swapped off the table) and not yet played.
    """

    number: int
    dealer: int
    first: int
    dealt: tuple[bool, ...]
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    discard: tuple[Card, ...]
    melds: tuple[TableMeld, ...]
    next_meld_id: int
    turn: int
    phase: str
    taken: Card | None
    turn_melds: int
    turn_acted: bool
    opening: int | None
    melded: tuple[bool, ...]
    played: tuple[bool, ...]
    refills: int
    turns: int
    known: tuple[tuple[Card, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round: why it ended, who won, the points it gave and every hand;
    ``ender`` made the move that ended it, ``first`` played first, ``dealer`` dealt
    (``None`` in games stored before it was kept)."""

    number: int
    reason: str
    winner: int | None
    rummy: bool
    points: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    ender: int
    first: int
    dealer: int | None = None


@dataclass(frozen=True, slots=True)
class GameState:
    """A whole game. ``seed`` drives every shuffle and bot choice; ``deck`` is an
    explicit first-round deck not yet dealt; ``steps`` counts applied moves.
    ``deal`` says how the cards are dealt (one of :data:`DEALS`); ``game_secret`` (hex)
    is the secret every round secret of a ``random`` or ``replayed`` deal comes from
    (docs/fairness.md), ``None`` otherwise. ``event_count`` counts the events the game has caused;
    with ``spectator_delay`` set, ``spectator_views`` keeps the public views
    (JSON) a spectator may still be shown, each with the event count it was taken at."""

    status: str
    preset: str
    options: Options
    seats: tuple[Seat, ...]
    round: RoundState | None
    rounds: tuple[RoundRecord, ...]
    winners: tuple[int, ...] | None
    seed: str
    deck: tuple[Card, ...] | None
    first_dealer: int | None
    steps: int
    deal: str = "seeded"
    game_secret: str | None = None
    event_count: int = 0
    spectator_views: tuple[tuple[int, str], ...] = ()
    #: When the turn of the seat to move runs out (epoch ms; `None`: no clock
    #: on this turn). Set and read by the service's turn clocks (service/games/clock.py).
    turn_deadline: int | None = None
    #: The id of the game this one's players went on to (a rematch; opaque here,
    #: set by the service: service/games/rematch.py), `None` until one is made.
    next_game: str | None = None
    #: Per seat, the opaque token digest of the player of the game before that
    #: this (open) seat is held for, or `None`; `()`: no seat is held. A held seat
    #: is taken only by its player's claim (service/games/rematch.py).
    reserved: tuple[str | None, ...] = ()
    #: When the held seats open to anyone (epoch ms; `None` when none is held).
    reserved_until: int | None = None

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.seats)

    @property
    def pot(self) -> int | None:
        """The chips in the pot now (``None`` without a stake)."""
        if self.options.stake is None:
            return None
        return sum(s.chips_in - s.chips_out for s in self.seats)

    @property
    def deciding(self) -> tuple[int, ...]:
        """The seats still to decide, between rounds, whether to re-engage."""
        return tuple(i for i, s in enumerate(self.seats) if s.deciding)

    @property
    def comeback_total(self) -> int:
        """The total a seat that re-engages now comes back with: the highest among
        the players still in ("with the same points as the player with the most
        points at that moment")."""
        return max((s.score for s in self.seats if not s.eliminated), default=0)


class StateDecodeError(ValueError):
    """The bytes are not a state this version can read."""


# One character per card: the 52 naturals in deck order, then the joker.
_ALPHABET = string.ascii_letters
_TO_CHAR: dict[Card, str] = {c: _ALPHABET[i] for i, c in enumerate(NATURAL_CARDS)}
_TO_CHAR[JOKER] = "*"
_FROM_CHAR: dict[str, Card] = {v: k for k, v in _TO_CHAR.items()}
_CHAR_OF = _TO_CHAR.__getitem__


def pack_cards(cards: tuple[Card, ...]) -> str:
    """Pack cards one character each."""
    # `map` over the table's look-up, not a comprehension: no bytecode per card
    # (a move packs its changed hand, and its stock or discard pile).
    return "".join(map(_CHAR_OF, cards))


def unpack_cards(text: object) -> tuple[Card, ...]:
    """Unpack :func:`pack_cards` output."""
    if type(text) is not str:
        raise StateDecodeError(f"expected packed cards, got {type(text).__name__}")
    try:
        return tuple([_FROM_CHAR[ch] for ch in text])
    except KeyError as exc:
        raise StateDecodeError(f"unknown packed card {exc.args[0]!r}") from None


def _bits(flags: tuple[bool, ...]) -> int:
    return sum(1 << i for i, f in enumerate(flags) if f)


def _unbits(value: object, n: int) -> tuple[bool, ...]:
    if type(value) is not int or value < 0 or value >= 1 << n:
        raise StateDecodeError(f"bad flag set {value!r}")
    return tuple(bool(value >> i & 1) for i in range(n))


# The encoded forms of melds, seats, finished rounds and card sequences are
# remembered per object (`identity.by_identity`): most are the very objects of the
# version before. The lists are shared: orjson only reads them.


@by_identity(8192)
def _packed(cards: tuple[Card, ...]) -> str:
    return pack_cards(cards)


@by_identity(1024)
def _flag_bits(flags: tuple[bool, ...]) -> int:
    return _bits(flags)


@by_identity(8192)
def _enc_meld(m: TableMeld) -> list[Any]:
    return [m.id, m.owner, m.shape.kind, pack_cards(m.shape.cards), pack_cards(m.shape.stands_for)]


@by_identity(8192)
def _enc_seat(s: Seat) -> list[Any]:
    fields = [
        s.name,
        s.kind,
        s.bot,
        s.token_hash,
        s.score,
        int(s.eliminated),
        s.reengaged,
        int(s.rejoining),
        s.carried,
        s.client_seed,
    ]
    # Host, away and timeouts share one trailing integer, left out while all unset.
    flags = int(s.host) | int(s.away) << 1 | s.timeouts << 2
    extra = int(s.deciding) | s.chips_in << 1
    if flags or extra or s.chips_out:
        fields.append(flags)
    # The re-engage decision and the chips share a last integer (and the chips
    # taken out of the pot one more), left out while unset.
    if extra or s.chips_out:
        fields.append(extra)
    if s.chips_out:
        fields.append(s.chips_out)
    return fields


# The tuples of seats, melds, finished rounds and known cards are mostly the very
# tuples of the version before too: one lookup each instead of one per element.
# The seats, melds and finished rounds are kept serialised (`orjson.Fragment`,
# written by orjson as they are: the same bytes), so a state's encoding
# serialises only what its move changed (valgrind; docs/performance.md, "What
# a move costs", has the figures).


@by_identity(1024)
def _enc_seats(seats: tuple[Seat, ...]) -> orjson.Fragment:
    return orjson.Fragment(orjson.dumps([_enc_seat(s) for s in seats]))


@by_identity(1024)
def _enc_melds(melds: tuple[TableMeld, ...]) -> orjson.Fragment:
    return orjson.Fragment(orjson.dumps([_enc_meld(m) for m in melds]))


@by_identity(1024)
def _enc_records(rounds: tuple[RoundRecord, ...]) -> orjson.Fragment:
    return orjson.Fragment(orjson.dumps([_enc_record(r) for r in rounds]))


@by_identity(1024)
def _enc_known(known: tuple[tuple[Card, ...], ...]) -> str | int:
    if not any(known):
        return 0
    # A move changes one seat's known cards: the others' strings are kept (`_packed`).
    return ",".join([_packed(cards) for cards in known])


def _enc_round(r: RoundState) -> list[Any]:
    # Each part's encoding is kept per part object (`by_identity`): a move's
    # new state shares most parts with the state before.
    texts = [_packed(cards) for cards in (*r.hands, r.stock, r.discard)]
    bits = [_flag_bits(flags) for flags in (r.dealt, r.melded, r.played)]
    melds = _enc_melds(r.melds)
    known = _enc_known(r.known)
    n = len(r.hands)
    return [
        r.number,
        r.dealer,
        r.first,
        bits[0],
        texts[:n],
        texts[n],
        texts[n + 1],
        melds,
        r.next_meld_id,
        r.turn,
        PHASES.index(r.phase),
        r.taken,
        r.turn_melds,
        int(r.turn_acted),
        r.opening,
        bits[1],
        bits[2],
        r.refills,
        r.turns,
        known,
    ]


def _int(v: object, lo: int = 0) -> int:
    if type(v) is not int or v < lo:
        raise StateDecodeError(f"expected an integer >= {lo}, got {v!r}")
    return v


def _any_int(v: object) -> int:
    if type(v) is not int:
        raise StateDecodeError(f"expected an integer, got {v!r}")
    return v


def _opt_int(v: object) -> int | None:
    return None if v is None else _int(v)


def _card_or_none(v: object) -> Card | None:
    if v is None:
        return None
    if type(v) is not str or (v not in _TO_CHAR):
        raise StateDecodeError(f"bad card {v!r}")
    return v


# Melds, seats and finished rounds mostly stay as they were from one version of a
# game to the next, so their decoded (immutable) objects are remembered by their
# stored fields: a decode then builds only what changed. Unhashable (corrupt)
# fields raise TypeError, which `decode_state` reports as a corrupt state.


@functools.lru_cache(maxsize=8192, typed=True)
def _dec_meld(
    mid: object, owner: object, kind: object, packed: object, stands: object
) -> TableMeld:
    if kind not in ("set", "run"):
        raise StateDecodeError("bad meld")
    cards = unpack_cards(packed)
    stands_for = unpack_cards(stands)
    if len(cards) != len(stands_for):
        raise StateDecodeError("bad meld")
    return TableMeld(
        _int(mid), MeldShape(kind=kind, cards=cards, stands_for=stands_for), _int(owner)
    )


def _dec_round(d: object, n: int) -> RoundState:
    if not isinstance(d, list) or len(d) not in (19, 20):
        raise StateDecodeError("bad round record")
    known: tuple[tuple[Card, ...], ...] = ((),) * n
    if len(d) == 20 and d[19] != 0:
        if type(d[19]) is not str or d[19].count(",") != n - 1:
            raise StateDecodeError("bad known cards")
        known = tuple(unpack_cards(k) for k in d[19].split(","))
    hands = d[4]
    if not isinstance(hands, list) or len(hands) != n:
        raise StateDecodeError("bad hands")
    melds = []
    if not isinstance(d[7], list):
        raise StateDecodeError("bad melds")
    for m in d[7]:
        if not isinstance(m, list) or len(m) != 5:
            raise StateDecodeError("bad meld")
        melds.append(_dec_meld(*m))
    phase = _int(d[10])
    if phase >= len(PHASES):
        raise StateDecodeError("bad phase")
    if type(d[13]) is not int or d[13] not in (0, 1):
        raise StateDecodeError("bad flag")
    return RoundState(
        number=_int(d[0], 1),
        dealer=_int(d[1]),
        first=_int(d[2]),
        dealt=_unbits(d[3], n),
        hands=tuple(unpack_cards(h) for h in hands),
        stock=unpack_cards(d[5]),
        discard=unpack_cards(d[6]),
        melds=tuple(melds),
        next_meld_id=_int(d[8], 1),
        turn=_int(d[9]),
        phase=PHASES[phase],
        taken=_card_or_none(d[11]),
        turn_melds=_int(d[12]),
        turn_acted=bool(d[13]),
        opening=_opt_int(d[14]),
        melded=_unbits(d[15], n),
        played=_unbits(d[16], n),
        refills=_int(d[17]),
        turns=_int(d[18]),
        known=known,
    )


@by_identity(8192)
def _enc_record(r: RoundRecord) -> list[Any]:
    """A finished round in four fields: its number is its place in the list; reason,
    winner and rummy share one integer, ender, first and dealer another; points are
    0 when all are zero; the hands are one string, comma-separated."""
    meta = (
        REASONS.index(r.reason) + 3 * int(r.rummy) + 6 * (0 if r.winner is None else r.winner + 1)
    )
    points: Any = list(r.points) if any(r.points) else 0
    dealer = 0 if r.dealer is None else r.dealer + 1
    seats = dealer * 64 + r.ender * 8 + r.first
    return [meta, seats, points, ",".join(pack_cards(h) for h in r.hands)]


@functools.lru_cache(maxsize=8192, typed=True)
def _dec_record(
    meta_field: object, seats_field: object, points: object, hands: object, number: int, n: int
) -> RoundRecord:
    # `points` as stored, its list made a tuple (hashable, for the cache).
    meta, seats = _int(meta_field), _int(seats_field)
    if points == 0:
        points = (0,) * n
    if not isinstance(points, tuple) or len(points) != n or not all(type(p) is int for p in points):
        raise StateDecodeError("bad round points")
    if type(hands) is not str or hands.count(",") != n - 1:
        raise StateDecodeError("bad round hands")
    winner = meta // 6 - 1
    if winner >= n:
        raise StateDecodeError("bad round winner")
    return RoundRecord(
        number=number,
        reason=REASONS[meta % 3],
        winner=None if winner < 0 else winner,
        rummy=bool(meta % 6 // 3),
        points=points,
        hands=tuple(unpack_cards(h) for h in hands.split(",")),
        ender=seats // 8 % 8,
        first=seats % 8,
        dealer=None if seats < 64 else seats // 64 - 1,
    )


def encode_state(state: GameState) -> bytes:
    """The whole state as compact bytes (orjson list led by :data:`FORMAT_VERSION`)."""
    options, preset = state.options, state.preset
    stored = _stored_options(options, preset)
    seats = _enc_seats(state.seats)
    records = _enc_records(state.rounds)
    doc: list[Any] = [
        FORMAT_VERSION,
        STATUSES.index(state.status),
        state.preset,
        stored,
        seats,
        None if state.round is None else _enc_round(state.round),
        records,
        None if state.winners is None else list(state.winners),
        state.seed,
        None if state.deck is None else pack_cards(state.deck),
        state.first_dealer,
        state.steps,
        DEALS.index(state.deal),
        state.game_secret,
        state.event_count,
        [list(v) for v in state.spectator_views] if state.spectator_views else 0,
    ]
    links = _enc_links(state)
    if state.turn_deadline is not None or links is not None:
        doc.append(state.turn_deadline)  # only games with a turn clock carry it
    if links is not None:
        doc.append(links)  # only rematched games carry their links
    return orjson.dumps(doc)


def _enc_links(state: GameState) -> dict[str, Any] | None:
    """A game's rematch links (`next_game`, the held seats and until when), or
    `None` without any: most games store nothing of them."""
    if state.next_game is None and not state.reserved:
        return None
    links: dict[str, Any] = {}
    if state.next_game is not None:
        links["n"] = state.next_game
    if state.reserved:
        links["r"] = list(state.reserved)
        links["u"] = state.reserved_until
    return links


def _dec_links(value: object, n: int) -> dict[str, Any]:
    """The `GameState` fields of `_enc_links`' record."""
    if not isinstance(value, dict) or not set(value) <= {"n", "r", "u"}:
        raise StateDecodeError("bad rematch links")
    reserved = value.get("r", [])
    if not isinstance(reserved, list) or len(reserved) not in (0, n):
        raise StateDecodeError("bad held seats")
    until = value.get("u")
    if bool(reserved) != (until is not None):
        raise StateDecodeError("held seats need their time, and only they")
    return {
        "next_game": _str_or_none(value.get("n")),
        "reserved": tuple(_str_or_none(r) for r in reserved),
        "reserved_until": None if until is None else _int(until),
    }


@by_identity(256)
def _stored_options(options: Options, preset: str) -> dict[str, Any]:
    # Only the options that differ from the preset are stored (as a name -> value
    # map). Remembered per option set: games share a few, and the callers only
    # read the map.
    opts = options.to_json()
    base = _preset_json(preset)
    return {k: v for k, v in opts.items() if base is None or base[k] != v}


def _preset_json(name: str) -> dict[str, Any] | None:
    preset = PRESETS.get(name)
    return None if preset is None else preset.options.to_json()


@functools.lru_cache(maxsize=256)
def _options(preset: str, overrides: bytes, before_rulings: bool = False) -> Options:
    # Games share a few option sets, and building Options costs more than the
    # rest of a decode: remember them (Options is frozen).
    base = _preset_json(preset) or {}
    if before_rulings:  # stored as differences from the preset as it was then
        base = {**base, **PRESETS_BEFORE_RULINGS.get(preset, {})}
    return options_from_json({**base, **orjson.loads(overrides)})


def decode_state(data: bytes) -> GameState:
    """Read :func:`encode_state` output back; :class:`StateDecodeError` if it is not one."""
    try:
        doc = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError) as exc:
        raise StateDecodeError(f"not a serialised game state: {exc}") from None
    if not isinstance(doc, list) or not doc:
        raise StateDecodeError("not a serialised game state")
    if doc[0] not in READABLE_VERSIONS or type(doc[0]) is not int:
        raise StateDecodeError(
            f"unknown state format version {doc[0]!r} (this build reads {READABLE_VERSIONS})"
        )
    try:
        return _decode(doc)
    except StateDecodeError:
        raise
    except (OptionsError, IndexError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StateDecodeError(f"corrupt game state: {exc!r}") from None


def _str_or_none(v: object) -> str | None:
    if v is not None and type(v) is not str:
        raise StateDecodeError(f"expected a string, got {v!r}")
    return v


@functools.lru_cache(maxsize=8192, typed=True)
def _dec_seat(
    name: object,
    kind: object,
    bot: object,
    token_hash: object,
    score: object,
    eliminated: object,
    reengaged: object,
    rejoining: object,
    carried: object,
    client_seed: object = None,
    flags: object = 0,
    extra: object = 0,
    chips_out: object = 0,
) -> Seat:
    if kind not in ("human", "bot"):
        raise StateDecodeError("bad seat")
    if type(score) is not int:
        raise StateDecodeError("bad score")
    return Seat(
        name=_str_or_none(name),
        kind=cast(Any, kind),
        bot=_str_or_none(bot),
        token_hash=_str_or_none(token_hash),
        score=score,
        eliminated=bool(_int(eliminated)),
        reengaged=_int(reengaged),
        rejoining=bool(_int(rejoining)),
        carried=_any_int(carried),
        client_seed=_str_or_none(client_seed),
        host=bool(_int(flags) & 1),
        away=bool(_int(flags) & 2),
        timeouts=_int(flags) >> 2,
        deciding=bool(_int(extra) & 1),
        chips_in=_int(extra) >> 1,
        chips_out=_int(chips_out),
    )


#: Format versions this build reads: 2 (before how the cards are dealt was kept;
#: such games read as seeded), 3 (before the rulings that changed six presets: such
#: games read their preset as it was, `PRESETS_BEFORE_RULINGS`) and the current one.
READABLE_VERSIONS = (2, 3, FORMAT_VERSION)


def _spectator_views(value: object) -> tuple[tuple[int, str], ...]:
    if value == 0:
        return ()
    if not isinstance(value, list):
        raise StateDecodeError("bad spectator views")
    views = []
    for item in value:
        if not isinstance(item, list) or len(item) != 2 or type(item[1]) is not str:
            raise StateDecodeError("bad spectator view")
        views.append((_int(item[0]), item[1]))
    return tuple(views)


def _decode(doc: list[Any]) -> GameState:
    old = doc[0] == 2
    before_rulings = doc[0] < 4
    if len(doc) not in ((12,) if old else (16, 17, 18)):
        raise StateDecodeError("wrong number of fields")
    deal = "seeded" if old else DEALS[_int(doc[12])]
    game_secret = None if old else _str_or_none(doc[13])
    if (game_secret is None) != (deal != "random"):
        raise StateDecodeError("a random deal needs its game secret, and only it")
    status = STATUSES[_int(doc[1])]
    if type(doc[2]) is not str or not isinstance(doc[3], dict):
        raise StateDecodeError("bad preset or options")
    options = _options(doc[2], orjson.dumps(doc[3], option=orjson.OPT_SORT_KEYS), before_rulings)
    seats = []
    if not isinstance(doc[4], list) or not 2 <= len(doc[4]) <= 6:
        raise StateDecodeError("bad seats")
    for s in doc[4]:
        if not isinstance(s, list) or len(s) not in ((9,) if old else (10, 11, 12, 13)):
            raise StateDecodeError("bad seat")
        seats.append(_dec_seat(*s))
    n = len(seats)
    rnd = None if doc[5] is None else _dec_round(doc[5], n)
    records = []
    if not isinstance(doc[6], list):
        raise StateDecodeError("bad rounds")
    for number, r in enumerate(doc[6], start=1):
        if not isinstance(r, list) or len(r) != 4:
            raise StateDecodeError("bad round record")
        points = r[2]
        if isinstance(points, list):
            # Checked here: the cache's key would not tell 1 from True inside a tuple.
            if not all(type(p) is int for p in points):
                raise StateDecodeError("bad round points")
            points = tuple(points)
        records.append(_dec_record(r[0], r[1], points, r[3], number, n))
    winners = doc[7]
    if winners is not None:
        if not isinstance(winners, list) or not all(type(w) is int and 0 <= w < n for w in winners):
            raise StateDecodeError("bad winners")
        winners = tuple(winners)
    if type(doc[8]) is not str:
        raise StateDecodeError("bad seed")
    return GameState(
        status=status,
        preset=doc[2],
        options=options,
        seats=tuple(seats),
        round=rnd,
        rounds=tuple(records),
        winners=winners,
        seed=doc[8],
        deck=None if doc[9] is None else unpack_cards(doc[9]),
        first_dealer=_opt_int(doc[10]),
        steps=_int(doc[11]),
        deal=deal,
        game_secret=game_secret,
        event_count=0 if old else _int(doc[14]),
        spectator_views=() if old else _spectator_views(doc[15]),
        turn_deadline=_opt_int(doc[16]) if len(doc) >= 17 else None,
        **(_dec_links(doc[17], n) if len(doc) == 18 else {}),
    )
