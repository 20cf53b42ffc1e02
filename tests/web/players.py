"""A person at the table, played through the page's buttons only (Playwright)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}
#: How long a selected card may take to enable "Discard selected" before the next
#: card is tried (a card the rules forbid to discard never does).
DISCARD_WAIT_MS = 3_000


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
    """Plays turns on one page: draw, every meld and lay-off offered, then a discard."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.hand = page.locator(".hand-cards .card")

    def status(self) -> str:
        """The status line ("Your turn: …", "Waiting for …"), or "" without one."""
        # Read at once, without waiting: between a count and a read the table may
        # re-render (the round or the game ending) and the line be gone for good.
        texts = self.page.locator(".hand .status").all_inner_texts()
        return texts[0] if texts else ""

    def is_my_turn(self) -> bool:
        return self.status().startswith("Your turn")

    def game_over(self) -> bool:
        return self.page.locator(".game-over").count() > 0

    def cards(self) -> list[str]:
        return [self.hand.nth(i).get_attribute("data-card") or "" for i in range(self.hand.count())]

    def play_turn(self) -> None:
        """One whole turn by clicks; returns when the turn has passed or the game ended."""
        page = self.page
        draw = page.get_by_role("button", name="Draw from stock")
        expect(draw).to_be_enabled()
        draw.click()
        # A draw from an empty stock past the game's `max_refills` ends the round.
        page.wait_for_function(
            "() => (document.querySelector('.hand .status')?.textContent ?? '')"
            ".includes('then discard') || document.querySelector('.game-over') !== null"
        )
        if self.game_over():
            return
        self._meld_and_lay_off()
        if self.game_over():
            return
        self._discard()

    def _meld_and_lay_off(self) -> None:
        page = self.page
        for _ in range(12):
            if self.game_over() or not self.is_my_turn():
                return
            meld = page.locator(".meld-suggestion").first
            layoff = page.locator(".layoff-suggestion").first
            if meld.count():
                meld.click()
                button = page.get_by_role("button", name="Meld selected")
            elif layoff.count():
                layoff.click()
                button = page.get_by_role("button", name="Lay off here").first
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

    def _discard(self) -> None:
        page = self.page
        cards = self.cards()
        discard = page.get_by_role("button", name="Discard selected")
        for card in sorted(set(cards), key=lambda c: keep_score(c, cards)):
            button = page.locator(f'.hand-cards .card[data-card="{card}"]').first
            button.click()
            # Waited for, not read at once: the hand can show a move's result (pushed
            # by the game's stream) before the page has the move's own answer, and
            # until then every button of the hand stays disabled.
            try:
                expect(discard).to_be_enabled(timeout=DISCARD_WAIT_MS)
            except AssertionError:
                button.click()  # not this one: unselect
                continue
            discard.click()
            page.wait_for_function(
                "() => !(document.querySelector('.hand .status')?.textContent ?? '')"
                ".includes('then discard')"
            )
            return
        raise AssertionError(f"no card of {cards} could be discarded")
