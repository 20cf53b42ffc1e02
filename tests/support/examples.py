"""Example counts of the property tests that follow the loaded Hypothesis profile."""

from __future__ import annotations

from hypothesis import settings

#: ``max_examples`` of the full suite's profiles (Hypothesis's default).
FULL_PROFILE_EXAMPLES = 100


def examples(full: int) -> int:
    """``full`` under the full suite's profiles; under the fast tier's (``max_examples``
    25) a quarter of it, at least 5."""
    return max(5, full * settings.default.max_examples // FULL_PROFILE_EXAMPLES)
