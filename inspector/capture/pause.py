"""Pausing a live session's recording, and metadata-only recording: what the recorder keeps.

Pause: bytes keep flowing and the recorder keeps framing, classifying and
correlating them (so a line split over the pause boundary, a request
recorded before the pause and answered during it, and every pairing after
the resume stay right); only the rows of messages *completed* while paused
are not recorded. A message is recorded when its last byte arrives while
recording is on. Each pause is a session fact, `recording_pauses`, a list of
`{after_seq, from_ns, to_ns, messages_not_recorded}` (`to_ns` None while
still paused; `until_end` when the session ended paused); the timeline
shows it as a divider after row `after_seq`. The seqs of the rows not
recorded stay unused (as with dropped rows): a response recorded after the
resume keeps `answers_seq` of a request sent while paused, which is not in
the store.

Metadata only: a row keeps method, kind, direction, ids, error code,
sizes, timing, HTTP status, path and header names, but not its body
(`raw` empty, `size` the original byte count, `meta.body` says so) nor header
values. It is classified from the real bytes before they are dropped, and
this happens in the recorder right before the one redaction step, for every
producer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.flow import RowMeta

from inspector.store.models import MessageRow

__all__ = ["BODY_NOT_RECORDED", "Pauses", "drop_body", "is_metadata_only"]

BODY_NOT_RECORDED = "not recorded (metadata only)"
_VALUE_DROPPED = ""


class Pauses:
    """One session's pauses, on the recording thread."""

    __slots__ = ("_list", "_ranges", "paused", "skipped_total")

    def __init__(self) -> None:
        self.paused = False
        self.skipped_total = 0  # rows not recorded so far
        self._list: list[dict[str, Any]] = []
        self._ranges: list[tuple[int, int]] = []  # the builder's seqs not recorded, first and last

    def switch(self, paused: bool, ts_ns: int, last_seq: int, *, ended: bool = False) -> bool:
        """Pause or resume after the builder's row `last_seq`; False when nothing changed."""
        if paused == self.paused:
            return False
        self.paused = paused
        if paused:
            after = last_seq - self.skipped_total  # as stored
            self._list.append(
                {"after_seq": after, "from_ns": ts_ns, "to_ns": None, "messages_not_recorded": 0}
            )
        else:
            self._list[-1]["to_ns"] = ts_ns
            if ended:
                self._list[-1]["until_end"] = True
        return True

    def skipped(self, rows: list[MessageRow]) -> None:
        """Rows built while paused (consecutive seqs of the builder): not recorded."""
        first, last = rows[0]["seq"], rows[-1]["seq"]
        if self._ranges and self._ranges[-1][1] + 1 == first:
            self._ranges[-1] = (self._ranges[-1][0], last)
        else:
            self._ranges.append((first, last))
        self.skipped_total += len(rows)
        self._list[-1]["messages_not_recorded"] += len(rows)

    def stored(self, seq: int) -> int | None:
        """The stored seq of the builder's row `seq` (None: not recorded)."""
        before = 0
        for first, last in self._ranges:
            if seq < first:
                break
            if seq <= last:
                return None
            before += last - first + 1
        return seq - before

    def renumber(self, rows: list[MessageRow]) -> list[MessageRow]:
        """Recorded rows as stored: gap-free seqs, `answers_seq` of an unrecorded request dropped
        (copies: the builder may still hold a row it built, e.g. an intervention's original)."""
        if not self.skipped_total:
            return rows
        out: list[MessageRow] = []
        for built in rows:
            row: MessageRow = dict(built)  # type: ignore[assignment]
            row["seq"] = built["seq"] - self.skipped_total  # built after every skipped row
            answers = built["answers_seq"]
            if answers is not None:
                row["answers_seq"] = self.stored(answers)
                if row["answers_seq"] is None:
                    meta: RowMeta = row["meta"].copy() if row["meta"] else {}
                    meta["flags"] = [*meta.get("flags", []), "request-not-recorded"]
                    row["meta"] = meta
            out.append(row)
        return out

    def facts(self) -> list[dict[str, Any]]:
        return [dict(p) for p in self._list]


def drop_body(row: MessageRow) -> None:
    """Keep a row's metadata, not its body or header values (`size` stays the original)."""
    row["size"] = len(row["raw"])
    row["raw"] = b""
    if row["http_headers"]:
        row["http_headers"] = [[name, _VALUE_DROPPED] for name, *_ in row["http_headers"]]
    meta: RowMeta = row["meta"].copy() if row["meta"] else {}
    meta.pop("problem", None)  # a parse problem's text may quote the body
    meta["body"] = BODY_NOT_RECORDED
    row["meta"] = meta


def is_metadata_only(facts: dict[str, Any] | None) -> bool:
    """A session recorded without bodies (its facts say so)."""
    return bool(facts) and facts.get("record") == "metadata"  # type: ignore[union-attr]


def refuse_metadata_only(session: Any, what: str) -> None:
    """InspectorError for a session recorded without bodies, which `what` (replayed, served as a
    mock, exported) needs."""
    if is_metadata_only(getattr(session, "facts", None)):
        from inspector.errors import InspectorError

        raise InspectorError(
            f"session {session.id} was recorded metadata only (no bodies, a per-server rule or"
            f" --metadata-only): it cannot be {what}"
        )
