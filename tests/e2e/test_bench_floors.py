"""The first row's floors of `bench.scale_ui` show row 1 of a real session, through the real server.

The bench prints the app's first row beside two floors measured in the same run: a page that
holds row 1 and no script, and the React floor (web/floor/: the app's React rendering the first
page's rows, nothing else). A floor that never showed its row would stall the bench; one that
showed a different row would not be a floor of the same work.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Response

from bench.scale_ui import FIRST_ROW_PROBE, FLOOR_PAGE, build_react_floor, floor_first_row
from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import new_context


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("floors") / "rows.db"
    generate(path, 300, name="three hundred")
    return path


@pytest.fixture
def floors(db: Path, tmp_path: Path) -> Iterator[dict[str, UiServer]]:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "index.html").write_text(FLOOR_PAGE)
    react = build_react_floor(tmp_path / "react")
    assert react is not None and (react / "index.html").is_file()
    engine = open_engine(db)
    servers = {
        name: UiServer(engine, port=0, static_dir=d).start()
        for name, d in (("plain", plain), ("react", react))
    }
    yield servers
    for server in servers.values():
        server.stop()
    engine.dispose()


def test_both_floors_show_row_1_and_the_react_floor_renders_the_first_page(
    browser: Browser, floors: dict[str, UiServer]
) -> None:
    context = new_context(browser)
    context.add_init_script(FIRST_ROW_PROBE)
    for server in floors.values():
        assert floor_first_row(context, server, 1) > 0
    # The React floor renders the rows of the API's first page, as the app's first render does.
    page = context.new_page()
    page.goto(floors["react"].url("/sessions/1"))
    rows = page.locator("[data-testid=row]")
    rows.first.wait_for()
    assert rows.count() == 34
    assert [rows.nth(i).get_attribute("data-seq") for i in (0, 33)] == ["1", "34"]
    # Through the same guard as the app: without the token the API refuses, and no row shows.
    bare = context.new_page()
    refused: list[int] = []

    def seen(answer: Response) -> None:
        if "/api/" in answer.url:
            refused.append(answer.status)

    bare.on("response", seen)
    bare.goto(floors["react"].base_url + "/sessions/1")
    bare.wait_for_load_state("networkidle")
    assert refused == [401] and bare.locator("[data-testid=row]").count() == 0
    context.close()
