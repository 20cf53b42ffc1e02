"""The web front end at `/play`: a static build of `web/`, committed in `static/`.

The assets have content-hashed names, so they are cached for a year; `index.html`
names the current ones and is revalidated on every load (`no-cache`).
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Response, abort, send_from_directory

STATIC = Path(__file__).parent / "static"
#: Cache lifetime of the hashed assets, seconds.
ASSET_MAX_AGE = 365 * 24 * 3600
#: The page loads scripts, styles and data from this service only.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)

blp = Blueprint("webui", __name__)


@blp.get("/play")
@blp.get("/play/")
def index() -> Response:
    """The page; routes after `#` (`/play/#/games/{id}`) are the page's own."""
    response = send_from_directory(STATIC, "index.html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response


@blp.get("/play/assets/<path:filename>")
def asset(filename: str) -> Response:
    """A hashed asset of the build: cached for a year, never changed in place."""
    if not (STATIC / "assets").is_dir():
        abort(404)
    response = send_from_directory(STATIC / "assets", filename, max_age=ASSET_MAX_AGE)
    response.headers["Cache-Control"] = f"public, max-age={ASSET_MAX_AGE}, immutable"
    return response


def install(app: Flask) -> None:
    """Serve the front end at `/play`."""
    app.register_blueprint(blp)
