"""Speed: a path's route remembered after its first match.

Why (the measurement): Werkzeug's state-machine matcher walks a path part by
part and tries each dynamic part through its regular expression, then sorts
the converter groups and converts each value: a few percent of a move's and
of `/healthz`'s instructions (valgrind; docs/performance.md, "What a move
costs", has the figures). A
game's path is matched again on every move, view and listing of that game,
and a static path on every request to it, with the same answer: the routes do
not change once the app serves.

`RememberingMatcher` keeps, per ``(domain, path, method, websocket)``, the
matched rule and its converted values; a remembered match hands out a copy of
the values (Flask's URL value preprocessors may change them). Only matches are
kept: a path that fails (404, 405, a redirect) takes Werkzeug's way each time,
with its exception. At most `KEPT` paths per process, then emptied; adding a
rule empties it too.

The one seam: `ServiceMap`, the URL map class of `ServiceFlask`. It replaces
`werkzeug.routing.Map`'s matcher (its private ``_matcher``), so a Werkzeug
release that renames it fails `tests/api/test_routematch.py`.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from werkzeug.routing import Map, Rule
from werkzeug.routing.matcher import StateMachineMatcher

#: Paths remembered per process before the map is emptied (a path per game).
KEPT = 4096


class RememberingMatcher(StateMachineMatcher):
    """Werkzeug's matcher, with its matches kept by path."""

    def __init__(self, merge_slashes: bool) -> None:
        super().__init__(merge_slashes)
        self.kept: dict[tuple[str, str, str, bool], tuple[Rule, dict[str, Any]]] = {}

    def add(self, rule: Rule) -> None:
        """Add `rule`, forgetting what was matched before it."""
        self.kept.clear()
        super().add(rule)

    def update(self) -> None:
        """Werkzeug's ordering of the rules, forgetting what was matched before."""
        self.kept.clear()
        super().update()

    def match(
        self, domain: str, path: str, method: str, websocket: bool
    ) -> tuple[Rule, MutableMapping[str, Any]]:
        """The rule and converted values for the path, as Werkzeug matches them."""
        kept = self.kept.get((domain, path, method, websocket))
        if kept is not None:
            return kept[0], kept[1].copy()
        found = _werkzeug_match(self, domain, path, method, websocket)
        if len(self.kept) >= KEPT:
            self.kept.clear()
        self.kept[domain, path, method, websocket] = (found[0], dict(found[1]))
        return found


#: Werkzeug's own match, called without `super()`'s lookup.
_werkzeug_match = StateMachineMatcher.match


class ServiceMap(Map):
    """`werkzeug.routing.Map` whose matcher is a `RememberingMatcher`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        matcher = RememberingMatcher(self.merge_slashes)
        for rule in self._rules:  # any given to the constructor
            matcher.add(rule)
        self._matcher = matcher
