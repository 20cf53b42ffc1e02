"""The event vocabulary: every `type` of event a game records, and what it means.

Events are what a client following a game sees (`GET /games/{id}/events`);
the engine emits them, the API documents this list as the closed enum of an
event's `type`, and docs/api.md explains each.
"""

from __future__ import annotations

from collections.abc import Mapping

EVENTS: Mapping[str, str] = {
    "game_created": "the game was created (its preset and seats)",
    "seat_taken": "an open seat was taken",
    "seat_left": "a seat's player left: the seat is open again (waiting game) or played "
    "by a bot (game being played)",
    "seat_away": "a seat timed out too often: the server plays its turns until its player is back",
    "seat_back": "an away seat's player is back",
    "round_started": "a round was dealt: dealer, first player, up card, hand sizes "
    "(the viewer's own hand only)",
    "drew": "a seat drew; the card is shown only to the drawer when it came from the stock",
    "melded": "a seat put a new meld on the table",
    "laid_off": "a seat added cards to a meld on the table",
    "joker_swapped": "a seat gave a card for the joker standing for it in a meld",
    "discarded": "a seat discarded a card, ending the turn",
    "stock_refilled": "the discard pile became the new stock",
    "went_out": "a seat's last card left its hand",
    "round_ended": "the round is over: why, who won, the points and every hand",
    "seat_eliminated": "a seat's total reached the target (elimination)",
    "reengaged": "an eliminated seat chose to come back at the next deal",
    "seat_rejoined": "a re-engaged seat is dealt in again, with its new total",
    "game_ended": "the game is over: the winners and the totals",
}
