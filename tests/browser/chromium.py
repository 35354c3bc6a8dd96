"""Headless Chromium for the browser tests and benchmarks: Debian's /usr/bin/chromium driven by Playwright.

    with chromium_page(origin) as (page, log):   # log.foreign: requests that left the origin (aborted)
        page.goto(origin + "/demo/mnist.html")   # log.errors: console errors, page errors, worker errors

Every request of the context (pages and their workers) is recorded; one not to `origin` is aborted and
listed in `log.foreign`, so a test can fail on it: the site must work with no internet.
Never `playwright install`: the browser is the system's (PLATFORM.md).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

CHROMIUM = os.environ.get("WEBFLOW_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def unavailable_reason() -> str | None:
    """Why no browser test can run here (None if Chromium and Playwright are both there)."""
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return f"Chromium not found at {CHROMIUM} (apt-get install chromium; or set WEBFLOW_CHROMIUM)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python playwright is not installed (pip install '.[browser]')"
    return None


@dataclass
class RequestLog:
    origin: str
    urls: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)


@contextlib.contextmanager
def chromium_page(origin: str, viewport: dict | None = None, bypass_csp: bool = True) -> Iterator[tuple]:
    """A fresh Chromium (own profile folder) with one page; yields (page, RequestLog).

    The site's pages forbid evaluating strings (their Content-Security-Policy), which Playwright's
    `wait_for_function` does: `bypass_csp=True` lifts the policy for such tests; test_csp.py keeps it on."""
    from playwright.sync_api import sync_playwright

    log = RequestLog(origin)

    def route(route) -> None:
        url = route.request.url
        log.urls.append(url)
        if url.startswith(origin + "/") or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            log.foreign.append(url)
            route.abort()

    def on_console(message) -> None:
        log.console.append(f"{message.type}: {message.text}")
        if message.type == "error":
            log.errors.append(f"console: {message.text}")

    with tempfile.TemporaryDirectory(prefix="wf-chromium-") as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport=viewport or {"width": 1200, "height": 900}, bypass_csp=bypass_csp)
        try:
            context.route("**/*", route)
            page = context.pages[0] if context.pages else context.new_page()
            page.on("console", on_console)
            page.on("pageerror", lambda error: log.errors.append(f"pageerror: {error}"))
            page.on("worker", lambda worker: worker.on("console", on_console) if hasattr(worker, "on") else None)
            yield page, log
        finally:
            context.close()
