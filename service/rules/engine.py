"""The game engine: create a game, list the legal moves, apply a move (docs/rules.md §3-§6).

Everything here is pure: :func:`apply` returns a new :class:`GameState` and the
events the move caused and never mutates its input. A move is legal if and only
if :func:`legal_moves` lists it up to card order: ``legal_moves`` gives a meld's
cards in table display order and a lay-off's cards in the order they take in the
meld, while :func:`apply` also accepts any other order that makes the same meld
(``Meld(["H9","H7","H8"])`` is the listed ``Meld(["H7","H8","H9"])``; with a
joker in a run the order says what the joker stands for, so it is part of the
move). :func:`apply` refuses everything else with :class:`IllegalMove`.

Randomness: a game created without ``seed`` or ``deck`` is dealt at random: its
shuffles and first dealer come from committed round secrets
(:mod:`service.rules.fairness`, docs/fairness.md), its bot choices
(:mod:`service.bots.play`) from a seed drawn with ``secrets``. In a seeded game
every shuffle and every bot choice uses a ``random.Random`` seeded from the
game's seed plus what it is for
(``"<seed>/deal/<round>"``, ``"<seed>/refill/<round>/<n>"``, ``"<seed>/bot/<step>"``),
so it is reproducible. The seed and the secrets stay in the state; no view shows
the seed, and a secret only once its round (or game) is over.

Decisions the rules page leaves open (docs/rules.md lists each with its test):

- A round ends at once when a player goes out; the next round is dealt in the
  same move (events ``round_ended`` then ``round_started``), unless the game ends.
- Dealer rotation skips seats not dealt in (eliminated); the first dealer, when
  not given, is drawn with the game's generator.
- With two decks a card taken from the discard pile may be discarded when the
  hand holds another copy of it (the copies cannot be told apart).
- ``first_meld_min_points``: the first melds of a round accumulate within one
  turn; until their total reaches the minimum the seat may not lay off or
  discard, and a meld (or a joker swap) is legal only if the rest of the hand can
  still bring the total to the minimum with further melds (and still finish the
  turn). A joker swap is allowed before a seat has opened: it is neither a meld
  nor a lay-off.
- ``concealed_rounds``: a seat may discard without melding; once it melds in such
  a round it must go out in that turn (every meld must leave a hand that further
  melds plus at most one discard can empty). Lay-offs are not allowed in a
  concealed round (melds go down only when a player goes out).
- A joker swap needs the seat to have drawn; it counts neither as a meld nor as a
  lay-off (so it does not spoil going rummy).
- The blocked-round check runs after every completed turn (a discard), where a
  blocked round ends early at all (`Options.blocked_ends_early`).
- ``last_stock: when_empty``: the round ends when the turn of the player who drew
  the last card of a stock that may not be refilled ends without their going out
  (a discard); a stock empty from the deal ends it after the first turn.
- Re-engaging (elimination) is decided between rounds: a round whose end
  eliminates seats that may re-engage, with a player left in, leaves the game
  active with no round (``round`` is ``None``) until each of them has sent
  `Reengage` or `DeclineReengage`; every other move then is refused with
  ``reengage_pending``. The comeback total is the highest among the players still
  in when the seat decides (decisions come between rounds, so it is the same for
  each). A seat that leaves while deciding is decided for by its bot.
- Stakes: every seat puts the stake in the pot when the first round is dealt.
- A round that reaches `MAX_ROUND_TURNS` turns ends as ``blocked``: far past any
  real round (bots playing at random rarely pass 2,300), it can only be a table
  that no longer moves (in Block Rummy the players may take the discard for ever
  once the stock is gone; bots that never swap a melded joker can draw and discard
  for ever), and a game must end.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from service.rules import events as vocab
from service.rules import fairness
from service.rules.blocked import round_blocked
from service.rules.cards import (
    CARD_ORDER,
    JOKER,
    Card,
    CardCodeError,
    build_deck,
    parse_card,
)
from service.rules.events import Event
from service.rules.evolve import evolve
from service.rules.melds import (
    CandidateMeld,
    MeldShape,
    candidate_layoffs,
    candidate_meld_points,
    extend_meld,
    meld_points,
    swap_joker,
)
from service.rules.moves import (
    MOVE_CLASSES,
    DeclineReengage,
    Discard,
    Draw,
    IllegalMove,
    LayOff,
    Meld,
    Move,
    Reengage,
    SwapJoker,
    Unavailable,
    move_sort_key,
)
from service.rules.options import Options, OptionsError, check_options
from service.rules.packed import pack
from service.rules.scoring import (
    elimination_result,
    express_winner,
    game_winners,
    pot_shares,
    round_points,
)
from service.rules.search import (
    SEARCH_NEEDED,
    Nodes,
    Pool,
    finish_code,
    has_opened,
    is_concealed,
    meld_pool,
    meld_shape,
    search_code,
    searches,
    shared_search,
)
from service.rules.state import GameState, RoundRecord, RoundState, Seat, TableMeld
from service.rules.views import meld_json


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat when the game is created: ``name=None`` with kind ``human`` is open."""

    name: str | None = None
    kind: str = "human"
    bot: str | None = None
    token_hash: str | None = None
    client_seed: str | None = None


def _sorted_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=CARD_ORDER.__getitem__))


def _remove(hand: tuple[Card, ...], cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """The hand without ``cards`` (as a multiset), or ``None`` if a card is missing."""
    rest = list(hand)
    for c in cards:
        try:
            rest.remove(c)
        except ValueError:
            return None
    return tuple(rest)


class FixedDealRefused(OptionsError):
    """A ``seed``, ``deck`` or ``first_dealer`` given for a game with an open seat.

    Whoever fixes the deal knows every hand; a stranger taking the open seat
    could not tell, so a game others may join is always dealt at random.
    """

    def __init__(self, fields: Sequence[str]) -> None:
        self.fields = tuple(fields)
        why = (
            "a game with an open seat is always dealt at random: seed, deck and "
            "first_dealer are only for tables whose every seat is taken or a bot"
        )
        super().__init__({name: [why] for name in self.fields})
        self.detail = f"{', '.join(self.fields)} refused: {why}."


def _counted(state: GameState, events: Sequence[Event], **changes: Any) -> GameState:
    """``state`` with ``changes``, counting ``events``. With a ``spectator_delay`` of
    N, the public view as of now is kept for spectators, with the views they may
    still be shown: those taken less than N events ago and the latest before."""
    count = state.event_count + len(events)
    state = evolve(state, event_count=count, **changes)
    delay = state.options.spectator_delay
    if delay == 0:
        return state
    from service.rules.views import public_view

    kept = (*state.spectator_views, (count, orjson.dumps(public_view(state)).decode()))
    horizon = count - delay
    older = [v for v in kept if v[0] <= horizon]
    return evolve(state, spectator_views=(*older[-1:], *(v for v in kept if v[0] > horizon)))


def _went_on(state: GameState, new_round: RoundState, events: Sequence[Event]) -> GameState:
    """``state`` after a move its round goes on from: the new round, the move's step
    and its ``events`` counted (`_counted`) in one copy of the state, not two.

    Speed: a `GameState` copy is dear enough to count (valgrind;
    docs/performance.md, "What a move costs", has the figures). `apply` counts
    the moves that end a round itself: it tells them by their step, which only
    it and this advance."""
    if state.options.spectator_delay == 0:  # `_counted` without its call (most games)
        return evolve(
            state,
            event_count=state.event_count + len(events),
            round=new_round,
            steps=state.steps + 1,
        )
    return _counted(state, events, round=new_round, steps=state.steps + 1)


def _after_placing(
    state: GameState, new_round: RoundState, seat: int, rest: tuple[Card, ...], events: list[Event]
) -> GameState:
    """``state`` after ``seat`` placed cards on the table (a meld, a lay-off),
    leaving ``rest`` in hand: out when nothing is left, else the round goes on."""
    if not rest:
        state = evolve(state, round=new_round)
        return _end_round(state, new_round, seat, "went_out", seat, events)
    return _went_on(state, new_round, events)


#: Turns after which a round ends as ``blocked`` (module docstring).
MAX_ROUND_TURNS = 5_000


def _rng(state: GameState, purpose: str) -> random.Random:
    return random.Random(f"{state.seed}/{purpose}")


def round_secret(state: GameState, number: int) -> bytes | None:
    """Round ``number``'s secret in a game dealt at random (docs/fairness.md); else ``None``."""
    return round_secret_of(state.game_secret, number, tuple([s.client_seed for s in state.seats]))


def round_secret_of(
    game_secret: str | None, number: int, seeds: tuple[str | None, ...]
) -> bytes | None:
    """`round_secret` from its inputs: the game's secret and the seats' client seeds."""
    if game_secret is None:
        return None
    return _round_secret(game_secret, number, seeds)


@lru_cache(maxsize=1024)
def _round_secret(game_secret: str, number: int, seeds: tuple[str | None, ...]) -> bytes:
    return fairness.round_secret(bytes.fromhex(game_secret), number, seeds)


# ---------------------------------------------------------------------------
# Creating a game and taking seats


def new_game(
    options: Options,
    preset: str,
    seats: Sequence[SeatSpec],
    *,
    seed: int | str | None = None,
    deck: Sequence[str] | None = None,
    first_dealer: int | None = None,
    passed_deal: int | None = None,
    game_secret: str | None = None,
) -> tuple[GameState, list[Event]]:
    """A new game; its first round is dealt at once when every seat is taken.

    Raises :class:`OptionsError` for a player count the options do not allow, a
    ``deck`` that is not exactly the game's cards or a bad ``first_dealer``, and
    :class:`FixedDealRefused` for a ``seed``, ``deck`` or ``first_dealer`` in a game
    with an open seat. A bot seat's strategy name is opaque here (the caller checks it).
    ``passed_deal``: the first dealer of a rematch, which the deal passes to (the
    service's choice, never a creator's: allowed with open seats, as it fixes no
    card; ``game_created`` shows it as ``first_dealer``).
    ``game_secret``: a finished game's revealed secret (hex), whose deals this
    game replays (``deal`` ``replayed``: a game continued from a record, with the
    client seeds of its seats; refused with an open seat, as a deck is).
    """
    n = len(seats)
    fixed = {
        name: value
        for name, value in (
            ("seed", seed),
            ("deck", deck),
            ("first_dealer", first_dealer),
            ("game_secret", game_secret),
        )
        if value is not None
    }
    if fixed and any(spec.kind == "human" and spec.name is None for spec in seats):
        raise FixedDealRefused(sorted(fixed))
    errors = check_options(options, n)
    if errors:
        raise OptionsError(errors)
    for i, spec in enumerate(seats):
        if spec.kind not in ("human", "bot"):
            raise OptionsError({"seats": [f"seat {i}: kind must be human or bot"]})
        if spec.client_seed is not None and (
            spec.name is None or not fairness.is_client_seed(spec.client_seed)
        ):
            raise OptionsError(
                {"seats": [f"seat {i}: a client_seed is 1-64 of A-Z a-z 0-9 _ - on a named seat"]}
            )
    if passed_deal is not None:
        first_dealer = passed_deal
    if first_dealer is not None and (type(first_dealer) is not int or not 0 <= first_dealer < n):
        raise OptionsError({"first_dealer": [f"must be a seat number 0..{n - 1}"]})
    parsed_deck: tuple[Card, ...] | None = None
    if deck is not None:
        try:
            parsed_deck = tuple(parse_card(c) for c in deck)
        except CardCodeError as exc:
            raise OptionsError({"deck": [str(exc)]}) from None
        expected = Counter(build_deck(options.decks, options.jokers))
        got = Counter(parsed_deck)
        if got != expected:
            missing = sorted((expected - got).elements(), key=CARD_ORDER.__getitem__)
            extra = sorted((got - expected).elements(), key=CARD_ORDER.__getitem__)
            raise OptionsError(
                {
                    "deck": [
                        f"must list every card of the game exactly once "
                        f"({sum(expected.values())} cards); missing {missing}, extra {extra}"
                    ]
                }
            )
    seat_states = tuple(
        Seat(
            name=spec.name if spec.kind == "human" else (spec.name or f"{spec.bot} bot"),
            kind=spec.kind,
            bot=spec.bot if spec.kind == "bot" else None,
            token_hash=spec.token_hash,
            host=spec.kind == "human" and spec.name is not None,
            client_seed=spec.client_seed if spec.kind == "human" else None,
        )
        for spec in seats
    )
    if game_secret is not None and not fairness.is_secret(game_secret):
        raise OptionsError({"game_secret": [f"{2 * fairness.SECRET_BYTES} hex digits"]})
    deal = "explicit" if parsed_deck is not None else "random" if seed is None else "seeded"
    if game_secret is not None:
        deal = "replayed"
    state = GameState(
        status="waiting",
        preset=preset,
        options=options,
        seats=seat_states,
        round=None,
        rounds=(),
        winners=None,
        seed=secrets.token_hex(16) if seed is None else str(seed),
        deck=parsed_deck,
        first_dealer=first_dealer,
        steps=0,
        deal=deal,
        game_secret=(
            game_secret
            if game_secret is not None
            else secrets.token_hex(fairness.SECRET_BYTES)
            if deal == "random"
            else None
        ),
    )
    commitment = None
    if state.game_secret is not None:
        commitment = fairness.commitment(bytes.fromhex(state.game_secret))
    events = [
        vocab.game_created(
            preset=preset,
            players=n,
            deal=state.deal,
            seats=[{"seat": i, "name": s.name, "kind": s.kind} for i, s in enumerate(seat_states)],
            game_commitment=commitment,
        )
    ]
    if first_dealer is not None:
        events[0]["first_dealer"] = first_dealer
    if not any(s.is_open for s in seat_states):
        state = _start(state, events)
    return _counted(state, events), events


def take_seat(
    state: GameState,
    seat: int | None,
    name: str,
    token_hash: str | None,
    client_seed: str | None = None,
) -> tuple[GameState, list[Event]]:
    """Take an open seat (the lowest open one when ``seat`` is ``None``); deals when full.

    ``client_seed`` is the player's entropy for the deals (docs/fairness.md). A seat
    `GameState.reserved` holds is refused (``seat_reserved``) and skipped: its
    player's claim clears the hold first (service/games/rematch.py)."""
    if client_seed is not None and not fairness.is_client_seed(client_seed):
        raise OptionsError({"client_seed": ["1 to 64 of A-Z a-z 0-9 _ -"]})
    if state.status != "waiting":
        raise IllegalMove("game_not_active", "the game is not waiting for players")
    held = state.reserved
    if seat is None:
        open_seats = [i for i, s in enumerate(state.seats) if s.is_open and not (held and held[i])]
        if not open_seats:
            raise IllegalMove("no_open_seat", "every seat is taken")
        seat = open_seats[0]
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalMove("invalid_seat", f"no seat {seat!r}")
    if not state.seats[seat].is_open:
        raise IllegalMove("seat_taken", f"seat {seat} is already taken")
    if held and held[seat]:
        raise IllegalMove("seat_reserved", f"seat {seat} is held for a player of the game before")
    seats = list(state.seats)
    seats[seat] = evolve(seats[seat], name=name, token_hash=token_hash, client_seed=client_seed)
    state = evolve(state, seats=tuple(seats))
    events = [vocab.seat_taken(seat=seat, name=name, kind="human")]
    if not any(s.is_open for s in state.seats):
        state = _start(state, events)
    return _counted(state, events), events


#: The strategy that plays, from then on, the seat of a player who left an active game.
LEAVER_BOT = "greedy"


def leave_seat(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """The player of ``seat`` leaves: a waiting game's seat is open again; in an
    active game the `LEAVER_BOT` plays it to the end (its token no longer counts).
    Emits ``seat_left``; a finished game cannot be left (``game_not_active``)."""
    if not 0 <= seat < state.players or state.seats[seat].kind != "human":
        raise IllegalMove("invalid_seat", f"seat {seat} has no player to leave")
    seats = list(state.seats)
    if state.status == "waiting":
        seats[seat] = Seat(name=None, kind="human")
        event = vocab.seat_left(seat=seat, kind="human")
    elif state.status == "active":
        seats[seat] = evolve(
            seats[seat], kind="bot", bot=LEAVER_BOT, token_hash=None, away=False, timeouts=0
        )
        event = vocab.seat_left(seat=seat, kind="bot", bot=LEAVER_BOT)
    else:
        raise IllegalMove("game_not_active", "the game is over")
    return _counted(state, [event], seats=tuple(seats)), [event]


def _start(state: GameState, events: list[Event]) -> GameState:
    state = evolve(state, status="active")
    stake = state.options.stake
    if stake is not None:
        state = evolve(state, seats=tuple(evolve(s, chips_in=stake) for s in state.seats))
        events.append(vocab.pot_opened(stake=stake, pot=stake * state.players))
    return _deal(state, 1, events)


# ---------------------------------------------------------------------------
# Dealing


def _deal(
    state: GameState, number: int, events: list[Event], prev_dealer: int | None = None
) -> GameState:
    """Deal round ``number`` (docs/rules.md §3) and append ``round_started``."""
    opts = state.options
    n = state.players
    seats = list(state.seats)
    # Seats that re-engaged come back with the highest total among the others remaining.
    rejoining = [i for i, s in enumerate(seats) if s.rejoining]
    if rejoining:
        others = [s.score for s in seats if not s.eliminated and not s.rejoining]
        top = max(others) if others else 0
        for i in rejoining:
            seats[i] = evolve(
                seats[i],
                score=top,
                rejoining=False,
                carried=seats[i].carried + top - seats[i].score,
            )
            events.append(vocab.seat_rejoined(seat=i, score=top))
    dealt = tuple(not s.eliminated for s in seats)
    secret = round_secret(state, number)
    if prev_dealer is None:
        if state.first_dealer is not None:
            dealer = state.first_dealer
        elif secret is not None:
            dealer = fairness.first_dealer(secret, n)
        else:
            dealer = _rng(state, "dealer").randrange(n)
    else:
        dealer = _next_in(dealt, prev_dealer)
    order = []
    s = dealer
    for _ in range(sum(dealt)):
        s = _next_in(dealt, s)
        order.append(s)
    k = len(order)
    size = opts.hand_size_for(k)
    if number == 1 and state.deck is not None:
        cards = list(state.deck)
    elif secret is not None:
        cards = fairness.shuffled(build_deck(opts.decks, opts.jokers), secret, fairness.DEAL_LABEL)
    else:
        cards = build_deck(opts.decks, opts.jokers)
        _rng(state, f"deal/{number}").shuffle(cards)
    hands: list[list[Card]] = [[] for _ in range(n)]
    pos = 0
    for i in range(k * size):
        hands[order[i % k]].append(cards[i])
    pos = k * size
    discard: tuple[Card, ...] = ()
    if opts.first_turn_no_draw:
        hands[order[0]].append(cards[pos])
    else:
        discard = (cards[pos],)
    pos += 1
    stock = tuple(reversed(cards[pos:]))
    first = order[0]
    rnd = RoundState(
        number=number,
        dealer=dealer,
        first=first,
        dealt=dealt,
        hands=tuple(_sorted_hand(h) for h in hands),
        stock=stock,
        discard=discard,
        melds=(),
        next_meld_id=1,
        turn=first,
        phase="play" if opts.first_turn_no_draw else "draw",
        taken=None,
        turn_melds=0,
        turn_acted=False,
        opening=None,
        melded=(False,) * n,
        played=(False,) * n,
        refills=0,
        turns=0,
        known=((),) * n,
    )
    events.append(
        vocab.round_started(
            number=number,
            dealer=dealer,
            first=first,
            hands=[h if dealt[i] else None for i, h in enumerate(rnd.hands)],
            discard_pile=discard,
            stock_size=len(stock),
            deal_commitment=None if secret is None else fairness.commitment(secret),
        )
    )
    return evolve(state, seats=tuple(seats), round=rnd, deck=None)


def _next_in(dealt: Sequence[bool], seat: int) -> int:
    n = len(dealt)
    for k in range(1, n + 1):
        s = (seat + k) % n
        if dealt[s]:
            return s
    return seat


# ---------------------------------------------------------------------------
# Checks shared by legal_moves and apply


def _discardable(hand: Sequence[Card], card: Card, taken: Card | None) -> bool:
    return card != taken or hand.count(card) > 1


def _turn_seat_check(state: GameState, seat: int) -> RoundState:
    if state.status == "active" and state.round is None:
        waiting = ", ".join(map(str, state.deciding))
        raise IllegalMove(
            "reengage_pending", f"the next round is dealt once seats {waiting} have decided"
        )
    if state.status != "active" or state.round is None:
        raise IllegalMove("game_not_active", f"the game is {state.status}")
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalMove("invalid_seat", f"no seat {seat!r}")
    r = state.round
    if not r.dealt[seat]:
        raise IllegalMove("not_in_round", f"seat {seat} is not dealt in this round")
    if seat != r.turn:
        raise IllegalMove("not_your_turn", f"it is seat {r.turn}'s turn")
    return r


def _is_deciding(state: GameState, seat: int) -> bool:
    """Whether ``seat`` is to decide now whether to re-engage."""
    return (
        state.status == "active"
        and state.round is None
        and type(seat) is int
        and 0 <= seat < state.players
        and state.seats[seat].deciding
    )


# ---------------------------------------------------------------------------
# Legal moves


def legal_moves(state: GameState, seat: int) -> list[Move]:
    """Every move ``seat`` may make now, sorted; empty when it may make none."""
    if _is_deciding(state, seat):
        return [Reengage(), DeclineReengage()]
    if state.status != "active" or state.round is None:
        return []
    if not 0 <= seat < state.players:
        return []
    if state.seats[seat].eliminated:
        return []
    r = state.round
    if seat != r.turn or not r.dealt[seat]:
        return []
    if r.phase == "draw":
        moves: list[Move] = [Draw("stock")]
        if r.discard:
            moves.insert(0, Draw("discard"))
        return moves
    opts = state.options
    hand = r.hands[seat]
    concealed = is_concealed(opts, r)
    out: list[Move] = []
    nodes = Nodes()  # one search budget for every check of this listing
    # Melds listed, by their place in `move_sort_key` order (`CandidateMeld`).
    listed: list[tuple[int, tuple[Card, ...]]] = []
    # Each kind's gate is asked once for the listing, then its check per
    # candidate: the same checks `apply` makes, so a move is legal exactly when listed.
    if _meld_gate(opts, r) is None:
        if searches(opts, r, seat):  # a first-meld minimum or a concealed round
            listed = [
                (meld[4], meld[0])
                for meld, code in _searched_melds(opts, r, seat, nodes)
                if code is None
            ]
        else:
            packed_hand = pack(hand)
            size = len(hand)
            candidates = candidate_meld_points(hand, opts.ace, opts.joker_limit)
            for cards, points, packed, _, order in candidates:
                # Two cards left: a discard ends the turn (`plain_finish`), nothing to check.
                if size - len(cards) >= 2 or (
                    _meld_finish(opts, r, seat, cards, points, packed_hand - packed) is None
                ):
                    listed.append((order, cards))
    if r.melds and _layoff_gate(opts, r, seat) is None:
        shapes = {m.id: m.shape for m in r.melds}
        for meld_id, cards in candidate_layoffs(hand, shapes, opts.ace, opts.joker_limit):
            if not isinstance(_layoff_check(state, r, seat, meld_id, cards), str):
                out.append(LayOff(meld_id, cards))
    if opts.joker_swap and r.melds:
        out.extend(
            move for move, placed in _swaps(state, r, seat, nodes) if not isinstance(placed, str)
        )
    if _discard_gate(opts, r, concealed, len(hand)) is None:
        for card in dict.fromkeys(hand):
            if _discard_check(opts, r, hand, card, concealed) is None:
                out.append(Discard(card))
    out.sort(key=move_sort_key)
    # Melds come first in that order; theirs is known without building each key.
    listed.sort()
    return [*map(Meld, [cards for _, cards in listed]), *out]


def unavailable(state: GameState, seat: int, listed: Sequence[Move]) -> dict[str, Unavailable]:
    """Why each kind of move with none in ``listed`` (``legal_moves(state, seat)``) is
    not legal now, by move type: the code a move of that kind would be refused
    with, and the figures behind a first-meld minimum. A client can say why a
    control is disabled without trying the move."""
    present = {type(m).TYPE for m in listed}
    return {
        cls.TYPE: _unavailable(state, seat, cls.TYPE)
        for cls in MOVE_CLASSES
        if cls.TYPE not in present
    }


def _unavailable(state: GameState, seat: int, kind: str) -> Unavailable:
    if kind == Reengage.TYPE:
        return Unavailable("cannot_reengage", "there is no re-engage decision for you now")
    if kind == DeclineReengage.TYPE:
        return Unavailable("no_reengage_decision", "there is no re-engage decision for you now")
    try:
        r = _turn_seat_check(state, seat)
    except IllegalMove as refused:
        return Unavailable(refused.code, refused.detail)
    opts = state.options
    first_turn = opts.first_turn_no_draw and r.turns == 0
    if kind == Draw.TYPE:
        if first_turn and r.phase == "play":
            return Unavailable("no_draw_first_turn", "the first player does not draw this turn")
        return Unavailable("already_drew", "you have already drawn this turn")
    if r.phase == "draw":
        return Unavailable("must_draw_first", "draw a card first")
    minimum = opts.first_meld_min_points
    short = minimum > 0 and not has_opened(opts, r, seat)
    opening = Unavailable(
        "first_meld_minimum",
        f"your first melds this round must total {minimum} points",
        needed=minimum,
        have=r.opening or 0,
    )
    if kind == Meld.TYPE:
        gate = _meld_gate(opts, r)
        if gate is not None:
            return Unavailable(gate, _MELD_TEXTS[gate].format(cards=[]))
        if short:
            return opening
        if is_concealed(opts, r):
            return Unavailable("concealed_round", "in a concealed round you meld to go out")
        return Unavailable("nothing_to_meld", "no meld can be made from your hand")
    if kind == LayOff.TYPE:
        gate = _layoff_gate(opts, r, seat)
        if gate == "first_meld_minimum":
            return opening
        if gate is not None:
            return Unavailable(gate, _LAYOFF_TEXTS[gate].format(minimum=minimum))
        return Unavailable("nothing_to_lay_off", "none of your cards fits a meld on the table")
    if kind == SwapJoker.TYPE:
        if not opts.joker_swap:
            return Unavailable("joker_swap_not_allowed", _SWAP_TEXTS["joker_swap_not_allowed"])
        return Unavailable("nothing_to_swap", "you hold no card a melded joker stands for")
    hand = r.hands[seat]
    gate = _discard_gate(opts, r, is_concealed(opts, r), len(hand))
    if gate == "first_meld_minimum":
        return opening
    if gate is not None:
        return Unavailable(gate, _DISCARD_TEXTS[gate].format(minimum=minimum))
    return Unavailable(
        "cannot_discard_taken_card",
        _DISCARD_TEXTS["cannot_discard_taken_card"].format(card=r.taken),
    )


def _searched_melds(
    opts: Options, r: RoundState, seat: int, nodes: Nodes
) -> Iterator[tuple[CandidateMeld, str | None]]:
    """Each candidate meld of the listing, in its order, with its refusal code or
    ``None``, when its check searches (a first-meld minimum, a concealed round).
    One pool of the hand's melds serves every search; the candidates are melds of
    cards in hand, so the check left is the search's. The listing and `apply` both
    take their answers from here, in this order, with one budget: a meld is legal
    exactly when listed."""
    pool = meld_pool(r.hands[seat], opts.ace, opts.joker_limit)
    hand, most, listed = pool.hand, pool.most, pool.listed
    if r.taken is not None:  # laying the taken card off may end the turn: the table counts
        for meld in listed:
            cards, points, packed, spent, _ = meld
            rest = hand - packed
            yield meld, _meld_finish(opts, r, seat, cards, points, rest, pool, nodes, most - spent)
        return
    # Else `_meld_finish` without the table, its opening worked out once per
    # points (bench/worst_case.py: thousands of candidates per listing).
    size, turn_melds = len(r.hands[seat]), r.turn_melds + 1
    openings: dict[int, int | None] = {}
    # What `finish_code` answers, without its calls for each of them: the search is
    # the listing's own (no discard taken), and outside a concealed round a meld that
    # leaves two cards (a discard) needs it only while the minimum is not met.
    minimum = opts.first_meld_min_points
    concealed = is_concealed(opts, r)  # then the hand must go out: `finish_code`'s must_out
    run = shared_search(opts, r, concealed, turn_melds, pool, nodes)
    for meld in listed:
        cards, points, packed, spent, _ = meld
        if points in openings:
            opening = openings[points]
        else:
            opening = openings[points] = _opening_after(opts, r, seat, points)
        n = size - len(cards)
        need = minimum - opening if opening is not None else 0
        if concealed:
            left = most - spent
            found = need <= left and run(hand - packed, n, need, left)
            yield meld, None if found else "concealed_round"
        elif n >= 2:
            if need <= 0:
                yield meld, None
            elif nodes.left <= 0:
                yield meld, "first_meld_minimum"
            else:
                left = most - spent
                found = need <= left and run(hand - packed, n, need, left)
                yield meld, None if found else "first_meld_minimum"
        else:
            rest = hand - packed
            yield (
                meld,
                finish_code(
                    opts, r, rest, n, (), True, opening, turn_melds, pool, nodes, most - spent
                ),
            )


def _swaps(
    state: GameState, r: RoundState, seat: int, nodes: Nodes
) -> Iterator[tuple[SwapJoker, _Placed | str]]:
    """Each joker swap the listing checks, in its order, with what its check answers."""
    for m in r.melds:
        if JOKER not in m.shape.cards:
            continue
        for card in sorted(set(r.hands[seat]), key=CARD_ORDER.__getitem__):
            if card != JOKER:
                yield SwapJoker(m.id, card), _swap_check(state, r, seat, m.id, card, nodes)


def _listed_code(state: GameState, r: RoundState, seat: int, move: Meld | SwapJoker) -> str | None:
    """``None`` if the listing of ``seat``'s moves shows ``move`` (a meld in display
    order, or a swap), else the refusal its check gave. The listing's checks share
    one search budget, so whether a searching move is legal depends on the checks
    before it: they run, in the listing's order, up to this one (not the whole
    listing, nor a check of its own with a budget of its own first:
    bench/worst_case.py)."""
    opts = state.options
    nodes = Nodes()
    if _meld_gate(opts, r) is None:
        for meld, code in _searched_melds(opts, r, seat, nodes):
            if isinstance(move, Meld) and meld[0] == move.cards:
                return code
    if isinstance(move, SwapJoker) and opts.joker_swap:
        for swap, placed in _swaps(state, r, seat, nodes):
            if swap == move:
                return placed if isinstance(placed, str) else None
    return search_code(opts, r, seat)


@dataclass(frozen=True, slots=True)
class _Placed:
    """What an accepted meld, lay-off or joker swap leaves: the mover's hand, the
    meld put down or changed, the table, and the first-meld points still owed."""

    rest: tuple[Card, ...]
    meld: TableMeld
    melds: tuple[TableMeld, ...]
    opening: int | None
    gained: tuple[Card, ...] = ()  # the joker a swap takes into the hand


#: The text of each refusal, per kind of move (``{cards}``, ``{card}``, ``{meld}``,
#: ``{minimum}`` filled in); under ``""`` the text of any other code (those of the
#: search for a way to finish the turn).
_MELD_TEXTS: dict[str, str] = {
    "card_not_in_hand": "not all of {cards} are in your hand",
    "invalid_meld": "{cards} is not a valid meld",
    "one_meld_per_turn": "only one meld per turn",
    "": "melding {cards} would leave no legal way to finish the turn",
}
_LAYOFF_TEXTS: dict[str, str] = {
    "card_not_in_hand": "not all of {cards} are in your hand",
    "unknown_meld": "no meld {meld} on the table",
    "concealed_round": "no lay-offs in a concealed round",
    "first_meld_minimum": "first melds must total {minimum} before a lay-off",
    "layoff_requires_own_meld": "put down a meld of your own first",
    "": "cannot lay off {cards} on meld {meld}",
}
_SWAP_TEXTS: dict[str, str] = {
    "joker_swap_not_allowed": "joker swaps are off in this game",
    "card_not_in_hand": "{card} is not in your hand",
    "unknown_meld": "no meld {meld} on the table",
    "": "cannot swap {card} for a joker of meld {meld}",
}
_DISCARD_TEXTS: dict[str, str] = {
    "card_not_in_hand": "{card} is not in your hand",
    "cannot_discard_taken_card": "{card} was taken from the discard pile this turn",
    "first_meld_minimum": "your first melds must total {minimum} before you discard",
    "concealed_round": "having melded in a concealed round, you must go out this turn",
}


def _refused(code: str, texts: dict[str, str], **fields: Any) -> IllegalMove:
    return IllegalMove(code, texts.get(code, texts.get("", code)).format(**fields))


def _opening_after(opts: Options, r: RoundState, seat: int, points: int) -> int | None:
    """The first-meld points still being gathered after a meld worth ``points``
    (``None``: no minimum, already met, or met by this meld)."""
    if opts.first_meld_min_points == 0 or has_opened(opts, r, seat):
        return r.opening
    opening = (r.opening or 0) + points
    return None if opening >= opts.first_meld_min_points else opening


def _meld_gate(opts: Options, r: RoundState) -> str | None:
    """Why no meld at all may be put down now, or ``None``."""
    if opts.melds_per_turn is not None and r.turn_melds >= opts.melds_per_turn:
        return "one_meld_per_turn"
    return None


def _meld_check(state: GameState, r: RoundState, seat: int, cards: Sequence[Card]) -> _Placed | str:
    """What melding ``cards`` leaves, or why it is refused. When only the search
    can tell, the listing's answer (`_listed_code`; the listing gives each meld in
    display order, which fixes the meld)."""
    opts = state.options
    rest = _remove(r.hands[seat], cards)
    if rest is None:
        return "card_not_in_hand"
    shape = meld_shape(tuple(cards), opts.ace, opts.joker_limit)
    if shape is None:
        return "invalid_meld"
    gate = _meld_gate(opts, r)
    if gate is not None:
        return gate
    points = meld_points(shape)
    code = _meld_finish(opts, r, seat, cards, points, pack(rest), shape=shape, search=False)
    if code == SEARCH_NEEDED:
        code = _listed_code(state, r, seat, Meld(shape.cards))
    if code is not None:
        return code
    meld = TableMeld(r.next_meld_id, shape, seat)
    return _Placed(rest, meld, (*r.melds, meld), _opening_after(opts, r, seat, points))


def _meld_finish(
    opts: Options,
    r: RoundState,
    seat: int,
    cards: Sequence[Card],
    points: int,
    rest: int,
    pool: Pool | tuple[Card, ...] | None = None,
    nodes: Nodes | None = None,
    most: int | None = None,
    shape: MeldShape | None = None,
    search: bool = True,
) -> str | None:
    """Why the turn could not end after melding ``cards`` (worth ``points``,
    leaving the packed hand ``rest``; ``most``: its `most_points` if known;
    ``shape``: the meld if built), or ``None``. The listing asks this of each of
    its candidates: their other checks hold by construction."""
    # The table's melds only matter for laying off the taken discard (plain_finish):
    # a listing does not build them, nor the meld, for each of its candidates.
    shapes: tuple[MeldShape, ...] = ()
    if r.taken is not None:
        if shape is None:
            shape = meld_shape(tuple(cards), opts.ace, opts.joker_limit)
            assert shape is not None
        shapes = (*[m.shape for m in r.melds], shape)
    n = len(r.hands[seat]) - len(cards)
    opening = _opening_after(opts, r, seat, points)
    turn_melds = r.turn_melds + 1
    return finish_code(
        opts, r, rest, n, shapes, True, opening, turn_melds, pool, nodes, most, search
    )


def _layoff_gate(opts: Options, r: RoundState, seat: int) -> str | None:
    """Why ``seat`` may lay off nothing now, or ``None``."""
    if is_concealed(opts, r):
        return "concealed_round"
    if opts.first_meld_min_points > 0 and not has_opened(opts, r, seat):
        return "first_meld_minimum"
    if opts.layoff_requires_own_meld and not r.melded[seat]:
        return "layoff_requires_own_meld"
    return None


def _layoff_check(
    state: GameState, r: RoundState, seat: int, meld_id: int, cards: Sequence[Card]
) -> _Placed | str:
    """What laying off ``cards`` on meld ``meld_id`` leaves, or why it is refused."""
    opts = state.options
    rest = _remove(r.hands[seat], cards)
    if rest is None:
        return "card_not_in_hand"
    target = next((m for m in r.melds if m.id == meld_id), None)
    if target is None:
        return "unknown_meld"
    gate = _layoff_gate(opts, r, seat)
    if gate is not None:
        return gate
    shape = extend_meld(target.shape, cards, opts.ace, opts.joker_limit)
    if shape is None:
        return "invalid_layoff"
    meld = TableMeld(meld_id, shape, target.owner)
    melds = tuple(meld if m.id == meld_id else m for m in r.melds)
    shapes = tuple(m.shape for m in melds)
    code = finish_code(
        opts, r, pack(rest), len(rest), shapes, r.melded[seat], r.opening, r.turn_melds
    )
    return code if code is not None else _Placed(rest, meld, melds, r.opening)


def _swap_check(
    state: GameState,
    r: RoundState,
    seat: int,
    meld_id: int,
    card: Card,
    nodes: Nodes | None = None,
) -> _Placed | str:
    """What swapping ``card`` for a joker of meld ``meld_id`` leaves (the joker in
    hand), or why it is refused. The listing's checks search with its ``nodes``;
    without them, when only the search can tell, the listing's answer
    (`_listed_code`)."""
    opts = state.options
    if not opts.joker_swap:
        return "joker_swap_not_allowed"
    hand = r.hands[seat]
    if card not in hand:
        return "card_not_in_hand"
    target = next((m for m in r.melds if m.id == meld_id), None)
    if target is None:
        return "unknown_meld"
    swapped = swap_joker(target.shape, card)
    if swapped is None:
        return "invalid_joker_swap"
    rest = _remove(hand, (card,))
    assert rest is not None  # the card is in hand
    rest = _sorted_hand((*rest, swapped[1]))
    meld = TableMeld(meld_id, swapped[0], target.owner)
    melds = tuple(meld if m.id == meld_id else m for m in r.melds)
    shapes = tuple(m.shape for m in melds)
    code = finish_code(
        opts,
        r,
        pack(rest),
        len(rest),
        shapes,
        r.melded[seat],
        r.opening,
        r.turn_melds,
        None,
        nodes,
        search=nodes is not None,
    )
    if code == SEARCH_NEEDED:
        code = _listed_code(state, r, seat, SwapJoker(meld_id, card))
    return code if code is not None else _Placed(rest, meld, melds, r.opening, (swapped[1],))


def _discard_gate(opts: Options, r: RoundState, concealed: bool, hand_size: int) -> str | None:
    """Why no card at all may be discarded now, or ``None``."""
    if opts.first_meld_min_points > 0 and r.opening is not None:
        return "first_meld_minimum"
    if concealed and r.turn_melds > 0 and hand_size > 1:
        return "concealed_round"  # having melded, the hand must go out this turn
    return None


def _discard_check(
    opts: Options, r: RoundState, hand: tuple[Card, ...], card: Card, concealed: bool
) -> str | None:
    """Why discarding ``card`` is refused, or ``None``."""
    if card not in hand:
        return "card_not_in_hand"
    if not _discardable(hand, card, r.taken):
        return "cannot_discard_taken_card"
    return _discard_gate(opts, r, concealed, len(hand))


# ---------------------------------------------------------------------------
# Applying moves


def apply(state: GameState, seat: int, move: Move) -> tuple[GameState, list[Event]]:
    """Apply one move of ``seat``; returns the new state and the events it caused.

    Raises :class:`IllegalMove` when a rule forbids the move; ``state`` is never changed.
    """
    events: list[Event] = []
    if isinstance(move, Reengage | DeclineReengage):
        return _decide(state, seat, isinstance(move, Reengage), events), events
    r = _turn_seat_check(state, seat)
    if r.phase == "draw" and not isinstance(move, Draw):
        raise IllegalMove("must_draw_first", "draw a card first")
    match move:
        case Draw():
            new = _apply_draw(state, r, seat, move, events)
        case Meld():
            new = _apply_meld(state, r, seat, move, events)
        case LayOff():
            new = _apply_layoff(state, r, seat, move, events)
        case SwapJoker():
            new = _apply_swap(state, r, seat, move, events)
        case Discard():
            new = _apply_discard(state, r, seat, move, events)
        case _:  # pragma: no cover - the Move union is closed
            raise TypeError(f"not a move: {move!r}")
    if new.steps == state.steps:  # a round ended: not yet counted (`_went_on`)
        new = _counted(new, events, steps=state.steps + 1)
    return new, events


def apply_all(state: GameState, seat: int, moves: Sequence[Move]) -> tuple[GameState, list[Event]]:
    """Apply several moves of ``seat`` in order, all or nothing."""
    events: list[Event] = []
    for move in moves:
        state, more = apply(state, seat, move)
        events.extend(more)
    return state, events


def _known(
    r: RoundState, seat: int, gained: Sequence[Card] = (), played: Sequence[Card] = ()
) -> tuple[tuple[Card, ...], ...]:
    """``r.known`` after ``seat`` took ``gained`` in sight of all and played ``played``:
    a played card stops being known (one copy: two decks may hold two alike)."""
    # The other seats' tuples are kept as they are (the same objects).
    if not gained and r.known and not r.known[seat]:
        # Nothing known of the seat, nothing gained (most discards): the same
        # tuple, not an equal copy ("What a move costs").
        return r.known
    known: list[tuple[Card, ...]] = list(r.known) if r.known else [() for _ in r.hands]
    mine = list(known[seat])
    for card in played:
        if card in mine:
            mine.remove(card)
    mine.extend(gained)
    known[seat] = tuple(sorted(mine, key=CARD_ORDER.__getitem__))
    return tuple(known)


def _set_hand(r: RoundState, seat: int, hand: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    hands = list(r.hands)
    hands[seat] = hand
    return tuple(hands)


def _decide(state: GameState, seat: int, reengage: bool, events: list[Event]) -> GameState:
    """``seat``'s re-engage decision; once every seat has decided, the next deal
    (or, with one player left in, the game's end)."""
    if not _is_deciding(state, seat):
        if reengage:
            raise IllegalMove("cannot_reengage", f"seat {seat!r} has no re-engage decision now")
        raise IllegalMove("no_reengage_decision", f"seat {seat!r} has no re-engage decision now")
    seats = list(state.seats)
    s = seats[seat]
    if reengage:
        top = state.comeback_total
        chips = state.options.reengage_chips()
        seats[seat] = evolve(
            s,
            eliminated=False,
            deciding=False,
            reengaged=s.reengaged + 1,
            score=top,
            carried=s.carried + top - s.score,
            chips_in=s.chips_in + chips,
        )
        shown_chips = chips if state.options.stake is not None else None
        events.append(vocab.reengaged(seat=seat, score=top, chips=shown_chips))
    else:
        seats[seat] = evolve(s, deciding=False)
        events.append(vocab.reengage_declined(seat=seat))
    state = evolve(state, seats=tuple(seats))
    if not any(x.deciding for x in seats):
        remaining = [i for i, x in enumerate(seats) if not x.eliminated]
        last = state.rounds[-1]
        if len(remaining) == 1:
            state = _finish(state, (remaining[0],), events)
        else:
            state = _deal(state, last.number + 1, events, prev_dealer=last.dealer)
    return _counted(state, events, steps=state.steps + 1)


def _apply_draw(
    state: GameState, r: RoundState, seat: int, move: Draw, events: list[Event]
) -> GameState:
    opts = state.options
    if r.phase != "draw":
        if opts.first_turn_no_draw and r.turns == 0:
            raise IllegalMove(
                "no_draw_first_turn", "the first player does not draw on the first turn"
            )
        raise IllegalMove("already_drew", "you have already drawn this turn")
    hand = r.hands[seat]
    if move.source == "discard":
        if not r.discard:
            raise IllegalMove("discard_pile_empty", "the discard pile is empty")
        card = r.discard[-1]
        events.append(vocab.drew(seat=seat, source="discard", card=card))
        new_round = evolve(
            r,
            hands=_set_hand(r, seat, _sorted_hand((*hand, card))),
            known=_known(r, seat, gained=(card,)),
            discard=r.discard[:-1],
            phase="play",
            taken=card,
        )
        return _went_on(state, new_round, events)
    stock = r.stock
    discard = r.discard
    refills = r.refills
    if not stock:
        if not opts.may_refill(refills):
            return _end_round(state, r, None, "stock_exhausted", seat, events)
        if opts.refill_keeps_top and discard:
            pile, discard = list(discard[:-1]), discard[-1:]
        else:
            pile, discard = list(discard), ()
        if not pile:
            return _end_round(state, r, None, "stock_exhausted", seat, events)
        refills += 1
        secret = round_secret(state, r.number)
        if opts.stock_refill == "shuffle" and secret is not None:
            # The first card of the shuffled pile is drawn first (top = last).
            label = fairness.refill_label(refills)
            stock = tuple(reversed(fairness.shuffled(pile, secret, label)))
        elif opts.stock_refill == "shuffle":
            _rng(state, f"refill/{r.number}/{refills}").shuffle(pile)
            stock = tuple(pile)
        else:
            # Turned over: the card discarded first is drawn first (top = last).
            stock = tuple(reversed(pile))
        events.append(
            vocab.stock_refilled(refills=refills, stock_size=len(stock), discard_pile=discard)
        )
    card = stock[-1]
    events.append(vocab.drew(seat=seat, source="stock", card=card))
    new_round = evolve(
        r,
        hands=_set_hand(r, seat, _sorted_hand((*hand, card))),
        stock=stock[:-1],
        discard=discard,
        refills=refills,
        phase="play",
        taken=None,
    )
    return _went_on(state, new_round, events)


def _apply_meld(
    state: GameState, r: RoundState, seat: int, move: Meld, events: list[Event]
) -> GameState:
    placed = _meld_check(state, r, seat, move.cards)
    if isinstance(placed, str):
        raise _refused(placed, _MELD_TEXTS, cards=list(move.cards))
    rest, meld = placed.rest, placed.meld
    melded = list(r.melded)
    melded[seat] = True
    new_round = evolve(
        r,
        hands=_set_hand(r, seat, rest),
        known=_known(r, seat, played=meld.shape.cards),
        melds=placed.melds,
        next_meld_id=r.next_meld_id + 1,
        turn_melds=r.turn_melds + 1,
        turn_acted=True,
        opening=placed.opening,
        melded=tuple(melded),
    )
    events.append(vocab.melded(seat=seat, meld=meld_json(meld)))
    return _after_placing(state, new_round, seat, rest, events)


def _apply_layoff(
    state: GameState, r: RoundState, seat: int, move: LayOff, events: list[Event]
) -> GameState:
    placed = _layoff_check(state, r, seat, move.meld, move.cards)
    if isinstance(placed, str):
        raise _refused(
            placed,
            _LAYOFF_TEXTS,
            cards=list(move.cards),
            meld=move.meld,
            minimum=state.options.first_meld_min_points,
        )
    rest, new_meld = placed.rest, placed.meld
    new_round = evolve(
        r,
        hands=_set_hand(r, seat, rest),
        known=_known(r, seat, played=move.cards),
        melds=placed.melds,
        turn_acted=True,
    )
    events.append(
        vocab.laid_off(seat=seat, meld=move.meld, cards=move.cards, result=meld_json(new_meld))
    )
    return _after_placing(state, new_round, seat, rest, events)


def _apply_swap(
    state: GameState, r: RoundState, seat: int, move: SwapJoker, events: list[Event]
) -> GameState:
    placed = _swap_check(state, r, seat, move.meld, move.card)
    if isinstance(placed, str):
        raise _refused(placed, _SWAP_TEXTS, card=move.card, meld=move.meld)
    new_meld = placed.meld
    new_round = evolve(
        r,
        hands=_set_hand(r, seat, placed.rest),
        known=_known(r, seat, gained=placed.gained, played=(move.card,)),
        melds=placed.melds,
    )
    events.append(
        vocab.joker_swapped(seat=seat, meld=move.meld, card=move.card, result=meld_json(new_meld))
    )
    return _went_on(state, new_round, events)


def _apply_discard(
    state: GameState, r: RoundState, seat: int, move: Discard, events: list[Event]
) -> GameState:
    opts = state.options
    hand = r.hands[seat]
    code = _discard_check(opts, r, hand, move.card, is_concealed(opts, r))
    if code is not None:
        raise _refused(code, _DISCARD_TEXTS, card=move.card, minimum=opts.first_meld_min_points)
    rest = _remove(hand, (move.card,))
    assert rest is not None  # checked above
    events.append(vocab.discarded(seat=seat, card=move.card))
    hands = _set_hand(r, seat, rest)
    discard = (*r.discard, move.card)
    if not rest:
        new_round = evolve(r, hands=hands, discard=discard)
        state = evolve(state, round=new_round)
        return _end_round(state, new_round, seat, "went_out", seat, events)
    played = r.played
    if r.turn_acted and not played[seat]:
        pl = list(played)
        pl[seat] = True
        played = tuple(pl)
    # One new round state for the discard and the passing of the turn.
    new_round = evolve(
        r,
        hands=hands,
        known=_known(r, seat, played=(move.card,)),
        discard=discard,
        turn=_next_in(r.dealt, seat),
        phase="draw",
        taken=None,
        turn_melds=0,
        turn_acted=False,
        opening=None,
        played=played,
        turns=r.turns + 1,
    )
    if opts.last_stock == "when_empty" and not r.stock and not opts.may_refill(r.refills):
        # The last card of a stock that may not be refilled was drawn, and the
        # turn ended without going out: "if the stock is empty again, the round
        # is a draw".
        state = evolve(state, round=new_round)
        return _end_round(state, new_round, None, "stock_exhausted", seat, events)
    if new_round.turns >= MAX_ROUND_TURNS or (
        opts.blocked_ends_early() and round_blocked(new_round, opts)
    ):
        state = evolve(state, round=new_round)
        return _end_round(state, new_round, None, "blocked", seat, events)
    return _went_on(state, new_round, events)


# ---------------------------------------------------------------------------
# The end of a round and of the game


def _end_round(
    state: GameState,
    r: RoundState,
    winner: int | None,
    reason: str,
    ender: int,
    events: list[Event],
) -> GameState:
    opts = state.options
    rummy = winner is not None and not r.played[winner]
    if winner is not None:
        events.append(vocab.went_out(seat=winner, rummy=rummy))
    points = round_points(opts, r.hands, r.dealt, winner, rummy)
    seats = [evolve(s, score=s.score + points[i]) for i, s in enumerate(state.seats)]
    record = RoundRecord(
        number=r.number,
        reason=reason,
        winner=winner,
        rummy=rummy,
        points=points,
        hands=r.hands,
        ender=ender,
        first=r.first,
        dealer=r.dealer,
    )
    scores = [s.score for s in seats]
    # The round is over: its deal secret, if any, is revealed (docs/fairness.md).
    secret = round_secret(state, r.number)
    events.append(
        vocab.round_ended(
            number=r.number,
            reason=reason,
            winner=winner,
            rummy=rummy,
            points=points,
            hands=r.hands,
            scores=scores,
            deal_commitment=None if secret is None else fairness.commitment(secret),
            secret=None if secret is None else secret.hex(),
        )
    )
    n = state.players
    winners: tuple[int, ...] | None
    deciding: tuple[int, ...] = ()
    if opts.end == "express":
        winners = express_winner(opts, r.hands, r.dealt, winner, ender, r.first)
    elif opts.end == "elimination":
        newly, winners, deciding = elimination_result(
            opts,
            scores,
            [s.eliminated for s in seats],
            r.dealt,
            n,
            ender,
            r.first,
            [s.reengaged < opts.reengage_limit for s in seats],
        )
        for i in newly:
            seats[i] = evolve(seats[i], eliminated=True, deciding=i in deciding)
            events.append(vocab.seat_eliminated(seat=i, score=scores[i]))
    else:
        winners = game_winners(opts, scores, len(state.rounds) + 1, n)
    state = evolve(state, seats=tuple(seats), rounds=(*state.rounds, record), round=None)
    if winners is not None:
        return _finish(state, winners, events)
    if deciding:
        events.append(vocab.reengage_offered(seats=deciding, score=state.comeback_total))
        return state
    return _deal(state, r.number + 1, events, prev_dealer=r.dealer)


def _finish(state: GameState, winners: tuple[int, ...], events: list[Event]) -> GameState:
    """The game is over: ``winners`` share the pot (with a stake); ``game_ended``."""
    scores = [s.score for s in state.seats]
    in_pot = state.pot
    payouts: tuple[int, ...] | None = None
    seats = state.seats
    if in_pot is not None:
        payouts = pot_shares(in_pot, winners, state.players)
        seats = tuple(evolve(s, chips_out=s.chips_out + payouts[i]) for i, s in enumerate(seats))
    events.append(
        vocab.game_ended(
            winners=winners, scores=scores, game_secret=state.game_secret, payouts=payouts
        )
    )
    return evolve(state, status="finished", winners=winners, seats=seats)


def cards_in_play(state: GameState) -> Counter[Card]:
    """Every card of the current round wherever it is (hands, stock, discard, table)."""
    r = state.round
    out: Counter[Card] = Counter()
    if r is None:
        return out
    for h in r.hands:
        out.update(h)
    out.update(r.stock)
    out.update(r.discard)
    for m in r.melds:
        out.update(m.shape.cards)
    return out


def seat_to_move(state: GameState) -> int | None:
    """The seat whose turn it is, or ``None`` when no round is being played."""
    return state.round.turn if state.status == "active" and state.round is not None else None


__all__ = [
    "Event",
    "SeatSpec",
    "apply",
    "apply_all",
    "cards_in_play",
    "legal_moves",
    "new_game",
    "seat_to_move",
    "take_seat",
    "unavailable",
]
