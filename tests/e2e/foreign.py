"""A page from another origin, for the foreign-origin browser tests: a loopback static site serving
one HTML page whose script tries the UI's API and writes what happened into `#out`, ending with
"done"."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.e2e.conftest import new_context

__all__ = ["foreign_page_outcome"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def foreign_page_outcome(browser: Browser, tmp_path: Path, script: str, *, title: str | None = None) -> str:
    """Serve `script` in a page on a port of its own (another origin), open it in a fresh context,
    wait for its "done" and return the text of its `#out`."""
    site = tmp_path / "site"
    site.mkdir()
    head = f"<title>{title}</title>" if title else ""
    (site / "index.html").write_text(f"<!doctype html>{head}<pre id=out></pre><script>{script}</script>")
    foreign = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site))
    )
    threading.Thread(target=foreign.serve_forever, daemon=True).start()
    context = new_context(browser)
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{foreign.server_address[1]}/index.html")
        expect(page.locator("#out")).to_contain_text("done")
        return page.locator("#out").inner_text()
    finally:
        context.close()
        foreign.shutdown()
