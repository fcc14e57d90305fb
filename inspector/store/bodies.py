"""Large message bodies: stored once by content (the `blob` table), zstd-compressed, read back exact.

The one seam between a message's bytes and how they are stored. The writer calls `Encoder.encode`
on each batch (on its own thread, off the forwarding path); every reader of `message.raw` calls
`fill` (or `load`) on what it read. A body larger than the lower of `storage.compress_above` and
`storage.dedup_above` goes out of line:

- its row's `raw` keeps only its first `HEAD_BYTES` bytes (what list views preview) and
  `body_sha256` names the `blob` holding the whole body;
- the blob row (primary key the SHA-256 of the body, so identical bodies of any session are
  stored once) holds the body zstd-compressed when it is above `compress_above` and compression
  makes it smaller (`codec` "zstd"), else as it is (`codec` "none"), and its original `size`.

`message.size` stays the original size. Blobs are written insert-or-ignore (a batch, another
recorder or a retried batch may hold the same one); deleting sessions removes the blobs no row
references any more (`collect`). `session_stored_bytes` says what sessions' rows take, blobs
shared between sessions counted in equal shares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.errors import BlobMissingError
from inspector.store.db import Conn

if TYPE_CHECKING:
    from sqlalchemy import Connection


__all__ = [
    "HEAD_BYTES",
    "NEVER",
    "Encoder",
    "Thresholds",
    "collect",
    "decode",
    "fill",
    "load",
    "blob_shares",
    "session_stored_bytes",
    "thresholds",
]

HEAD_BYTES = 240  # the start kept in `message.raw` (store.pages.PREVIEW_BYTES: the list preview)
NEVER = 2**62  # a threshold no body reaches: storage of large bodies off
ZSTD_LEVEL = 3  # zstd's default: ~300 MB/s on one core for JSON, ratio close to level 9's
_PG_LOCK = 0x6D63_7062  # pg_advisory_xact_lock key: collecting blobs vs writers adding references


@dataclass(frozen=True)
class Thresholds:
    """Bodies above `out_of_line` go to the blob table; above `compress` they are zstd-compressed."""

    compress: int = 4096
    dedup: int = 4096

    @property
    def out_of_line(self) -> int:
        return min(self.compress, self.dedup)


def thresholds() -> Thresholds:
    """The effective `storage` settings (defaults when the config cannot be read: recording must go
    on; `mcp-inspect config` reports the bad value)."""
    from inspector.errors import InspectorError
    from inspector.settings import load

    try:
        storage = load().settings.storage
    except (InspectorError, OSError):
        return Thresholds()
    return Thresholds(compress=int(storage.compress_above), dedup=int(storage.dedup_above))


@dataclass
class _Blob:
    sha256: str
    codec: str
    size: int
    data: bytes


class Encoder:
    """The writer's half: move large bodies of a batch's rows out of line (one per writer thread:
    zstd's compressor is not thread-safe)."""

    def __init__(self, limits: Thresholds | None = None) -> None:
        self.limits = limits or thresholds()
        self._compressor: Any = None
        self.stats = {"blobs_written": 0, "bytes_in": 0, "bytes_stored": 0}

    def split(self, rows: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
        """Rows as stored (large bodies cut to their head, `body_sha256` set) and the whole bodies by
        hash. Rows with no large body come back as they are (the same dicts)."""
        import hashlib  # here, not at the top: the read commands import this module and hash nothing

        limit = self.limits.out_of_line
        out: list[dict[str, Any]] = []
        bodies: dict[str, bytes] = {}
        for row in rows:
            raw = row["raw"]
            if len(raw) <= limit:
                out.append(row)  # type: ignore[arg-type]
                continue
            sha = hashlib.sha256(raw).hexdigest()
            bodies[sha] = raw
            stored = dict(row)
            stored["raw"] = bytes(raw[:HEAD_BYTES])
            stored["body_sha256"] = sha
            out.append(stored)
        return out, bodies

    def blobs(self, bodies: Mapping[str, bytes]) -> list[_Blob]:
        """Blob rows for bodies (compressed where it pays)."""
        made = []
        for sha, raw in bodies.items():
            codec, data = "none", bytes(raw)
            if len(raw) > self.limits.compress:
                if self._compressor is None:
                    import zstandard

                    self._compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
                packed = self._compressor.compress(raw)
                if len(packed) < len(raw):
                    codec, data = "zstd", packed
            made.append(_Blob(sha, codec, len(raw), data))
        return made

    def write(self, conn: Conn, bodies: Mapping[str, bytes]) -> None:
        """Store the bodies not stored yet (in the caller's transaction). Existing ones are skipped
        before compressing (the same tools/list at every start costs a hash and a lookup); the
        insert ignores one that another recorder added meanwhile."""
        if not bodies:
            return
        if conn.backend == "postgresql":  # wait for a collection in progress (see `collect`)
            conn.execute(f"SELECT pg_advisory_xact_lock_shared({_PG_LOCK})")
        have = _present(conn, list(bodies))
        missing = {sha: raw for sha, raw in bodies.items() if sha not in have}
        if not missing:
            return
        made = self.blobs(missing)
        conn.executemany(
            "INSERT INTO blob (sha256, codec, size, data) VALUES (:sha256, :codec, :size, :data) "
            "ON CONFLICT (sha256) DO NOTHING",
            [{"sha256": b.sha256, "codec": b.codec, "size": b.size, "data": b.data} for b in made],
        )
        self.stats["blobs_written"] += len(made)
        self.stats["bytes_in"] += sum(b.size for b in made)
        self.stats["bytes_stored"] += sum(len(b.data) for b in made)


def _present(conn: Conn, shas: list[str]) -> set[str]:
    found: set[str] = set()
    for i in range(0, len(shas), 500):
        chunk = shas[i : i + 500]
        marks = ", ".join(f":s{j}" for j in range(len(chunk)))
        rows = conn.all(
            f"SELECT sha256 FROM blob WHERE sha256 IN ({marks})", {f"s{j}": s for j, s in enumerate(chunk)}
        )
        found.update(r[0] for r in rows)
    return found


def decode(codec: str, data: bytes, size: int | None = None) -> bytes:
    """A blob's stored bytes back to the body."""
    if codec == "none":
        return bytes(data)
    if codec == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().decompress(bytes(data), max_output_size=size or 0)
    raise BlobMissingError(f"unknown body codec {codec!r}")


def load(conn: Conn | Connection, shas: Iterable[str]) -> dict[str, bytes]:
    """Bodies by hash (every one asked for, or `BlobMissingError`)."""
    wanted = sorted(set(shas))
    out: dict[str, bytes] = {}
    for i in range(0, len(wanted), 100):  # a 20 MB body each: small reads
        chunk = wanted[i : i + 100]
        marks = ", ".join(f":s{j}" for j in range(len(chunk)))
        rows = Conn.of(conn).all(
            f"SELECT sha256, codec, size, data FROM blob WHERE sha256 IN ({marks})",
            {f"s{j}": s for j, s in enumerate(chunk)},
        )
        for r in rows:
            out[str(r[0])] = decode(str(r[1]), bytes(r[3]), int(r[2]))
    missing = set(wanted) - set(out)
    if missing:
        raise BlobMissingError(f"the store lacks the body {sorted(missing)[0]} a message refers to")
    return out


def fill(conn: Conn | Connection, rows: Iterable[Any]) -> None:
    """Put the whole bodies back into rows read with `raw` and `body_sha256` (dicts or objects with
    those attributes, e.g. `Message`), in place."""
    rows = list(rows)
    shas = [_get(r, "body_sha256") for r in rows]
    if not any(shas):
        return
    bodies = load(conn, [s for s in shas if s])
    for row, sha in zip(rows, shas, strict=True):
        if sha:
            _set(row, bodies[sha])


def _get(row: Any, name: str) -> Any:
    if isinstance(row, Mapping):
        return row.get(name)
    return getattr(row, name, None)


def _set(row: Any, raw: bytes) -> None:
    if isinstance(row, MutableMapping):
        row["raw"] = raw
    else:
        row.raw = raw


def collect(conn: Conn | Connection, shas: Iterable[str] | None = None) -> int:
    """Delete blobs no message refers to (among `shas`, or all), in the caller's transaction, after
    the caller deleted messages; return how many went. On PostgreSQL an exclusive lock makes
    writers adding a reference to one of them wait (and then write it again)."""
    conn = Conn.of(conn)
    if conn.backend == "postgresql":
        conn.execute(f"SELECT pg_advisory_xact_lock({_PG_LOCK})")
    orphan = "NOT EXISTS (SELECT 1 FROM message WHERE message.body_sha256 = blob.sha256)"
    if shas is None:
        return int(conn.execute(f"DELETE FROM blob WHERE {orphan}").rowcount or 0)
    gone = 0
    wanted = sorted(set(shas))
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        marks = ", ".join(f":s{j}" for j in range(len(chunk)))
        result = conn.execute(
            f"DELETE FROM blob WHERE sha256 IN ({marks}) AND {orphan}",
            {f"s{j}": s for j, s in enumerate(chunk)},
        )
        gone += int(result.rowcount or 0)
    return gone


def session_blobs(conn: Conn | Connection, session_ids: Sequence[int]) -> list[str]:
    """The blobs the sessions' messages refer to."""
    if not session_ids:
        return []
    marks = ", ".join(f":i{j}" for j in range(len(session_ids)))
    rows = Conn.of(conn).all(
        f"SELECT DISTINCT body_sha256 FROM message WHERE session_id IN ({marks}) AND body_sha256 IS NOT NULL",
        {f"i{j}": int(s) for j, s in enumerate(session_ids)},
    )
    return [r[0] for r in rows]


def session_stored_bytes(conn: Conn | Connection, session_ids: Sequence[int]) -> dict[int, int]:
    """Stored bytes of each session: its rows' `raw` (heads of large bodies included) plus, for each
    blob its rows refer to, the blob's stored size divided by the number of sessions sharing it
    (so the figures of all sessions add up to what the blobs take). Sessions without messages get 0.
    Row overhead (other columns, indexes) is not counted."""
    ids = [int(s) for s in session_ids]
    out = dict.fromkeys(ids, 0)
    if not ids:
        return out
    params = {f"i{j}": s for j, s in enumerate(ids)}
    marks = ", ".join(f":i{j}" for j in range(len(ids)))
    for row in Conn.of(conn).all(
        f"SELECT session_id, COALESCE(SUM(LENGTH(raw)), 0) FROM message WHERE session_id IN ({marks}) "
        "GROUP BY session_id",
        params,
    ):
        out[int(row[0])] += int(row[1])
    for sid, share in blob_shares(conn, ids).items():
        out[sid] += share
    return out


def blob_shares(
    conn: Conn | Connection, session_ids: Sequence[int] | None = None, *, stored: str = "LENGTH(b.data)"
) -> dict[int, int]:
    """Each session's share of the blobs its rows refer to (every session's, or those of
    `session_ids`): per blob, its stored size (`stored`, an SQL expression over `b`) divided by the
    number of sessions sharing it. Sessions without blobs are absent. Also `usage.session_bytes`."""
    only, params = "", dict[str, int]()
    if session_ids is not None:
        if not session_ids:
            return {}
        params = {f"i{j}": int(s) for j, s in enumerate(session_ids)}
        only = "AND session_id IN (" + ", ".join(f":{k}" for k in params) + ")"
    rows = Conn.of(conn).all(
        f"SELECT used.session_id, COALESCE(SUM({stored} / sh.n), 0) FROM "
        f"(SELECT DISTINCT session_id, body_sha256 FROM message WHERE body_sha256 IS NOT NULL {only}) used "
        "JOIN blob b ON b.sha256 = used.body_sha256 "
        "JOIN (SELECT body_sha256, COUNT(DISTINCT session_id) AS n FROM message "
        "WHERE body_sha256 IS NOT NULL GROUP BY body_sha256) sh ON sh.body_sha256 = used.body_sha256 "
        "GROUP BY used.session_id",
        params,
    )
    return {int(row[0]): int(row[1]) for row in rows}
