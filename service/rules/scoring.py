"""Round scoring and end-of-game decisions (docs/rules.md §5-§6), as pure functions.

Decisions the rules page leaves open (see docs/rules.md):

- ``lowest_takes_difference``: players tied for lowest split the total, rounded
  down; the remainder is lost.
- ``express``: when nobody went out the lowest hand wins; a tie goes to the player
  whose move ended the round if tied, otherwise to the tied player who comes first
  in play order from the round's first player.
- ``target``/``rounds``/``elimination``: ties for the win are shared.
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
    low = min(values[i] for i in players)
    tied = [i for i in players if values[i] == low]
    if len(tied) == 1:
        return (tied[0],)
    if ender in tied:
        return (ender,)
    n = len(hands)
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
) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """After a round of an ``elimination`` game: the seats newly eliminated, and the
    winners if the game is over (one seat left; or none left, then the lowest total
    among those eliminated in this round, ties shared)."""
    target = options.target_for(players)
    newly = tuple(
        i for i in range(len(scores)) if dealt[i] and not eliminated[i] and scores[i] >= target
    )
    remaining = [i for i in range(len(scores)) if not eliminated[i] and i not in newly]
    if len(remaining) == 1:
        return newly, (remaining[0],)
    if not remaining:
        return newly, best_seats(scores, newly, penalty=True)
    return newly, None
