"""The runner, the worker process: it advances games when the server owes them moves.

A request plays bot turns within a small budget (`service.bots.play`); a game
whose bots are still to move when it runs out is saved as it stands and, in
the same save, put in the store's queue of due games (`Due(at, reason)`: a
sorted set in Redis, scored by the time it is due). The runner takes due games
from that queue and advances each one:

    claim (a lease) → load → what is due (bots) → compare-and-set save,
    queued again in the same save if more is still due

Several runners may share one store: a claim moves the game's entry to the
end of a lease, so no other runner takes it meanwhile, and every advance is a
compare-and-set on the game's version, so a game moved by anyone else in the
meantime is loaded again, never overwritten. A runner that dies leaves its
claims due again when their leases end; one whose store fails under it gives
its claims back at once (`GameStore.release_due`), as soon as the store answers.

The queue is generic: an entry is a due time, a reason and an owner (the
client whose request queued it). The reasons are ``"bots"`` (due at once),
``"clock"`` (a turn's deadline) and ``"rematch"`` (when a rematch's held seats
open, service/games/rematch.py); `next_due` says what a state is waiting for,
`advance` does it. Fairness: each claim takes the due clocks first (an advance
of one plays only the timeout) and one bot game, of the owner a claim served
least recently (`GameStore.claim_due`); a bot game's advance is one slice of
bot play (``RUNNER_BOT_SECONDS``). So a clock falls due and waits at most one
slice, and one owner's many bot games delay another owner's by one slice each
time round.

How it runs:

- with Redis, as its own process: ``python -m service.worker`` (the Procfile's
  ``worker:``; as many as wanted, on any host that reaches the store);
- with the memory store (one process), as a thread of the web process, woken
  by each save that queues a game (`InProcessRunner`).

Settings (environment, see `service.config.Config`): ``RUNNER_BATCH`` due
clocks claimed at once (with one bot game), ``RUNNER_LEASE`` seconds a claim
lasts, ``RUNNER_IDLE`` seconds between two looks at an empty queue, the bot
budget of one advance (a slice)
``RUNNER_BOT_MOVES`` / ``RUNNER_BOT_SECONDS``, and ``RUNNER_REPAIR_SECONDS``
between two repairs of the queue (`GameStore.repair_due_queue`: in a Redis
Cluster a save writes the queue in a second step, which can be missed).
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from service.bots.play import Budget
from service.config import Config
from service.games import clock
from service.games.due import BOTS, CLOCK, next_due
from service.games.errors import Busy
from service.games.matching import Matcher, MatchSettings
from service.games.rematch import open_lapsed
from service.games.transact import Context, transact
from service.games.values import Change, LoadedGame
from service.store.base import DueClaim, GameStore
from service.store.errors import GameNotFound, StoreUnavailable
from service.store.factory import open_store
from service.store.memory import MemoryStore
from service.store.tickets import MemoryTickets, open_tickets

_log = logging.getLogger(__name__)

__all__ = ["BOTS", "CLOCK", "InProcessRunner", "Runner", "RunnerSettings", "main", "next_due"]


#: One advance's default bot budget (a game needing more is queued again, so
#: that the games due at once take turns).
RUNNER_BUDGET = Budget(moves=Config.RUNNER_BOT_MOVES, seconds=Config.RUNNER_BOT_SECONDS)


@dataclass(frozen=True)
class RunnerSettings:
    """How a runner works (see the module docstring for the settings' names)."""

    #: Due turn clocks claimed at once (with one bot game).
    batch: int = Config.RUNNER_BATCH
    lease: float = Config.RUNNER_LEASE
    idle: float = Config.RUNNER_IDLE
    budget: Budget = RUNNER_BUDGET
    retries: int = Config.SAVE_RETRIES
    #: Seconds between two repairs of the queue (`GameStore.repair_due_queue`),
    #: the first at start; 0: never.
    repair_every: float = Config.RUNNER_REPAIR_SECONDS


class Runner:
    """Claims due games from ``store`` and advances them (see the module docstring)."""

    def __init__(
        self,
        store: GameStore,
        settings: RunnerSettings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        matcher: Matcher | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or RunnerSettings()
        self.clock = clock
        #: Makes quick-play games of queued tickets on each pass (`run_once`).
        self.matcher = matcher
        #: How this runner writes games: its store, retries and bot budget.
        self.context = Context(
            store, self.settings.retries, self.settings.budget, clock=lambda: self.clock()
        )
        #: Advances that saved a change (for tests and the log).
        self.advanced = 0
        #: Claims given up after a store error (for tests and the log).
        self.released = 0
        #: Claims a store error left held, released first thing next time.
        self._held: list[DueClaim] = []

    def run_once(self) -> int:
        """Claim the due turn clocks (up to ``batch``) and one bot game, and advance
        them in that order; how many were claimed.

        One bot game a claim: each advance of one is a slice (the bot budget),
        so a clock that falls due meanwhile waits at most one slice, and the
        next claim takes another owner's game if one is due (`GameStore.claim_due`).
        On a store error the claims not yet done are released at once
        (`GameStore.release_due`), or at the next call if the store still fails,
        so a Redis hiccup does not stall them for the lease. Then one pass of
        the quick-play matcher, if it has one (its completed matches count too)."""
        self._release_held()
        settings = self.settings
        claims = self.store.claim_due(
            self.clock(), settings.batch, settings.lease, first=CLOCK, others=1
        )
        held = list(claims)
        try:
            while held:
                try:
                    self.advance(held[0])
                except StoreUnavailable:
                    raise
                except Exception:  # one broken game must not stop the others
                    _log.exception("advancing game %s failed", held[0].game_id)
                del held[0]
        except StoreUnavailable:
            # The one being advanced too: had its save been made, its entry changed
            # and releasing it changes nothing.
            self._held.extend(held)
            self._release_held(raising=False)
            raise
        matched = self.matcher.run_once() if self.matcher is not None else 0
        return len(claims) + matched

    def _release_held(self, raising: bool = True) -> None:
        """Release the claims a store error left held (kept to try again if the
        store still fails: raised, unless not ``raising``)."""
        if not self._held:
            return
        try:
            released = self.store.release_due(self._held)
        except StoreUnavailable:
            if raising:
                raise
            return
        _log.warning(
            "runner: released %d of %d claims after a store error", released, len(self._held)
        )
        self.released += released
        self._held = []

    def advance(self, claim: DueClaim) -> str:
        """Do what the claimed game waits for; the outcome: ``saved``, ``idle``
        (nothing was due), ``gone`` (no such game) or ``busy`` (lost every race;
        the claim's lease runs out and it is tried again).

        One `service.games.transact` (its step: the timeout, or nothing and the
        bots play; a stale save is loaded and done again there)."""
        idle = ""  # why the last attempt wrote nothing: "drop" or "later"

        def step(game: LoadedGame, _seat: int | None) -> Change | None:
            nonlocal idle
            now = self.clock()
            due = next_due(game.state, now)
            if due is None:
                idle = "drop"
                return None
            if due.at > now:
                idle = "later"  # a later save queued it again, for then
                return None
            opened = open_lapsed(game.state, int(now * 1000))
            if opened is not game.state:
                # A rematch's held seats open: the save lists the game's open seats.
                return Change(opened, [])
            timed_out = clock.time_out(game.state, int(now * 1000))
            if timed_out is not None:
                # The only writer of timeouts: this save is a compare-and-set on
                # the version read, so no other runner applies the same one. A
                # timeout is all it does: bots that move next are queued, so a
                # clock costs no slice of bot play (clocks are claimed first).
                return Change(*timed_out, timed_out=True)
            return Change(game.state, [])

        try:
            transact(self.context, claim.game_id, step, owner=lambda: claim.owner)
        except GameNotFound:
            self.store.drop_due(claim)
            return "gone"
        except Busy:
            return "busy"
        if idle:
            if idle == "drop":
                self.store.drop_due(claim)
            return "idle"
        self.advanced += 1
        return "saved"

    def run(self, stop: threading.Event) -> None:
        """Advance due games until ``stop`` is set; waits ``idle`` s when none is due.
        Repairs the queue at start and every ``repair_every`` s (a game whose
        entry a save could not write would otherwise never be advanced).

        A store outage is logged and waited out."""
        repair_at = 0.0  # `time.monotonic()` of the next repair
        while not stop.is_set():
            every = self.settings.repair_every
            if every > 0 and time.monotonic() >= repair_at:
                repair_at = time.monotonic() + every
                try:
                    self.store.repair_due_queue()
                except StoreUnavailable as exc:
                    _log.warning("runner: queue repair failed: %s", exc)
            try:
                claimed = self.run_once()
            except StoreUnavailable as exc:
                _log.warning("runner: store unavailable: %s", exc)
                claimed = 0
            if claimed == 0:
                stop.wait(self.settings.idle)


class InProcessRunner:
    """The runner as a thread of the web process, for the memory store.

    It sleeps until a save queues a game (the store's ``due_listener``), or
    until the earliest queued game is due. The thread is started by the first
    wake-up in this process (a gunicorn worker forked after start-up has its own).
    """

    def __init__(self, store: MemoryStore, runner: Runner) -> None:
        self.store = store
        self.runner = runner
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0
        store.due_listener = self.wake
        tickets = runner.matcher.tickets if runner.matcher is not None else None
        if isinstance(tickets, MemoryTickets):
            tickets.listener = self.wake

    def wake(self) -> None:
        """Something was queued: start the thread if needed and let it look
        (not once stopped: a stopped runner stays stopped)."""
        if self._stop.is_set():
            return
        if self._thread is None or self._pid != os.getpid():
            with self._lock:
                if self._stop.is_set():
                    return
                if self._thread is None or self._pid != os.getpid():
                    self._pid = os.getpid()
                    self._thread = threading.Thread(
                        target=self._loop, name="rummy-runner", daemon=True
                    )
                    self._thread.start()
        self._wake.set()

    def stop(self, timeout: float | None = None) -> bool:
        """End the thread after its current game, for good (a later wake-up
        starts none); whether it ended within ``timeout`` s (``None``: waits)."""
        with self._lock:
            self._stop.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _loop(self) -> None:
        runner = self.runner
        while True:
            self._wake.clear()
            # Looked at after clearing: a `stop` (which sets both) is never missed.
            if self._stop.is_set():
                return
            try:
                claimed = runner.run_once()
            except Exception:  # pragma: no cover - the memory store does not fail
                _log.exception("in-process runner failed")
                claimed = 0
            if claimed:
                continue
            due = self.store.next_due()
            wait = runner.settings.lease if due is None else due - runner.clock()
            tickets = runner.matcher.tickets if runner.matcher is not None else None
            if isinstance(tickets, MemoryTickets) and tickets.waiting():
                # Queued tickets: look again soon (a bot fill falls due with time).
                wait = min(wait, runner.settings.idle)
            if wait > 0:
                self._wake.wait(min(wait, runner.settings.lease))


def settings_from(config: Any) -> RunnerSettings:
    """The runner's settings from a `service.config.Config` (or a Flask config mapping)."""

    def get(name: str) -> Any:
        return config[name] if isinstance(config, dict) else getattr(config, name)

    return RunnerSettings(
        batch=int(get("RUNNER_BATCH")),
        lease=float(get("RUNNER_LEASE")),
        idle=float(get("RUNNER_IDLE")),
        budget=Budget(moves=int(get("RUNNER_BOT_MOVES")), seconds=float(get("RUNNER_BOT_SECONDS"))),
        retries=int(get("SAVE_RETRIES")),
        repair_every=float(get("RUNNER_REPAIR_SECONDS")),
    )


def matcher_for(store: GameStore, config: Any) -> Matcher:
    """The quick-play matcher of ``store`` with the settings of a `Config` (or a
    Flask config mapping): its ticket queue, bot fill, bot and lease."""

    def get(name: str) -> Any:
        return config[name] if isinstance(config, dict) else getattr(config, name)

    settings = MatchSettings(
        bot_fill=float(get("QUEUE_BOT_FILL_SECONDS")),
        bot=str(get("QUEUE_BOT")),
        lease=float(get("QUEUE_MATCH_LEASE")),
    )
    return Matcher(store, open_tickets(store, float(get("QUEUE_TICKET_TTL"))), settings)


def main(argv: Sequence[str] | None = None) -> None:
    """The worker process: advance due games of ``STORE_URL`` until SIGTERM or SIGINT."""
    from service.config import store_settings

    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO").upper(), format="%(message)s")
    config = Config.from_env()
    # The web process's store settings (lifetimes, password, ...); one plain
    # connection at a time (no gevent here, nothing to pipeline).
    settings = {**store_settings(config.flask_settings()), "pipelining": False}
    store = open_store(config.STORE_URL, **settings)
    if isinstance(store, MemoryStore):
        raise SystemExit(
            "the runner process needs a shared store (STORE_URL=redis://...); with "
            "memory:// the web process runs it as a thread"
        )
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Beside the web workers on one host: its store counts (finished games,
        # conflicts) are summed into their /metrics.
        from service.ops.store_metrics import instrument

        store = instrument(store)
    stop = threading.Event()

    def _stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    runner = Runner(store, settings_from(config), matcher=matcher_for(store, config))
    _log.info("runner: advancing due games of %s", store)
    try:
        runner.run(stop)
    finally:
        store.close()


if __name__ == "__main__":
    main()
