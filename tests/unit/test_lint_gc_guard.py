"""The streamed lint holds the cyclic garbage collector's automatic runs off while it works
(stored._young_collections_only). Lints overlap in the API server's worker threads: each keeps them
off until it ends, and the last one out gives back what the first one in found.
"""

from __future__ import annotations

import gc
import threading

from inspector.lint import stored


def test_lints_that_overlap_keep_collection_off_until_the_last_ends() -> None:
    assert gc.isenabled()
    seen: dict[str, bool] = {}
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def lint_a() -> None:
        with stored._young_collections_only():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def lint_b() -> None:
        a_in.wait(10)
        with stored._young_collections_only():
            b_in.set()
            a_out.wait(10)  # A finishes while B still runs
            seen["b after a ended"] = gc.isenabled()

    threads = [threading.Thread(target=lint_a), threading.Thread(target=lint_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    try:
        assert seen == {"b after a ended": False}, "the second lint ran with automatic collection on"
        assert gc.isenabled(), "the collector was left off after two overlapping lints"
    finally:
        gc.enable()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with stored._young_collections_only():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
