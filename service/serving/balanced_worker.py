"""gunicorn's gevent worker, balanced across the worker processes and fair inside one.

The stock `gevent` worker leaves three sources of tail latency on keep-alive
connections, all measured with the moves benchmark (docs/performance.md,
"Worker set-up"):

* **Balance.** Every worker accepts from the one listening socket, and
  whichever is on a CPU when a burst of connections arrives takes most of
  them: keep-alive connections split about three to one between two workers,
  and the busier worker answered its share at several times the latency of
  the other. Here every worker publishes how many connections it holds on a
  `ConnectionBoard` that all workers of a master share, and stops accepting
  while it holds more than `MARGIN` connections above the least busy other
  live worker, so that new connections go to the least busy ("least
  connections"). The least busy worker always accepts, and a worker that
  stops publishing (crashed or stuck) is ignored after `STALE_AFTER` seconds.
* **Fairness.** A worker yields after every request, through a timer rather
  than the event loop's callback queue (`gevent.sleep(0)`). A greenlet woken
  from that queue runs before the loop next polls its sockets, and the queue
  refills as fast as keep-alive requests finish: greenlets whose Redis reply
  had arrived waited behind other connections' whole requests, for tens of
  milliseconds.
  A timer wakes the greenlet after the next poll, in turn with the replies.
* **No admission limit.** Every request runs the app at once: a worker's store
  commands are pipelined (service/serving/pipelining.py), so the requests of a
  worker advance together, one write and one read of Redis per turn of the loop.

It also bounds how long a client may take to send a request, so that slow
senders cannot hold every connection slot of a worker (docs/security.md):
gunicorn's `keepalive` (`GUNICORN_KEEPALIVE`, 5 s) bounds the wait for a
request's headers, and `read_body_within` reads the whole body, up to
``MAX_CONTENT_LENGTH + 1`` bytes, before the app runs, within
``BODY_READ_TIMEOUT`` seconds (default
10); a client that takes longer is answered 408 and disconnected. A body
longer than the limit (chunked bodies included) is cut at one byte past it:
the app answers 413 and the connection is closed.

At the edges of HTTP (docs/security.md, "Requests"):

* **Send deadline.** gevent's sockets wait for ever by default: a client that
  pipelines requests (or holds a stream) and never reads held its connection
  and greenlet for good, its answers queued in the worker. Every write of an
  answer, a stream's included, must be taken within ``SEND_TIMEOUT`` seconds
  (the socket's timeout while the request is served; reading the next
  request keeps the ``keepalive`` bound); a client that does not read is
  dropped.
* **Requests per connection.** After ``MAX_REQUESTS_PER_CONNECTION``
  requests on one connection, keep-alive or pipelined, the answer says
  ``Connection: close`` and the connection closes.
* **Transfer-Encoding.** A request whose ``Transfer-Encoding`` is anything
  but one ``chunked`` (``identity, chunked``, ``gzip, chunked``…) is refused
  with 400 before its body is read: gunicorn reads such bodies as plain
  chunked, which a proxy in front may frame otherwise (request smuggling).
* **gunicorn's own error answers** (a malformed request line, 414, 431, a
  refused header, its 500) are RFC 9457 problems like the app's
  (`write_problem`, in place of gunicorn's HTML page: `init_process`).
"""

from __future__ import annotations

import io
import mmap
import os
import struct
import time
from functools import partial
from typing import Any, Final

import gevent
import gunicorn.util
import orjson
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn.http.body import LengthReader
from gunicorn.http.errors import InvalidHeader, UnsupportedTransferCoding
from gunicorn.sock import ssl_context
from gunicorn.workers.ggevent import GeventWorker

from service.config import Config
from service.http.problems import HTTP_CODES, PROBLEM_MIMETYPE, problem_document

#: Workers a board has room for: the master hands each worker it starts the
#: lowest slot no worker of its holds until that worker has exited.
SLOTS: Final = 256
#: A worker stops accepting while it holds more connections than this above
#: the least busy other worker.
MARGIN: Final = 1
#: Seconds between a worker's reports (and checks) when nothing else happens.
REPORT_EVERY: Final = 0.01
#: A worker not heard from for this many seconds is left out of the comparison.
STALE_AFTER: Final = 1.0
#: The yield after a request: a timer this short fires on the loop's next turn.
YIELD_SECONDS: Final = 1e-6

_RECORD: Final = struct.Struct("=qdq")  # pid, time of the report (monotonic), connections
#: The board's header: one past the highest slot a worker has reported in.
_IN_USE: Final = struct.Struct("=q")


class ConnectionBoard:
    """Connections held by each worker of one gunicorn master, in shared memory.

    The memory is an anonymous shared mapping: made in the master (this module
    is imported there, to resolve the worker class) before it forks the
    workers, it is the same memory in all of them. A record is written whole
    by one worker and read by the others without locks; a torn read is
    corrected by the next report, 10 ms later.

    A header holds one past the highest slot reported in (`in_use`), and a
    look reads only the slots below it: the master hands out the lowest free
    slots (`hand_out`), so as many as workers run at once, however many were
    restarted. Reading all the slots at each look (100 looks a second per
    worker) took a noticeable share of each worker's CPU (valgrind callgrind;
    docs/performance.md, "Worker set-up", has the figures). Two workers raising
    it at once may leave it at the lower slot: the other raises it again at its
    next report.
    """

    def __init__(self, slots: int = SLOTS) -> None:
        self.slots = slots
        self._memory = mmap.mmap(-1, _IN_USE.size + slots * _RECORD.size)
        self._records = memoryview(self._memory)[_IN_USE.size :]
        #: The master's own bookkeeping (not shared): slots of the workers it
        #: started and has not yet seen exit.
        self._handed: set[int] = set()

    def hand_out(self, age: int) -> int:
        """In the master, for a worker it is starting: the lowest slot not handed to
        a worker that has not exited (`give_back`). A slot is reused only once its
        worker has exited, so that a worker still finishing its requests never
        writes over its successor's record. With every slot held (or no
        `give_back`, as without the config's ``child_exit``), the worker's `age`
        (gunicorn numbers the workers it starts) modulo the slots."""
        for slot in range(self.slots):
            if slot not in self._handed:
                self._handed.add(slot)
                return slot
        return age % self.slots

    def give_back(self, slot: int) -> None:
        """In the master, once the worker holding `slot` has exited: empty it for the next."""
        self.withdraw(slot)
        self._handed.discard(slot)

    @property
    def in_use(self) -> int:
        """One past the highest slot a worker has reported in (the slots a look reads)."""
        used: int = _IN_USE.unpack_from(self._memory)[0]
        return min(max(used, 0), self.slots)

    def report(self, slot: int, connections: int, now: float) -> None:
        """Record that the worker in `slot` (this process) holds `connections`."""
        _RECORD.pack_into(self._records, slot * _RECORD.size, os.getpid(), now, connections)
        if slot >= self.in_use:
            _IN_USE.pack_into(self._memory, 0, slot + 1)

    def withdraw(self, slot: int) -> None:
        """Empty `slot` (its worker is leaving)."""
        _RECORD.pack_into(self._records, slot * _RECORD.size, 0, 0.0, 0)

    def fewest_elsewhere(self, slot: int, now: float) -> int | None:
        """The fewest connections a live worker other than `slot`'s holds (None: none live)."""
        fewest: int | None = None
        records = self._records[: self.in_use * _RECORD.size]
        for index, (pid, reported, connections) in enumerate(_RECORD.iter_unpack(records)):
            if pid == 0 or index == slot or now - reported > STALE_AFTER:
                continue
            if fewest is None or connections < fewest:
                fewest = connections
        return fewest


def should_accept(connections: int, fewest_elsewhere: int | None) -> bool:
    """Whether a worker holding `connections` should take new ones."""
    return fewest_elsewhere is None or connections <= fewest_elsewhere + MARGIN


#: Characters of gunicorn's message kept in a problem's `detail` (it may quote
#: the request line, up to 8 KB of what the client sent).
DETAIL_KEPT: Final = 200


def problem_answer(status: int, reason: str, code: str, detail: str) -> bytes:
    """A whole HTTP/1.1 answer carrying an RFC 9457 problem, after which the
    connection closes (the worker answers so only before or outside the app)."""
    body = orjson.dumps(problem_document(status, code, detail))
    return (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: {PROBLEM_MIMETYPE}\r\nX-Content-Type-Options: nosniff\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1") + body


def write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """`gunicorn.util.write_error`, answering a problem instead of an HTML page:
    the same status, the generic `code` of that status (`HTTP_CODES`), and
    gunicorn's message (cut) as the `detail`."""
    detail = mesg[:DETAIL_KEPT] if mesg else reason
    answer = problem_answer(status_int, reason, HTTP_CODES.get(status_int, "error"), detail)
    gunicorn.util.write_nonblock(sock, answer)


def chunked_only(req: Any) -> bool:
    """Whether gunicorn's request `req` has no ``Transfer-Encoding``, or exactly
    one whose value is ``chunked`` (any case, without other codings)."""
    codings = [value for name, value in req.headers if name == "TRANSFER-ENCODING"]
    return not codings or (len(codings) == 1 and codings[0].strip(" \t").lower() == "chunked")


#: The answer to a client too slow to send its body (then the connection closes).
BODY_TIMEOUT_ANSWER: Final = problem_answer(
    408, "Request Timeout", "body_timeout", "The request body did not arrive in time."
)


#: How much of a body past the limit is read and dropped before the 413.
DRAINED_PAST_LIMIT: Final = 1024 * 1024


def has_no_body(req: Any) -> bool:
    """Whether gunicorn's request `req` has no body to read (most GETs)."""
    reader = getattr(req.body, "reader", None)
    return isinstance(reader, LengthReader) and reader.length == 0


def read_body_within(req: Any, seconds: float, limit: int) -> bool:
    """Read the body of gunicorn's request `req` into memory within `seconds`,
    at most ``limit + 1`` bytes (one past the limit: enough for the app's 413).

    Returns False when the time ran out (the caller drops the connection).
    The rest of a body past the limit is read and dropped, up to
    `DRAINED_PAST_LIMIT` bytes within the same time, so that the client
    reads the 413 rather than a reset connection; the connection then closes.
    """
    if req.body is None or has_no_body(req):
        return True
    chunks: list[bytes] = []
    size = 0
    timer = gevent.Timeout(seconds)
    timer.start()
    try:
        while size <= limit:
            data = req.body.read(min(64 * 1024, limit + 1 - size))
            if not data:
                break
            chunks.append(data)
            size += len(data)
        if size > limit:
            req.must_close = True
            drained = 0
            while drained < DRAINED_PAST_LIMIT and (data := req.body.read(64 * 1024)):
                drained += len(data)
    except gevent.Timeout as expired:
        if expired is not timer:
            raise
        if size <= limit:
            return False
    finally:
        timer.close()
    req.body = io.BytesIO(b"".join(chunks))
    return True


#: The board of the master this module was imported in (inherited by its workers).
BOARD: Final = ConnectionBoard()


class BalancedGeventWorker(GeventWorker):  # type: ignore[misc]  # gunicorn is untyped
    """`gevent` worker that takes its share of connections and yields after each request."""

    wsgi: Any  # the app gunicorn loaded (set by `load_wsgi`)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slot: int = BOARD.hand_out(self.age)
        self.connections = 0
        #: The fewest connections of another live worker, as last read from the board.
        self.fewest_elsewhere: int | None = None
        self._servers: list[StreamServer] = []
        settings = Config.from_env()
        #: Seconds a client has to send a request's body (``BODY_READ_TIMEOUT``).
        self.body_timeout = settings.BODY_READ_TIMEOUT
        #: Largest body the app accepts (``MAX_CONTENT_LENGTH``).
        self.body_limit = settings.MAX_CONTENT_LENGTH
        #: Seconds a write of an answer may wait for the client (``SEND_TIMEOUT``).
        self.send_timeout = settings.SEND_TIMEOUT
        #: Requests served per connection before it closes (0: no bound).
        self.requests_per_connection = settings.MAX_REQUESTS_PER_CONNECTION

    def init_process(self) -> None:
        """gunicorn's `init_process` (gevent's patching, then the app), with gevent's
        greenlet-tree tracking off.

        Speed: each `gevent.Greenlet` records the stack that spawned it, line
        numbers and all, for debugging tools only; the store's pipelined
        connection spawns a writer and a reader greenlet per turn of the loop
        from a request's deep stack (service/serving/pipelining.py), and such a
        spawn takes about half as much again with the tracking as without
        (valgrind callgrind; docs/performance.md, "Worker set-up", has the
        figures).
        """
        gevent.config.track_greenlet_tree = False
        # gunicorn's `handle_error` writes its answer through this one function
        # (gunicorn 27); this process runs only this worker.
        gunicorn.util.write_error = write_problem
        super().init_process()

    @staticmethod
    def forget(worker: Any) -> None:
        """Empty an exited worker's slot at once and free it for the next worker
        (gunicorn's ``child_exit``, in the master): a dead worker holding few
        connections would otherwise hold the others back until its record went
        stale."""
        slot = getattr(worker, "slot", None)
        if isinstance(slot, int):
            BOARD.give_back(slot)

    def run(self) -> None:
        """`GeventWorker.run` (gunicorn 27), keeping its servers for `rebalance`."""
        ssl_args = {"ssl_context": ssl_context(self.cfg)} if self.cfg.is_ssl else {}
        for listener in self.sockets:
            listener.setblocking(1)
            server = StreamServer(
                listener,
                handle=partial(self.handle, listener),
                spawn=Pool(self.worker_connections),
                **ssl_args,
            )
            if self.cfg.workers > 1:
                server.max_accept = 1  # one at a time: let the other workers take some
            server.start()
            self._servers.append(server)
        reporter = gevent.spawn(self._report_until_stopped)
        while self.alive:
            self.notify()
            gevent.sleep(1.0)
        reporter.kill()
        servers, self._servers = self._servers, []
        BOARD.withdraw(self.slot)
        self._shut_down(servers)

    def _shut_down(self, servers: list[StreamServer]) -> None:
        """Stop accepting, then let requests in flight finish (gunicorn's own steps)."""
        try:
            for server in servers:
                server.close()
            started = time.time()
            while time.time() - started <= self.cfg.graceful_timeout:
                if all(server.pool.free_count() == server.pool.size for server in servers):
                    return
                self.notify()
                gevent.sleep(1.0)
            self.log.warning("Worker graceful timeout (pid:%s)", self.pid)
            for server in servers:
                server.stop(timeout=1)
        except Exception:  # as gunicorn: the worker is exiting anyway
            pass

    def _report_until_stopped(self) -> None:
        while self.alive:
            self.rebalance()
            gevent.sleep(REPORT_EVERY)

    def rebalance(self, look: bool = True) -> None:
        """Report this worker's connections, and accept new ones only while not ahead
        of the least busy other worker. `look`: read the board again (a scan of the
        slots in use: the periodic report looks; a connection opening or closing only
        reports and steers by what was read last, at most `REPORT_EVERY` s ago)."""
        if not self.alive:
            # Leaving (it no longer accepts): the others must not hold back for it.
            BOARD.withdraw(self.slot)
            return
        now = time.monotonic()
        BOARD.report(self.slot, self.connections, now)
        if look:
            self.fewest_elsewhere = BOARD.fewest_elsewhere(self.slot, now)
        accept = should_accept(self.connections, self.fewest_elsewhere)
        for server in self._servers:
            if not accept:
                server.stop_accepting()
            elif not server.full():  # a full pool restarts accepting itself when one frees
                server.start_accepting()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        """Serve one connection, counted on the board while it is open."""
        self.connections += 1
        self.rebalance(look=False)
        try:
            super().handle(listener, client, addr)
        finally:
            self.connections -= 1
            self.rebalance(look=False)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """gunicorn's answer to an error outside the app (a problem: `write_problem`),
        with every refused transfer coding answered alike: 400, as ``Transfer-Encoding``
        other than one ``chunked`` is (gunicorn answers an unknown coding 501)."""
        if isinstance(exc, UnsupportedTransferCoding):
            exc = InvalidHeader("TRANSFER-ENCODING", req=req)
        super().handle_error(req, client, addr, exc)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        """Serve one request whose ``Transfer-Encoding`` is none or ``chunked`` (else
        400) and whose body arrived in time (else 408), each write within
        ``SEND_TIMEOUT`` (else the connection is dropped); then let every
        connection that is ready run first."""
        if not chunked_only(req):
            # Answered by `handle_error` (the connection then closes), the body unread.
            raise InvalidHeader("TRANSFER-ENCODING", req=req)
        if not read_body_within(req, self.body_timeout, self.body_limit):
            with gevent.Timeout(1.0, False):
                sock.sendall(BODY_TIMEOUT_ANSWER)
            raise StopIteration  # gunicorn closes the connection
        if self.requests_per_connection and req.req_number >= self.requests_per_connection:
            req.must_close = True  # answered with ``Connection: close``, then closed
        # gevent's sendall honours the socket's timeout for the whole call.
        sock.settimeout(self.send_timeout)
        try:
            result = super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:
            self.log.info("Dropped %s: it read no answer for %s s", addr, self.send_timeout)
            raise StopIteration from None  # gunicorn closes the connection
        # Waiting for the next request is bounded by `keepalive` (gunicorn's timer).
        sock.settimeout(None)
        gevent.sleep(YIELD_SECONDS)
        return result
