"""deploy/gunicorn.conf.py with `bench.worker_probes` in every worker (for `bench.tail`)."""

import runpy
from pathlib import Path

_PRODUCTION_CONFIG = Path(__file__).resolve().parent.parent / "deploy" / "gunicorn.conf.py"
_production = runpy.run_path(str(_PRODUCTION_CONFIG))
globals().update({k: v for k, v in _production.items() if not k.startswith("__")})


def post_worker_init(worker):
    """The production hook, then the probes."""
    _production["post_worker_init"](worker)
    from bench.worker_probes import install

    install(worker)
