"""From captured bytes to message records, for one session.

No IO: chunks go in, rows with exactly the columns of `store.models.Message`
come out. The builder owns the per-stream line framers, the correlator and
the session facts, and hands out the gap-free per-session `seq`.

Rows are plain dicts, not `Message` instances: building a SQLModel object
costs about 50 us, which the recording path cannot afford at 50,000
messages/s. `ROW_COLUMNS` is checked against the table in the tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.protocol import (
    Classified,
    Correlator,
    Cut,
    Kind,
    LineFramer,
    Pairing,
    ParseStatus,
    SessionFacts,
    classify,
)
from inspector.store.models import ROW_COLUMNS, Channel, Direction, MessageRow

if TYPE_CHECKING:
    from inspector.capture.redact import Redaction
    from inspector.flow import RowMeta

__all__ = ["MessageBuilder", "ROW_COLUMNS"]


_LOG_CHANNELS = frozenset({"stderr"})
_UNPARSED = frozenset({ParseStatus.EMPTY, ParseStatus.INVALID_UTF8, ParseStatus.INVALID_JSON})
_PAIRED_KINDS = frozenset({"request", "response", "error"})
_UNDELIVERED_KEPT = 1000
_OK, _ERROR, _BATCH = ParseStatus.OK, Kind.ERROR, Kind.BATCH  # module-level: `Kind.X` costs ~50 ns a lookup


def _is_n(n: Any) -> bool:
    """An intervention number usable as a key (the transports give ints; anything else is ignored)."""
    return isinstance(n, (int, str)) and not isinstance(n, bool)


class MessageBuilder:
    """Frames, classifies and correlates the traffic of one session into message rows."""

    def __init__(self, session_id: int, max_record_bytes: int | None = None) -> None:
        self.session_id = session_id
        # What a row keeps of one message at most (`storage.max_record_bytes`): a longer line is cut
        # by its framer as it arrives, never held whole (`protocol/framing.py`).
        self.max_record_bytes = max_record_bytes
        self.seq = 0
        self.correlator = Correlator()
        self.facts = SessionFacts()
        self.facts_changed = False
        self.extra_facts: dict[str, Any] = {}  # given by the transport (`Tap.add_facts`)
        self._framers: dict[tuple[Direction, Channel], LineFramer] = {}
        self._exchanges: dict[int, tuple[str, str]] = {}  # HTTP exchange -> its request's (direction, id)
        self._undelivered: dict[Any, MessageRow] = {}  # intervention n -> its original, never delivered
        self.metadata_only = False  # set by the recorder: rows lose their bodies (`capture/pause.py`)
        self.pauses: Any = None  # the recorder's `capture.pause.Pauses` for this session
        self.redaction: Redaction | None = None  # set by the recorder: the session's own rules

    def feed(self, ts_ns: int, direction: Direction, channel: Channel, data: bytes) -> list[MessageRow]:
        """Bytes read from one stream; return the rows for the lines they completed."""
        framer = self._framers.get((direction, channel))
        if framer is None:
            framer = self._framers[(direction, channel)] = LineFramer(self.max_record_bytes)
        line_row = self._line_row
        raws = framer.split(data)
        cuts = framer.cuts
        if cuts is not None:  # a line past the cap (rare): one test a chunk, not a line
            return [
                self.cut_row(ts_ns, direction, channel, raw, cuts[i])
                if i in cuts
                else line_row(ts_ns, direction, channel, raw)
                for i, raw in enumerate(raws)
            ]
        return [line_row(ts_ns, direction, channel, raw) for raw in raws]

    def close_stream(self, ts_ns: int, direction: Direction, channel: Channel) -> list[MessageRow]:
        """End of one stream: a partial last line becomes a row of its own."""
        framer = self._framers.pop((direction, channel), None)
        if framer is None:
            return []
        rows = []
        for line in framer.close():
            if line.cut is not None:
                row = self.cut_row(ts_ns, direction, channel, line.raw, line.cut)
            else:
                row = self._line_row(ts_ns, direction, channel, line.raw, line.body)
            row["meta"] = {
                **(row["meta"] or {}),
                "flags": [*((row["meta"] or {}).get("flags", [])), "no-newline"],
            }
            rows.append(row)
        return rows

    def close_all(self, ts_ns: int) -> list[MessageRow]:
        """End of the session: flush every stream's partial line."""
        rows: list[MessageRow] = []
        for direction, channel in list(self._framers):
            rows.extend(self.close_stream(ts_ns, direction, channel))
        return rows

    def message(
        self,
        ts_ns: int,
        direction: Direction,
        channel: Channel,
        raw: bytes,
        *,
        jsonrpc: bool = True,
        body: bytes | None = None,
        **http: Any,
    ) -> MessageRow:
        """One already-framed message (an HTTP body, an SSE event) with its HTTP metadata.

        `raw` is stored; `body` (default: `raw`) is what is classified, e.g. an SSE
        event's data while `raw` keeps the event's exact bytes. An empty body, or a
        part that carries no JSON-RPC (`jsonrpc=False`, e.g. the legacy `endpoint`
        event), is recorded as kind `http`.
        """
        content = raw if body is None else body
        meta = http.pop("meta", None)
        cut = meta.get("truncated") if meta else None
        if isinstance(cut, Cut):  # the transport kept only the body's first bytes (`framing.Capped`)
            meta = {k: v for k, v in meta.items() if k != "truncated"}
            row = self.cut_row(ts_ns, direction, channel, raw, cut)
        elif content and jsonrpc:
            row = self._line_row(ts_ns, direction, channel, raw, content)
        else:
            self.seq += 1
            status = ParseStatus.OK if raw else ParseStatus.EMPTY
            row = self._row(ts_ns, direction, channel, raw, Classified(status, Kind.HTTP), None)
        if meta:
            row["meta"] = {**(row["meta"] or {}), **meta}
            if "exchange" in meta:
                self._pair_by_exchange(row, meta["exchange"])
            if "intercept" in meta or "injected" in meta:
                self._pair_intervened(row, meta)
        # `http` holds the http_* / sse_event_id columns, by the callers' keyword names.
        row.update(http)  # type: ignore[typeddict-item]
        return row

    def _pair_intervened(self, row: MessageRow, meta: dict[str, Any]) -> None:
        """Pair as the peers saw it when the inspector changed a message (issue 17).

        An original that was not delivered and the copy sent instead share the intervention's `n`:
        an edited request's copy is the one its peer answers (the original stops waiting, so the
        copy is no duplicate id); a replaced response's copy answers the same request as the
        server's own answer did (not an orphan)."""
        mark = meta.get("intercept")
        if isinstance(mark, dict):
            if mark.get("delivered") is False and row["kind"] in _PAIRED_KINDS and _is_n(mark.get("n")):
                self._undelivered[mark["n"]] = row
                if len(self._undelivered) > _UNDELIVERED_KEPT:  # drops have no copy: keep the newest only
                    del self._undelivered[next(iter(self._undelivered))]
            return
        injected = meta.get("injected")
        n = injected.get("n") if isinstance(injected, dict) else None
        original = self._undelivered.pop(n, None) if _is_n(n) else None
        if original is None or original["direction"] != row["direction"]:
            return
        flags = list((row["meta"] or {}).get("flags", []))
        if row["kind"] == "request" and original["kind"] == "request":
            if self.correlator.forget(original["direction"], original["rpc_id"] or "null", original["seq"]):
                flags = [f for f in flags if f != "duplicate-id"]
        elif (
            row["kind"] in ("response", "error")
            and row["answers_seq"] is None
            and original["answers_seq"] is not None
        ):
            asked_ns = original["ts_ns"] - (original["latency_ns"] or 0)
            row["answers_seq"], row["method"] = original["answers_seq"], original["method"]
            row["latency_ns"] = row["ts_ns"] - asked_ns
            flags = [f for f in flags if f != "orphan-response"]
        else:
            return
        rest: RowMeta = row["meta"].copy() if row["meta"] else {}
        rest.pop("flags", None)
        row["meta"] = {**rest, "flags": flags} if flags else rest

    def _pair_by_exchange(self, row: MessageRow, exchange: int) -> None:
        """HTTP ties a response body to its request: use that when the body's id is null."""
        if row["channel"] == "http-request":
            if row["kind"] == "request":
                self._exchanges[exchange] = (row["direction"], row["rpc_id"] or "null")
            return
        request = self._exchanges.pop(exchange, None)
        if (
            request is None
            or row["answers_seq"] is not None
            or row["kind"] != "error"
            or row["rpc_id"] != "null"
        ):
            return
        pairing = self.correlator.answer_out_of_band(request[0], request[1], row["ts_ns"])
        if pairing is None:
            return
        row["answers_seq"], row["latency_ns"], row["method"] = (
            pairing.answers_seq,
            pairing.latency_ns,
            pairing.request_method,
        )
        meta = row["meta"] or {}
        flags = [f for f in meta.get("flags", []) if f != "orphan-response"]
        row["meta"] = {**meta, "flags": [*flags, "paired-by-http-exchange"]}

    def cut_row(self, ts_ns: int, direction: Direction, channel: Channel, raw: bytes, cut: Cut) -> MessageRow:
        """A message longer than the cap: its first bytes (`raw`), its size and digest; parse status
        `truncated`, kind `invalid` (a log line stays `log`). It is not parsed (a prefix of JSON is
        not JSON), so it pairs with nothing: its request stays unanswered in the record."""
        self.seq += 1
        kind = Kind.LOG if channel in _LOG_CHANNELS else Kind.INVALID
        problem = f"{cut.size:,} bytes: only the first {len(raw):,} were recorded (max_record_bytes)"
        meta: RowMeta = {"truncated": cut.meta(len(raw)), "problem": problem}
        row = self._row(ts_ns, direction, channel, raw, Classified(ParseStatus.TRUNCATED, kind), meta)
        row["size"] = cut.size  # the message's size, as for a body stored out of line
        return row

    def _line_row(
        self, ts_ns: int, direction: Direction, channel: Channel, raw: bytes, body: bytes | None = None
    ) -> MessageRow:
        """One row for one message; `body` None: `raw` is a complete line, its terminator included."""
        self.seq += 1
        if channel in _LOG_CHANNELS:
            return self._row(ts_ns, direction, channel, raw, Classified(ParseStatus.OK, Kind.LOG), None)
        if body is None:
            # A line's terminator is JSON whitespace: parse it as it is, without copying the body out.
            # What does not parse is classified again without it, for the exact same problem text.
            msg = classify(raw)
            if msg.parse_status in _UNPARSED:
                msg = classify(raw[: -2 if raw.endswith(b"\r\n") else -1])
        else:
            msg = classify(body)
        meta: RowMeta | None = None
        pairing = None
        if msg.parse_status is _OK or msg.kind is _ERROR or msg.kind is _BATCH:
            pairing = self.correlator.observe(self.seq, ts_ns, direction, msg)
            if self.facts.observe(direction, msg, pairing):
                self.facts_changed = True
            meta = pairing.to_meta() or None
        if raw.endswith(b"\r\n") and channel in ("stdin", "stdout"):
            meta = {**(meta or {}), "crlf": True}
        if msg.problem:
            meta = {**(meta or {}), "problem": msg.problem}
        return self._row(ts_ns, direction, channel, raw, msg, meta, pairing)

    def _row(
        self,
        ts_ns: int,
        direction: Direction,
        channel: Channel,
        raw: bytes,
        msg: Classified,
        meta: RowMeta | None,
        pairing: Pairing | None = None,
    ) -> MessageRow:
        if pairing is None:
            method, answers_seq, latency_ns = msg.method, None, None
        else:
            # A response carries the method of the request it answers, so filtering by method finds both.
            method = msg.method if msg.method is not None else pairing.request_method
            answers_seq, latency_ns = pairing.answers_seq, pairing.latency_ns
        return {
            "session_id": self.session_id,
            "seq": self.seq,
            "ts_ns": ts_ns,
            "direction": direction,
            "channel": channel,
            "raw": raw,
            "size": len(raw),
            # `_value_`, not `.value`: the enum property costs about 0.5 us a row, twice.
            "parse_status": msg.parse_status._value_,
            "kind": msg.kind._value_,
            "method": method,
            "rpc_id": msg.rpc_id,
            "error_code": msg.error_code,
            "answers_seq": answers_seq,
            "latency_ns": latency_ns,
            "http_method": None,
            "http_path": None,
            "http_status": None,
            "http_headers": None,
            "sse_event_id": None,
            "meta": meta,
            "lint": None,
        }
