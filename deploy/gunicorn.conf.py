"""gunicorn settings for production (Dockerfile, Procfile, e2e tests, `rummy-service`).

Environment: PORT (default 8000), HOST (default 0.0.0.0), WEB_CONCURRENCY
(worker processes, default 2), GUNICORN_THREADS (threads per worker, default 16),
GUNICORN_WORKER_CLASS (default gthread; for measurements, see docs/performance.md
"Worker set-ups": no other set-up moved faster on 2 cores).

Worker class: `gthread`. A long-poll (`GET /events?wait=30`) holds its thread
for up to 30 s; a `sync` worker would hold a whole process for it (and kill
a request that outlives `timeout`), so a few waiters starve every move.
gthread keeps idle keep-alive connections off the threads, and many threads
per process leave room for waiters; several processes use both cores.

Measured on 2 cores (8 players making draw/discard moves, redis-server on the
same machine, 6 s per setting; other work shared the machine, so the runs
vary a lot; 0 means no move finished in the window), moves/s per run:
    .venv/bin/python -m bench.gunicorn_workers --seconds 6 --pollers N
                               N=0         N=2    N=4
    sync    -w 4               369, 290    367    0, 287
    gthread -w 2 --threads 4   575, 158    223    0, 178
    gthread -w 4 --threads 2   452, 208    0      192, 139
    gthread -w 2 --threads 16  172         -      259
With few threads, a process whose threads all wait on long-polls stalls the
keep-alive connections it owns; 16 threads per process avoided that here at
no clear cost, hence the default below (the performance work measures more).
"""

import os

from service.observability import multiproc

# /metrics must sum every worker's counters: prometheus_client's multi-process
# mode keeps them in files under PROMETHEUS_MULTIPROC_DIR. Set it (a private
# temporary directory when unset) before any worker imports the app.
multiproc.prepare_dir(clear=False)


def on_starting(server):
    """Remove metric files a previous run left in the directory (master, once)."""
    multiproc.prepare_dir(clear=True)


def child_exit(server, worker):
    """Forget an exited worker's live values (only in multi-process mode)."""
    multiproc.mark_worker_dead(worker.pid)


def on_exit(server):
    """Remove the metric files' directory if it was made for this run."""
    multiproc.remove_private_dir()


bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
if os.environ.get("STORE_URL", "memory://").startswith("memory:"):
    workers = 1  # the memory store lives in one process: more would split the games
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
threads = int(os.environ.get("GUNICORN_THREADS", "16"))

# A long-poll lasts at most 30 s; the worker timeout must outlast it, and a
# graceful shutdown must let the longest long-poll finish.
timeout = 45
graceful_timeout = 40
keepalive = 5

# Bound request sizes at the server as well (the app caps bodies at MAX_CONTENT_LENGTH).
limit_request_line = 8190
limit_request_fields = 100

# Logs to stdout/stderr (the platform collects them). The app itself writes one
# JSON line per request (service/observability/request_log.py), so gunicorn's
# own access log is off unless GUNICORN_ACCESSLOG names a file ("-": stdout).
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")

# gunicorn 23+ can open a control socket; nothing here uses it.
control_socket_disable = True
