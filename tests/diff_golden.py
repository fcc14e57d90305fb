"""Golden reports of the diff: `tests/golden/diff/NAME.json` holds, for each direction of a pair of
sessions, the JSON report of what differs (`keep_equal=False`) and the text report listing every
exchange (`keep_equal=True`, `show_equal`). They were written by the reference diff (every replay
message built, each session parsing its own bodies) before the diff kept one path; a test diffs
its sessions with `diff_sessions` and compares with them.

To write them again (only for a new case, after checking its report by hand): set
`MCP_INSPECT_WRITE_DIFF_GOLDEN` to the folder to write into."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from inspector.replay.diff import PathSet, SessionDiff, diff_sessions, render_text

GOLDEN = Path(__file__).parent / "golden" / "diff"

Reader = Callable[[Any], Iterable[Any]]


def _doc(differing: SessionDiff, listed: SessionDiff) -> dict[str, Any]:
    # The report that lists every exchange lists what the other one lists, at the same places.
    shown = [x.to_json() for x in listed.exchanges if x.status != "equal" or x.interventions]
    assert shown == differing.to_json()["exchanges"]
    assert listed.counts() == differing.counts()
    return {"differing": differing.to_json(), "all": render_text(listed, show_equal=True, verbose=True)}


def check(name: str, a: Any, b: Any, ignore: PathSet, read: Reader = lambda s: s) -> dict[str, int]:
    """Both directions of `a` and `b` (sessions as `read` gives them to the diff) against the golden
    reports `name`; returns the counts of a -> b."""
    docs = []
    for x, y in ((a, b), (b, a)):
        differing, listed = (
            diff_sessions(read(x), read(y), ignore=ignore, keep_equal=keep) for keep in (False, True)
        )
        docs.append(_doc(differing, listed))
    folder = os.environ.get("MCP_INSPECT_WRITE_DIFF_GOLDEN")
    path = (Path(folder) if folder else GOLDEN) / f"{name}.json"
    text = json.dumps(docs, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if folder:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    else:
        assert json.loads(text) == json.loads(path.read_text(encoding="utf-8")), f"differs from {path}"
    return dict(docs[0]["differing"]["counts"])
