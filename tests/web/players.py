"""A person at the table, played through the page's buttons only (Playwright)."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import expect

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}
#: How long a clicked card may take to show as selected (or unselected).
SELECT_WAIT_MS = 3_000
#: How long the discard step may take before the page's state is reported as a failure.
DISCARD_SECONDS = 60


def rank(card: str) -> int:
    """A=1 … K=13 from a card code such as ``"H10"``."""
    text = card[1:]
    return RANKS.get(text) or int(text)


def keep_score(card: str, hand: list[str]) -> int:
    """How much a card is worth keeping: partners for a set or a run, minus its points."""
    partners = sum(
        1
        for other in hand
        if other != card
        and (
            rank(other) == rank(card)
            or (other[0] == card[0] and abs(rank(other) - rank(card)) <= 2)
        )
    )
    return partners * 20 - min(rank(card), 10)


class TablePlayer:
    """Plays turns on one page: draw, every meld and lay-off offered, then a discard.

    The page is read by its data attributes (the status line's ``data-turn``, the
    buttons' ``data-action``), so the player plays in whichever language the page speaks.
    """

    def __init__(self, page: Any) -> None:
        self.page = page
        self.hand = page.locator(".hand-cards .card")

    def status(self) -> str:
        """The status line ("Your turn: …", "Waiting for …"), or "" without one."""
        # Read at once, without waiting: between a count and a read the table may
        # re-render (the round or the game ending) and the line be gone for good.
        texts = self.page.locator(".hand .status").all_inner_texts()
        return texts[0] if texts else ""

    def turn(self) -> str:
        """The status line's ``data-turn``: "draw", "play" or "wait" ("" without one)."""
        turns = self.page.locator(".hand .status").evaluate_all(
            "els => els.map(e => e.dataset.turn ?? '')"
        )
        return turns[0] if turns else ""

    def is_my_turn(self) -> bool:
        return self.turn() in ("draw", "play")

    def game_over(self) -> bool:
        return self.page.locator(".game-over").count() > 0

    def cards(self) -> list[str]:
        return [self.hand.nth(i).get_attribute("data-card") or "" for i in range(self.hand.count())]

    def play_turn(self) -> None:
        """One whole turn by clicks; returns when the turn has passed or the game ended.

        A step that fails reports the page's state and the service's legal moves.
        """
        try:
            self._play_turn()
        except Exception as failure:
            try:
                state = self.describe()
            except Exception as unreadable:  # the page itself is gone
                state = f"(the page's state could not be read: {unreadable})"
            raise AssertionError(f"{failure}\n{state}") from failure

    def _play_turn(self) -> None:
        self.draw_from_stock()
        if self.game_over() or self.turn() != "play":
            return  # the draw ended the round (a new one is dealt) or the game
        self.finish_turn()

    def draw_from_stock(self) -> None:
        """Draw from the stock; returns in the play phase (or at the game's end)."""
        page = self.page
        draw = page.locator("button[data-action=draw-stock]")
        expect(draw).to_be_enabled()
        dealt = page.locator("main.game").get_attribute("data-round")
        draw.click()
        # A draw from an empty stock that may not be refilled ends the round (and the next is
        # dealt), or the game.
        page.wait_for_function(
            """round => document.querySelector('.hand .status')?.dataset.turn === 'play'
                || document.querySelector('.game-over') !== null
                || document.querySelector('main.game')?.dataset.round !== round""",
            arg=dealt,
        )

    def finish_turn(self) -> None:
        """After the draw: every meld and lay-off offered, then a discard."""
        self._meld_and_lay_off()
        if self.game_over():
            return
        self._discard()

    def _meld_and_lay_off(self) -> None:
        page = self.page
        for _ in range(12):
            self.wait_idle()
            if self.game_over() or self.turn() != "play":
                return  # the turn is over (or the round: a new one may start with this seat)
            meld = page.locator(".meld-suggestion").first
            layoff = page.locator(".layoff-suggestion").first
            if meld.count():
                meld.click()
                button = page.locator("button[data-action=meld]")
            elif layoff.count():
                layoff.click()
                button = page.locator("button[data-action=layoff]").first
            else:
                return
            expect(button).to_be_enabled()
            before = len(self.cards())
            button.click()
            page.wait_for_function(
                "n => document.querySelectorAll('.hand-cards .card').length !== n"
                " || document.querySelector('.game-over') !== null",
                arg=before,
            )

    def selected(self) -> list[str]:
        return [
            c.get_attribute("data-card") or ""
            for c in self.page.locator(".hand-cards .card.selected").all()
        ]

    def wait_idle(self) -> None:
        """Until no move of this page is in flight (the hand's ``aria-busy``)."""
        self.page.wait_for_function(
            "() => document.querySelector('.hand')?.getAttribute('aria-busy') !== 'true'"
        )

    def _discard(self) -> None:
        """Discard the card least worth keeping that the page lets go.

        The page's own state decides, never a guess: the hand is waited on until no move
        is in flight, a click is followed until the card shows as selected (a hand
        re-rendered by the game's stream clears the selection), and a card the rules keep
        is unselected again until it shows as unselected.
        """
        page = self.page
        discard = page.locator("button[data-action=discard]")
        deadline = time.monotonic() + DISCARD_SECONDS
        while time.monotonic() < deadline:
            if self.game_over() or self.turn() != "play":
                return  # the turn is over (or the round, the next dealt)
            self.wait_idle()
            cards = self.cards()
            for card in self.selected():
                self._toggle(card, selected=False)
            for card in sorted(set(cards), key=lambda c: keep_score(c, cards)):
                if not self._toggle(card, selected=True):
                    break  # the hand changed under the click: look again
                if discard.is_enabled():
                    discard.click()
                    page.wait_for_function(
                        "() => document.querySelector('.hand .status')?.dataset.turn !== 'play'"
                    )
                    return
                if not self._toggle(card, selected=False):
                    break
        raise AssertionError("no card could be discarded")

    def _toggle(self, card: str, *, selected: bool) -> bool:
        """Click `card` until it shows as (un)selected; False if the hand changed meanwhile."""
        button = self.page.locator(f'.hand-cards .card[data-card="{card}"]').first
        if button.count() == 0:
            return False
        button.click()
        marked = self.page.locator(f'.hand-cards .card.selected[data-card="{card}"]')
        try:
            expect(marked).to_have_count(1 if selected else 0, timeout=SELECT_WAIT_MS)
        except AssertionError:
            return False
        return True

    def describe(self) -> str:
        """The page's state and the service's legal moves for this seat, for a failure."""
        page = self.page
        legal = page.evaluate(
            """async () => {
                const id = location.hash.split('/').pop();
                const seat = JSON.parse(localStorage.getItem('rummy.seat.' + id) ?? 'null');
                if (seat === null) return 'no seat';
                const answer = await fetch('/games/' + id + '/legal-moves',
                    {headers: {Authorization: 'Bearer ' + seat.token}});
                return answer.status + ' ' + (await answer.text());
            }"""
        )
        alerts = page.locator("[role=alert]").all_inner_texts()
        busy = page.locator(".hand").get_attribute("aria-busy")
        return (
            f"status {self.status()!r}, hand {self.cards()}, selected {self.selected()}, "
            f"busy {busy}, alerts {alerts}, legal moves {legal}"
        )
