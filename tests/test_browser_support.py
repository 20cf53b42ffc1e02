"""The browser fixture: a real Chromium that logs requests and keeps pages offline."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import Browser, PageLog

pytestmark = pytest.mark.slow

PAGE = b"""<!doctype html><html><head><title>probe</title>
<link rel="stylesheet" href="http://fonts.example.com/font.css"></head>
<body><p id="p">local</p><img src="http://203.0.113.9/pixel.png">
<script>console.error("probe error")</script></body></html>"""


@pytest.fixture
def local_site(tmp_path: Path) -> Iterator[str]:
    """A tiny HTTP server on the loopback serving one page that links outside."""
    (tmp_path / "index.html").write_bytes(PAGE)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(tmp_path), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


def test_pages_are_logged_and_kept_offline(
    browser: Browser, page_log: PageLog, local_site: str
) -> None:
    page = browser.new_page()
    page.goto(local_site)
    assert page.text_content("#p") == "local"
    page.wait_for_load_state("networkidle")
    outside = page_log.outside_requests()
    assert "http://fonts.example.com/font.css" in outside
    assert "http://203.0.113.9/pixel.png" in outside
    assert local_site in page_log.requests
    # The aborted outside requests are logged as failed loads too.
    assert "probe error" in page_log.console_errors
    page.context.close()
