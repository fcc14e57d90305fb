"""Recorders applying the retention policy by themselves, off the forwarding path.

`start(engine)` starts a daemon thread that loads the settings (`inspector/settings.py`), and when a
policy is set and this store was not pruned within `INTERVAL_S` by any process of this user,
prunes it (`store/retention.py`: a few sessions per short write transaction, then the incremental
vacuum; never the one-off full VACUUM of an old file, which only `mcp-inspect prune` does). `wrap`
calls it once on its store thread after the store opened; the HTTP proxy and the gateway pass
`every=` to check again periodically while they run.

At most once per interval across processes: a stamp file per database in the runtime directory
(`runtime_dir.py`, 0600 in a 0700 directory), claimed under a non-blocking `flock` and dated by its
mtime. When a host starts twenty wraps at once, one prunes and the others find the stamp locked or
fresh and do nothing. Any error is one line on stderr; recording goes on untouched.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = ["INTERVAL_S", "claim", "prune_if_due", "start"]

INTERVAL_S = 3600.0


def _stamp_name(engine: Store) -> str:
    from inspector.store.db import db_key

    return "retention-" + hashlib.sha256(db_key(engine).encode()).hexdigest()[:20] + ".stamp"


def claim(engine: Store, interval: float = INTERVAL_S) -> int | None:
    """The locked stamp's descriptor when this process should prune now (close it when done), else None."""
    import fcntl

    from inspector.runtime_dir import _opened

    with _opened(create=True) as dir_fd:
        fd = os.open(_stamp_name(engine), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600, dir_fd=dir_fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None  # another process is pruning this store right now
    st = os.fstat(fd)
    if st.st_size > 0 and time.time() - st.st_mtime < interval:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()} {time.time():.0f}\n".encode())
    return fd


def prune_if_due(engine: Store, interval: float = INTERVAL_S, *, quiet: bool = False) -> list[int]:
    """Apply the policy in force when it is set and due; the ids removed. Raises on errors."""
    from inspector import settings
    from inspector.store.retention import apply, plan

    retention = settings.load().settings.retention
    if not retention.active:
        return []
    fd = claim(engine, interval)
    if fd is None:
        return []
    try:
        planned = plan(engine, retention)
        if not planned.remove:
            return []
        done = apply(engine, planned)
    finally:
        os.close(fd)
    if done.removed and not quiet:
        print(
            f"[mcp-inspect] retention removed {len(done.removed)} session(s) (reclaimed "
            f"{done.reclaimed_bytes} bytes)",
            file=sys.stderr,
            flush=True,
        )
    return done.removed


def _run(engine: Store, every: float | None, quiet: bool) -> None:
    while True:
        try:
            prune_if_due(engine, quiet=quiet)
        except Exception as exc:  # noqa: BLE001 - pruning never disturbs recording: one line, carry on
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            with contextlib.suppress(Exception):
                print(f"[mcp-inspect] retention skipped: {first}", file=sys.stderr, flush=True)
        if every is None:
            return
        time.sleep(every)


def start(engine: Store, *, every: float | None = None, quiet: bool = False) -> Any:
    """Prune in a daemon thread (once, or every `every` seconds); the thread."""
    thread = threading.Thread(
        target=_run, args=(engine, every, quiet), name="mcp-inspect-retention", daemon=True
    )
    thread.start()
    return thread
