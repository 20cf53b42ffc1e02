"""gunicorn settings for production (Dockerfile, Procfile, e2e tests, `rummy-service`).

Environment: PORT (default 8000), HOST (default 0.0.0.0), WEB_CONCURRENCY
(worker processes, default 2), GUNICORN_WORKER_CLASS (default
`service.serving.balanced_worker.BalancedGeventWorker`; `gevent` and `gthread` also
work), GUNICORN_WORKER_CONNECTIONS (requests in flight per gevent worker,
default 1000), GUNICORN_THREADS (threads per worker if the class is gthread,
default 16), GUNICORN_KEEPALIVE (seconds a client has to send a request's
headers, default 5).

Worker class: gevent's, balanced. A long-poll (`GET /events?wait=30`) holds a
greenlet for up to 30 s, not a thread or a process: thousands may wait at once
while moves go on. A `sync` worker would be held whole by one long-poll (and
kill a request that outlives `timeout`). Against `gthread` (2 workers x 16
threads, the previous default) and `sync` (4 workers), gevent served more of
every kind of request on 2 cores, with the lowest tail latency for `hello`,
since threads of one interpreter no longer contend for its lock:
docs/performance.md, "Worker set-up", with the command that measures it.
`BalancedGeventWorker` adds an even share of connections per worker and a
fair turn per request (service/serving/balanced_worker.py, whose docstring explains each change).
"""

import os

from service.serving import multiproc

# /metrics must sum every worker's counters: prometheus_client's multi-process
# mode keeps them in files under PROMETHEUS_MULTIPROC_DIR. Set it (a private
# temporary directory when unset) before any worker imports the app.
multiproc.prepare_dir(clear=False)


def on_starting(server):
    """Remove metric files a previous run left in the directory (master, once)."""
    multiproc.prepare_dir(clear=True)


def when_ready(server):
    """Once the socket is bound: the banner `rummy-service` asked for, if any."""
    banner = os.environ.get("RUMMY_SERVE_BANNER")
    if banner:
        print(banner, flush=True)


def child_exit(server, worker):
    """Forget an exited worker: its live metric values (only in multi-process mode),
    and its connections on the balanced workers' board."""
    multiproc.mark_worker_dead(worker.pid)
    forget = getattr(worker, "forget", None)  # BalancedGeventWorker's
    if forget is not None:
        forget(worker)


def on_exit(server):
    """Remove the metric files' directory if it was made for this run."""
    multiproc.remove_private_dir()


bind = [f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"]
# With METRICS_PORT set, /metrics is served on that port only (for the
# scraper; keep it off the public network), the API on PORT.
if int(os.environ.get("METRICS_PORT") or 0):
    bind.append(f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ['METRICS_PORT']}")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
if os.environ.get("STORE_URL", "memory://").startswith("memory:"):
    workers = 1  # the memory store lives in one process: more would split the games
worker_class = os.environ.get(
    "GUNICORN_WORKER_CLASS", "service.serving.balanced_worker.BalancedGeventWorker"
)
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))
threads = int(os.environ.get("GUNICORN_THREADS", "16"))

# A long-poll lasts at most 30 s; the worker timeout must outlast it, and a
# graceful shutdown must let the longest long-poll finish.
timeout = 45
graceful_timeout = 40
# The gevent worker waits this long for a request's headers, the first
# request's included, then closes the connection: a client sending its headers
# a byte at a time holds a connection slot no longer (docs/security.md).
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))

# Bound request sizes at the server as well (the app caps bodies at MAX_CONTENT_LENGTH).
limit_request_line = 8190
limit_request_fields = 100

# Logs to stdout/stderr (the platform collects them). The app itself writes one
# JSON line per request (service/ops/request_log.py), so gunicorn's
# own access log is off unless GUNICORN_ACCESSLOG names a file ("-": stdout).
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")

# gunicorn 23+ can open a control socket; nothing here uses it.
control_socket_disable = True


def post_worker_init(worker):
    """Once the app is loaded: keep its objects out of the collector's full passes,
    and end the worker's event streams as soon as it is told to stop."""
    from service.serving.gc_tuning import tune_gc_for_serving

    tune_gc_for_serving()
    _end_streams_when_stopping(worker)


def _end_streams_when_stopping(worker):
    """Once the worker stops (SIGTERM: `alive` goes false), end its open streams:
    each client reconnects to a worker still serving, and the worker exits within
    a second, not at its ``graceful_timeout`` (an open stream lasts up to
    `STREAM_LIFETIME`, 300 s). A gevent worker only: a greenlet looks every
    `STOP_LOOK_EVERY` s (gunicorn runs no hook of the app's on SIGTERM)."""
    try:
        import gevent
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return
    if not monkey.is_module_patched("socket"):
        return  # gthread or sync: gunicorn's own graceful stop

    def watch():
        from service.api.feeds import end_streams

        while worker.alive:
            gevent.sleep(STOP_LOOK_EVERY)
        end_streams()

    gevent.spawn(watch)


#: Seconds between two looks of a gevent worker at whether it is stopping.
STOP_LOOK_EVERY = 0.2
