"""Headless Chromium for browser tests, driven by Playwright for Python.

Playwright's own browser downloads are not used: the tests launch Debian's
``chromium`` (``/usr/bin/chromium``, installed by ``.ci/run`` when missing, or
the path in ``CHROMIUM``). `Browser` records every request a page makes and every
console error, so a test can assert that a page fetched nothing from outside
the service and logged no error.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Where browser tests save screenshots (ignored by git, kept as CI artifacts).
ARTIFACTS = ROOT / "tests" / "artifacts"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})


def chromium_path() -> str:
    """The Chromium executable: ``$CHROMIUM``, else ``chromium`` on PATH."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError(
            f"no Chromium at {path}: install Debian's `chromium` (`.ci/run` does) "
            "or set CHROMIUM to its path"
        )
    return path


@dataclass
class PageLog:
    """What the pages of one browser context did that a test may assert on."""

    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def outside_requests(self) -> list[str]:
        """Requests whose host is not the loopback (``data:`` and ``blob:`` excluded)."""
        outside = []
        for url in self.requests:
            parts = urlsplit(url)
            if parts.scheme in ("data", "blob", "about"):
                continue
            if parts.hostname not in LOCAL_HOSTS:
                outside.append(url)
        return outside


class Browser:
    """One headless Chromium; `new_page()` opens a page in a fresh context."""

    def __init__(self, playwright: Any) -> None:
        self._browser = playwright.chromium.launch(
            executable_path=chromium_path(),
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        self.log = PageLog()
        #: Contexts opened since the current test's `page_log` began.
        self.contexts: list[Any] = []

    def new_context(self, **options: Any) -> Any:
        """A fresh context (own cookies and localStorage) whose pages are logged.

        Requests to hosts other than the loopback are recorded and aborted, so a
        page under test can never reach outside the machine.
        """
        context = self._browser.new_context(**options)

        def route(route: Any) -> None:
            host = urlsplit(route.request.url).hostname
            if host in LOCAL_HOSTS or host is None:
                route.continue_()
            else:
                route.abort()

        context.route("**/*", route)
        context.on("page", self._watch)
        self.contexts.append(context)
        return context

    def new_page(self, **options: Any) -> Any:
        """A page in a fresh context (viewport etc. via ``options``)."""
        return self.new_context(**options).new_page()

    def _watch(self, page: Any) -> None:
        # The log of the test that opened the page: a page another test left open
        # (retrying a server that test stopped) cannot fill this test's log.
        log = self.log
        page.on("request", lambda request: log.requests.append(request.url))
        page.on(
            "console",
            lambda message: message.type == "error" and log.console_errors.append(message.text),
        )
        page.on("pageerror", lambda error: log.page_errors.append(str(error)))

    def close(self) -> None:
        """Close the browser and every context."""
        self._browser.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """A headless Debian Chromium for the session (see the module docstring)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = Browser(playwright)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page_log(browser: Browser) -> Iterator[PageLog]:
    """A fresh request/console log for one test (the browser is shared)."""
    browser.log = PageLog()
    browser.contexts = []
    yield browser.log
    for context in browser.contexts:  # the test's pages stop with it
        context.close()  # a no-op on a context the test closed itself
    browser.contexts = []


def save_screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under tests/artifacts/ and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
