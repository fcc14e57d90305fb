"""The live feed gives the C heap's free pages back to the system (`release_memory`).

A stream's polls and pages, and the lint of an ended session, free what they allocated, but
glibc keeps the freed pages of its heaps: the UI server's RSS stayed up after each session.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from inspector.api.live import release_memory


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_freed_heap_memory_goes_back_to_the_system() -> None:
    # 60 MB in blocks the C heap serves (not mmap'ed one by one), the last one kept: freeing the
    # others leaves their pages in the heap, below a block still in use.
    blocks = [bytearray(16 * 1024) for _ in range(60 * 64)]
    keep = bytearray(16 * 1024)
    del blocks
    held = _rss_mb()
    assert release_memory()
    assert _rss_mb() < held - 30, (held, _rss_mb())
    assert keep is not None
