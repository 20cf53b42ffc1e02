"""Round scoring and end-of-game decisions (docs/rules.md §5-§6), as pure functions.

Decisions the rules page leaves open (see docs/rules.md):

- ``lowest_takes_difference``: players tied for lowest split the total, rounded
  down; the remainder is lost.
- ``express``: when nobody went out the lowest hand wins; a tie goes to the player
  whose move ended the round if tied, otherwise to the tied player who comes first
  in play order from the round's first player.
- ``elimination``: when every player still in reaches the target in the same
  round, the lowest total wins; a tie there goes, as in ``express``, to the player
  whose move ended the round, then to the tied player who comes first in play
  order from the round's first player.
- ``target``/``rounds``: ties for the win are shared.
- Stakes: the winners share the pot equally; what does not divide goes to the
  first winner in seat order.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.rules.cards import Card, hand_points
from service.rules.options import Options


def hand_values(options: Options, hands: Sequence[Sequence[Card]]) -> tuple[int, ...]:
    """The points of each hand under the game's ``ace_points`` and ``joker_points``."""
    return tuple(hand_points(h, options.ace_points, options.joker_points) for h in hands)


def round_points(
    options: Options,
    hands: Sequence[Sequence[Card]],
    dealt: Sequence[bool],
    winner: int | None,
    rummy: bool,
) -> tuple[int, ...]:
    """Points each seat scores for a finished round (zero for seats not dealt in).

    ``winner`` is the seat that went out, or ``None`` when nobody did (then
    ``no_winner`` decides). ``rummy`` is whether the winner went rummy.
    """
    values = hand_values(options, hands)
    n = len(hands)
    out = [0] * n
    if winner is not None:
        double = rummy and options.rummy_bonus == "double"
        plus10 = rummy and options.rummy_bonus == "plus10"
        if options.scoring == "winner_takes_all":
            total = sum(values[i] for i in range(n) if dealt[i] and i != winner)
            if double:
                total *= 2
            if plus10:
                total += 10
            out[winner] = total
        else:
            for i in range(n):
                if dealt[i] and i != winner:
                    out[i] = values[i] * (2 if double else 1) + (10 if plus10 else 0)
        return tuple(out)
    if options.no_winner == "void":
        return tuple(out)
    players = [i for i in range(n) if dealt[i]]
    if options.no_winner == "count":
        for i in players:
            out[i] = values[i]
        return tuple(out)
    low = min(values[i] for i in players)
    lows = [i for i in players if values[i] == low]
    total = sum(values[i] - low for i in players)
    for i in lows:
        out[i] = total // len(lows)
    return tuple(out)


def best_seats(scores: Sequence[int], candidates: Sequence[int], penalty: bool) -> tuple[int, ...]:
    """The candidates with the best total (lowest under penalty scoring), ties shared."""
    pick = min if penalty else max
    best = pick(scores[i] for i in candidates)
    return tuple(i for i in candidates if scores[i] == best)


def express_winner(
    options: Options,
    hands: Sequence[Sequence[Card]],
    dealt: Sequence[bool],
    winner: int | None,
    ender: int,
    first: int,
) -> tuple[int, ...]:
    """The winner of an ``express`` game after its one round."""
    if winner is not None:
        return (winner,)
    values = hand_values(options, hands)
    players = [i for i in range(len(hands)) if dealt[i]]
    return lowest_with_tie_break(values, players, ender, first)


def lowest_with_tie_break(
    values: Sequence[int], candidates: Sequence[int], ender: int, first: int
) -> tuple[int, ...]:
    """The one candidate with the lowest value; a tie goes to ``ender`` (whose move
    ended the round), then to the tied candidate first in play order from ``first``
    (the "hand": who played first that round)."""
    low = min(values[i] for i in candidates)
    tied = [i for i in candidates if values[i] == low]
    if len(tied) == 1:
        return (tied[0],)
    if ender in tied:
        return (ender,)
    n = len(values)
    order = [(first + k) % n for k in range(n)]
    return (next(i for i in order if i in tied),)


def game_winners(
    options: Options,
    scores: Sequence[int],
    rounds_played: int,
    players: int,
) -> tuple[int, ...] | None:
    """Winners when a ``target`` or ``rounds`` game is over after a round, else ``None``."""
    penalty = options.scoring == "penalty"
    everyone = list(range(len(scores)))
    if options.end == "target":
        if max(scores) >= options.target_for(players):
            return best_seats(scores, everyone, penalty)
        return None
    if options.end == "rounds":
        if options.rounds is not None and rounds_played >= options.rounds:
            return best_seats(scores, everyone, penalty)
        return None
    raise ValueError(f"game_winners does not decide end {options.end!r}")


def elimination_result(
    options: Options,
    scores: Sequence[int],
    eliminated: Sequence[bool],
    dealt: Sequence[bool],
    players: int,
    ender: int,
    first: int,
    may_reengage: Sequence[bool],
) -> tuple[tuple[int, ...], tuple[int, ...] | None, tuple[int, ...]]:
    """After a round of an ``elimination`` game: the seats newly eliminated, the
    winners if the game is over, and the newly eliminated seats that are to decide
    whether to re-engage (``may_reengage``: per seat, whether its re-engagements
    last) before the next deal.

    With nobody left in, the lowest total among those eliminated in this round
    wins (`lowest_with_tie_break`) and no re-engage is offered. With players left
    in, the seats that may re-engage decide first; else one seat left wins.
    """
    target = options.target_for(players)
    newly = tuple(
        i for i in range(len(scores)) if dealt[i] and not eliminated[i] and scores[i] >= target
    )
    remaining = [i for i in range(len(scores)) if not eliminated[i] and i not in newly]
    if not remaining:
        return newly, lowest_with_tie_break(scores, newly, ender, first), ()
    deciding = tuple(i for i in newly if options.reengage and may_reengage[i])
    if deciding:
        return newly, None, deciding
    if len(remaining) == 1:
        return newly, (remaining[0],), ()
    return newly, None, ()


def pot_shares(pot: int, winners: Sequence[int], players: int) -> tuple[int, ...]:
    """The chips each seat takes out of ``pot``: equal shares for the winners, what
    does not divide to the first winner in seat order."""
    out = [0] * players
    if not winners:
        return tuple(out)
    share, rest = divmod(pot, len(winners))
    for i in winners:
        out[i] = share
    out[min(winners)] += rest
    return tuple(out)
