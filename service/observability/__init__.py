"""What an operator sees of the service: JSON request logs and Prometheus metrics.

``init_app(app)`` installs both; the API reports what only it knows through
:func:`service.observability.request_log.annotate` (seat, move type) and the
``record_*`` functions of :mod:`service.observability.metrics`.
"""

from __future__ import annotations

from flask import Flask

from service.observability import metrics, request_log


def init_app(app: Flask, *, metrics_endpoint: bool = True) -> None:
    """Log and measure every request of ``app``; serve ``/metrics`` unless told not to.

    Call it right after the app is created, before other request hooks, so the
    request id and the timers are set even for requests those hooks refuse.
    """
    request_log.init_app(app)
    metrics.init_app(app, endpoint=metrics_endpoint)


__all__ = ["init_app", "metrics", "request_log"]
