"""Bot-seconds per client (service/bots/allowance.py): a token bucket per owner."""

from __future__ import annotations

import pytest

from service.bots import allowance
from service.bots.allowance import BotAllowance


def test_a_client_plays_its_burst_then_what_refills_and_is_charged_what_it_spent() -> None:
    now = [0.0]
    budget = BotAllowance(per_minute=6.0, burst=0.25, clock=lambda: now[0])  # 0.1 s a second
    assert budget.take("a", 0.25) == 0.25
    budget.give_back("a", 0.25, 0.05)  # used 0.05 of it: 0.2 back
    assert abs(budget.left("a") - 0.2) < 1e-9
    granted = budget.take("a", 0.25)
    budget.give_back("a", granted, 0.3)  # a decision ran past the end: in debt
    assert budget.left("a") < 0 and budget.take("a", 0.25) == 0
    now[0] += 2.0  # 0.2 s refilled: the debt of 0.1 paid, 0.1 left
    assert abs(budget.take("a", 0.25) - 0.1) < 1e-9
    now[0] += 3600
    assert budget.left("a") == 0.25  # never more than the burst


def test_concurrent_requests_of_one_client_share_its_budget_and_others_have_their_own() -> None:
    budget = BotAllowance(per_minute=6.0, burst=0.25, clock=lambda: 0.0)
    assert [budget.take("a", 0.25) for _ in range(3)] == [0.25, 0.0, 0.0]  # taken up front
    assert budget.take("b", 0.25) == 0.25


def test_the_buckets_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allowance, "MOST_OWNERS", 8)
    now = [0.0]
    budget = BotAllowance(per_minute=60.0, burst=1.0, clock=lambda: now[0])
    for i in range(8):
        budget.take(f"o{i}", 1.0)
    now[0] += 0.5  # all half full
    assert budget.take("new", 1.0) == 1.0  # one too many, none full: all forgotten
    assert len(budget._buckets) == 1 and budget.left("new") == 0.0
    assert budget.left("o1") == 1.0
