"""What an operator sees of the service: JSON request logs and Prometheus metrics.

``init_app(app)`` installs both; the API reports what only it knows through
:func:`service.ops.request_log.annotate` (seat, move type), and the
store is measured by :mod:`service.ops.store_metrics`.

Importing this package imports nothing else: ``deploy/gunicorn.conf.py``
imports :mod:`service.serving.multiproc` before prometheus_client may be
imported (it reads ``PROMETHEUS_MULTIPROC_DIR`` once, when first imported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask


def init_app(app: Flask, *, metrics_endpoint: bool = True) -> None:
    """Log and measure every request of ``app``; serve ``/metrics`` unless told not to.

    The request id and the timers are set by the first before-request hooks,
    so requests refused by any later hook are still logged and measured.
    """
    # Imported here, not at the top: see the module docstring.
    from service.ops import metrics, request_log

    request_log.init_app(app)
    metrics.init_app(app, endpoint=metrics_endpoint)
