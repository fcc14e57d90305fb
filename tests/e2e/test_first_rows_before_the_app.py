"""A timeline's first rows drawn by the page's head script before the app has loaded (issue #21).

A new tab must load, compile and run react-dom and the app before React shows a row (210-330 ms of
this machine's floor alone). The head script (web/src/first/prime.ts) has the first page by then:
it draws the rows in view where the list was last laid out, with the cells the app's rows show
(web/src/timeline/rowCells.ts, read by both), and the app takes their place in the commit that shows
its own. These tests hold the app's entry back (as a slow load would) so the early rows are seen:
until the head script has drawn them where the page draws them, or for 0.5 s where it must not. The
page guarantees early rows only when its first page is in before the app renders; on a loaded
machine the app can come first (issue #34: a timed hold lost that race), so the tests that want the
early rows release the app's entry only once they are drawn.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Route, expect

from inspector.api import UiServer
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine
from tests.e2e.conftest import clear, hold_the_entry

# A row as a tree of tags, attributes and texts (adjacent texts joined), leaving out what only one of
# the two renderers sets: the app's test ids, index, role and inline style, and the classes its view
# adds (selection, range, conversation, pause).
_WATCH = """
const VIEW = new Set(["selected", "open", "in-range", "in-conv", "after-pause"]);
const LEFT_OUT = new Set(["data-testid", "data-index", "role", "style", "data-conv"]);
function tree(n) {
  if (n.nodeType === 3) return n.textContent;
  const attrs = [...n.attributes].filter((a) => !LEFT_OUT.has(a.name)).map((a) =>
    a.name === "class"
      ? "class=" + a.value.split(/\\s+/).filter((c) => c && !VIEW.has(c) && !c.startsWith("conv-")).sort().join(" ")
      : a.name + "=" + a.value).sort();
  const kids = [];
  for (const k of [...n.childNodes].map(tree)) {
    if (typeof k === "string" && typeof kids[kids.length - 1] === "string") kids[kids.length - 1] += k;
    else if (k !== "") kids.push(k);
  }
  return { tag: n.tagName, attrs, kids };
}
function seen(sel) {
  const one = document.querySelector(sel + "[data-seq='1']");
  if (!one) return null;
  const r = one.getBoundingClientRect();
  return {
    at: performance.now(), top: r.top, left: r.left, width: r.width,
    rows: Object.fromEntries([...document.querySelectorAll(sel)].map((e) => [e.dataset.seq, tree(e)])),
    early: document.getElementById("first-rows") !== null,
  };
}
window.__early = null; window.__app = null;
new MutationObserver(() => {
  if (!window.__early && (window.__early = seen("#first-rows .row"))) {
    const box = document.getElementById("first-rows");
    window.__early.box = { hidden: box.getAttribute("aria-hidden"), pointer: getComputedStyle(box).pointerEvents };
  }
  if (!window.__app) window.__app = seen("[data-testid=row]");
}).observe(document, { subtree: true, childList: true });
"""

_ENTRY = re.compile(r"/assets/index-[^/]+\.js$")  # the app's entry script (as hold_the_entry routes it)


def _laid_out_once(context: BrowserContext, url: str) -> None:
    """A first tab of the timeline: the app lays the list out and keeps where it is."""
    first = context.new_page()
    first.goto(url)
    expect(first.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    first.wait_for_load_state("networkidle")  # the first open's lint: its badges are on the rows next time
    first.close()


def _later_tab(
    context: BrowserContext, url: str, size: dict[str, int] | None = None, *, early: bool = False
) -> Page:
    """A new tab of `url` once the app shows its rows. `early`: the rows must be drawn before the app,
    so the app's entry is held until they are (the order the test controls, not a race it hopes to
    win); otherwise the entry is held 0.5 s, and the tab is looked at for rows that must not come."""
    later = context.new_page()
    if size:
        later.set_viewport_size(size)  # type: ignore[arg-type]
    later.add_init_script(_WATCH)
    if not early:
        hold_the_entry(later)
        later.goto(url)
    else:
        held: list[Route] = []

        def hold(route: Route) -> None:
            held.append(route)

        later.route(_ENTRY, hold)
        later.goto(url, wait_until="commit")  # the load event waits for the held entry
        expect(later.locator("#first-rows .row").first).to_be_attached()  # drawn (CSP: no wait_for_function)
        for route in held:
            route.continue_()
        later.unroute(_ENTRY)
    expect(later.locator("[data-testid=row][data-seq='1']")).to_be_visible()
    return later


def test_a_later_tab_shows_the_first_rows_before_the_app_and_the_app_takes_their_place(
    context: BrowserContext, ui: UiServer
) -> None:
    try:
        _laid_out_once(context, ui.url("/sessions/1"))
        later = _later_tab(context, ui.url("/sessions/1"), early=True)
        early: dict[str, Any] = later.evaluate("window.__early")
        app: dict[str, Any] = later.evaluate("window.__app")
        assert early is not None, "no rows drawn before the app"
        assert app["at"] > early["at"], (early["at"], app["at"])
        # The app's rows replace them in one commit, at the same place.
        assert not app["early"]
        assert later.locator("#first-rows").count() == 0
        assert (app["top"], app["left"], app["width"]) == (early["top"], early["left"], early["width"])
        # Every early row is the app's row for the same message.
        assert len(early["rows"]) >= 20, early["rows"].keys()
        unlike = [seq for seq, row in early["rows"].items() if row != app["rows"][seq]]
        assert unlike == [], (unlike, early["rows"][unlike[0]], app["rows"][unlike[0]])
        assert "pair-link" in str(early["rows"])  # answers, linked to their requests
        # Never in the way: hidden from assistive technology and from the pointer while they last.
        assert early["box"] == {"hidden": "true", "pointer": "none"}
        later.close()
    finally:
        clear(context)


def test_no_early_rows_where_their_place_is_unknown_or_the_view_is_another(
    context: BrowserContext, ui: UiServer
) -> None:
    try:
        # A first visit: where the list goes is not known yet.
        first = _later_tab(context, ui.url("/sessions/1"))
        assert first.evaluate("window.__early") is None
        first.close()
        # Known now, but not for a filtered timeline or a deep link (an open message narrows the list),
        # and neither keeps its own layout as the plain timeline's.
        for url in (ui.url("/sessions/1?kind=request"), ui.url("/sessions/1/messages/3")):
            later = _later_tab(context, url)
            assert later.evaluate("window.__early") is None, url
            later.close()
        later = _later_tab(context, ui.url("/sessions/1"), early=True)
        assert later.evaluate("window.__early") is not None  # (so the cases above are not vacuous)
        later.close()
        # Nor for a window of another size.
        later = _later_tab(context, ui.url("/sessions/1"), {"width": 1200, "height": 700})
        assert later.evaluate("window.__early") is None
        later.close()
    finally:
        clear(context)


def _odd_session(db: Path) -> int:
    """Rows whose recorded bytes carry markup, an intervention, an injection, an error and a log line."""
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["odd-server"], name="odd")
    b = MessageBuilder(sid)
    t = 1_700_000_000_000_000_000
    rows = [
        *b.feed(t, "c2s", "stdin", b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'),
        *b.feed(t + 1_000_000, "s2c", "stdout", b'{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}\n'),
        *b.feed(
            t + 2_000_000,
            "c2s",
            "stdin",
            b'{"jsonrpc":"2.0","id":2,"method":"<img src=x onerror=\\"window.__pwned=1\\">","params":{}}\n',
        ),
        *b.feed(
            t + 3_000_000,
            "s2c",
            "stdout",
            b'{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"<b>no</b>"}}\n',
        ),
        b.message(
            t + 4_000_000,
            "c2s",
            "stdin",
            b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}',
            meta={"intercept": {"action": "drop", "by": "user", "delivered": False, "n": 1}},
        ),
        b.message(
            t + 5_000_000,
            "s2c",
            "stdout",
            b'{"jsonrpc":"2.0","id":3,"result":{"content":[]}}',
            meta={"injected": {"action": "respond", "by": "user", "n": 1}},
        ),
        *b.feed(t + 6_000_000, "s2c", "stderr", b"a log line <i>in markup</i>\n"),
    ]
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows, b.facts.snapshot())
    writer.on_end(0, "done", b.facts.snapshot())
    engine.dispose()
    return sid


def test_recorded_markup_is_drawn_as_text_and_every_kind_of_row_as_the_app_draws_it(
    context: BrowserContext, tmp_path: Path
) -> None:
    db = tmp_path / "odd.db"
    sid = _odd_session(db)
    server = UiServer(open_engine(db), port=0).start()
    try:
        _laid_out_once(context, server.url(f"/sessions/{sid}"))
        later = _later_tab(context, server.url(f"/sessions/{sid}"), early=True)
        early: dict[str, Any] = later.evaluate("window.__early")
        app: dict[str, Any] = later.evaluate("window.__app")
        assert early is not None
        assert set(early["rows"]) == set(app["rows"]) == {str(n) for n in range(1, 8)}
        unlike = [seq for seq, row in early["rows"].items() if row != app["rows"][seq]]
        assert unlike == [], (unlike, early["rows"][unlike[0]], app["rows"][unlike[0]])
        assert later.evaluate("window.__pwned") is None
        shown = str(early["rows"])
        assert "<img src=x" in shown and "'tag': 'IMG'" not in shown and "'tag': 'B'" not in shown
        for drawn in ("iv-undelivered", "iv-injected", "code -32601", "lint-badge", "stderr"):
            assert drawn in shown, drawn
        later.close()
    finally:
        clear(context)
        server.stop()
