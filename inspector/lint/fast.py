"""The fast lane of `check.Linter`: the common rows of a session checked without the general walk.

Sans-IO. Most rows of a long session are the same few things once the handshake is over: a
client request, the server's result, a progress or log notification, a stderr line. For each
of them only a few of the eight checks can say anything, and the session's facts do not move.
`FastLane.feed` recognises such a row from its stored columns and its parsed body (the same
classification `protocol.jsonrpc.classify` makes, for these shapes only), runs the rules that
can fire on it (the same rule code: `ShapeCheck`'s gate and validators, `IdCheck`'s id
bookkeeping, `CapabilityCheck`) and makes the same state changes the full path would
(`SessionWalk` revisions, `IdCheck`'s pending requests). Any other row, or any row while the
session is not in a settled handshake era, returns None: the full path checks it.

The rows it takes (all of them, or the full path is used):
- a row without JSON-RPC (a stderr line, kind `log`/`http` or no bytes) outside HTTP channels;
- outside HTTP (channel not `http-*`, no `meta.exchange`), once the initialize request is
  answered and `notifications/initialized` seen, under a known handshake-era revision:
  a client request (not initialize, no per-request protocol version in `_meta`), a server
  notification, a server result (not to initialize or server/discover).

`tests/unit/test_lint_fast.py` checks that the lane finds exactly what the full path finds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types
import orjson
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from inspector.lint.revision import RowContext
from inspector.lint.shapes import frame_hits
from inspector.protocol import Classified, Kind, ParseStatus
from inspector.protocol.sse import stored_body
from inspector.store.models import StoredRow

if TYPE_CHECKING:
    from inspector.lint.capabilities import CapabilityCheck
    from inspector.lint.lifecycle import IdCheck
    from inspector.lint.revision import SessionWalk
    from inspector.lint.shapes import ShapeCheck

__all__ = ["VALUES", "FastLane"]

# The columns `FastLane.take` reads, first in a row's tuple and in this order (`meta` as JSON text).
VALUES = ("seq", "direction", "channel", "raw", "size", "kind", "method", "answers_seq", "meta")

Hit = tuple[str, str]

_PV = mcp_types.PROTOCOL_VERSION_META_KEY
_HTTP_CHANNELS = frozenset({"http-request", "http-response"})
_NOT_JSONRPC = frozenset({"http", "log"})
_SETTLED = frozenset(KNOWN_PROTOCOL_VERSIONS) - frozenset(MODERN_PROTOCOL_VERSIONS)
_OK, _REQUEST, _NOTIFICATION, _RESPONSE = ParseStatus.OK, Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE
# Answers that change the session's facts (`SessionFacts.observe`): the full path takes them.
_FACT_ANSWERS = frozenset({"initialize", "server/discover"})
_NONE: list[Any] = []  # no findings (never appended to)
_UNSETTLED = "(not worked out)"  # `FastLane._revision` before `_settled` runs


class FastLane:
    """The common rows of a settled session (see the module's docstring); None: use the full path."""

    def __init__(self, walk: SessionWalk, shapes: ShapeCheck, ids: IdCheck, caps: CapabilityCheck) -> None:
        self._walk = walk
        self._shapes = shapes
        self._ids = ids
        self._caps = caps
        self.taken = 0  # rows this lane checked (`check.Linter.feed` counts them)
        self._caps_of: dict[str, Any] | None = None  # the server capabilities `_cap_hits` holds for
        self._cap_hits: dict[tuple[Kind, str, str], tuple[Hit, ...]] = {}
        self._revision: str | None = _UNSETTLED  # `_settled`'s answer until the next full-path row

    def hits(self, row: StoredRow) -> tuple[StoredRow, str, list[Hit]] | list[Any] | None:
        """The row, its revision and its rule hits; `[]` for a row nothing applies to; None: not
        for this lane (nothing was changed)."""
        done = self._take(tuple(row.get(n) for n in VALUES), row.get("meta"))
        if type(done) is tuple:
            return row, done[0], done[1]
        return done  # type: ignore[return-value]  # [] or None

    def take(self, values: tuple[Any, ...]) -> tuple[str, list[Hit]] | list[Any] | None:
        """`hits` for a row as the store's cursor gives it: a tuple whose first values are
        `VALUES` (the `meta` column still JSON text). The revision and the rule hits; `[]` for a
        row nothing applies to; None: not for this lane (nothing was changed)."""
        meta = values[8]
        if meta is not None:
            try:
                meta = orjson.loads(meta)
            except orjson.JSONDecodeError:
                return None  # the full path parses it its own way
        return self._take(values, meta)

    def settle(self) -> None:
        """Work out again whether the session is settled (`Linter` calls it after each full-path
        row: only those change the walk's facts)."""
        self._revision = _UNSETTLED

    def _settled(self) -> str | None:
        """The settled handshake-era revision, or None (the lane takes nothing then)."""
        walk = self._walk
        facts = walk.facts
        revision = None
        if facts.era == "handshake" and walk.init_answered and facts.initialized:
            found = facts.protocol_version or facts.offered_version
            revision = found if found in _SETTLED else None
        if facts.server_capabilities is not self._caps_of:  # the memo `_cap_hits` holds for these only
            self._caps_of = facts.server_capabilities
            self._cap_hits.clear()
        self._revision = revision
        return revision

    def _take(self, values: tuple[Any, ...], meta: Any) -> tuple[str, list[Hit]] | list[Any] | None:
        """The lane's work on a row's `VALUES` (`meta` parsed)."""
        channel = values[2]
        if channel in _HTTP_CHANNELS:
            return None
        raw = values[3]
        kind = values[5]
        if kind in _NOT_JSONRPC or raw is None:
            return _NONE  # no message: no rule reads it, nothing is learnt (see `SessionWalk`)
        if kind == "batch":
            return None  # `IdCheck` reads a batch row's flags per item
        if meta is not None and (type(meta) is not dict or "exchange" in meta):
            return None
        revision = self._revision
        if revision is _UNSETTLED:
            revision = self._settled()
        if revision is None:
            return None
        if channel == "sse":
            raw = stored_body(channel, bytes(raw))
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        if type(value) is not dict or value.get("jsonrpc") != "2.0":
            return None
        raw_id = value.get("id", None)
        method = value.get("method")
        direction = values[1]
        if method is not None:
            if type(method) is not str or "result" in value or "error" in value:
                return None
            if raw_id is None:
                if "id" in value or direction != "s2c":
                    return None
                return self._notification(values[0], values[7], method, value, revision)
            if type(raw_id) is not int or direction != "c2s" or method == "initialize":
                return None
            return self._request(values[0], values[7], method, str(raw_id), value, revision)
        if type(raw_id) is not int or "result" not in value or "error" in value or direction != "s2c":
            return None
        return self._result(values[7], values[6], values[4], str(raw_id), value, revision, meta)

    def _request(
        self, seq: Any, answered: Any, method: str, rpc_id: str, value: dict[str, Any], revision: str
    ) -> Any:
        params = value.get("params")
        meta = params.get("_meta") if type(params) is dict else None
        if type(meta) is dict and _PV in meta:
            return None  # a per-request version: the full path (revision and facts follow it)
        gate = self._shapes._gates.get(("c2s", _REQUEST, method, revision))
        if gate is None:
            return None  # the first of its kind (or a tasks/ method): the full path works it out
        gate_hits, shaped = gate
        hits: list[Hit] = list(gate_hits) if gate_hits else []
        if shaped and (found := frame_hits(_REQUEST, method, value, revision, "c2s")):
            hits.extend(found)
        # IdCheck, as `_check` and `_note_sent` do for one request (never stateless here).
        seq = int(seq)
        ids = self._ids
        seen = ids._seen["c2s"]
        if rpc_id in seen:
            hits.append(("duplicate-request-id", f"id {rpc_id} was already used by an earlier request"))
        seen.add(rpc_id)
        ids._pending["c2s"][seq] = rpc_id
        ids._last_readable["c2s"] = seq
        if isinstance(answered, int):
            ids._pending["s2c"].pop(answered, None)
        if cap := self._capability(seq, "c2s", _REQUEST, method, value, revision):
            hits.extend(cap)
        # SessionWalk.advance: the request's revision (facts: no change without a `_meta` version).
        self._walk._revision_of[seq] = revision
        return revision, hits

    def _notification(
        self, seq: Any, answered: Any, method: str, value: dict[str, Any], revision: str
    ) -> Any:
        gate = self._shapes._gates.get(("s2c", _NOTIFICATION, method, revision))
        if gate is None:
            return None
        gate_hits, shaped = gate
        hits: list[Hit] = list(gate_hits) if gate_hits else []
        if shaped and (found := frame_hits(_NOTIFICATION, method, value, revision, "s2c")):
            hits.extend(found)
        self._sent_by_server(answered)
        if cap := self._capability(seq, "s2c", _NOTIFICATION, method, value, revision):
            hits.extend(cap)
        return revision, hits

    def _capability(
        self, seq: Any, direction: str, kind: Kind, method: str, value: dict[str, Any], revision: str
    ) -> tuple[Hit, ...]:
        """`CapabilityCheck`'s hits for a client request or a server notification: they depend on
        the method, the revision and the server's capabilities only (remembered while those last)."""
        key = (kind, method, revision)
        found = self._cap_hits.get(key)
        if found is None:
            item = Classified(_OK, kind, method, None, None, value)
            row: Any = {"seq": seq, "direction": direction}  # all `RowContext` reads of a row
            ctx = RowContext(row, item, revision, self._walk.facts, True, None, [item])
            if kind is _REQUEST:
                found = tuple(self._caps._client_request(ctx, item))
            else:
                found = tuple(self._caps._notification(ctx, item))
            self._cap_hits[key] = found
        return found

    def _result(
        self,
        answers: Any,
        method: Any,
        size: Any,
        rpc_id: str,
        value: dict[str, Any],
        revision: str,
        meta: dict[str, Any] | None,
    ) -> Any:
        if method in _FACT_ANSWERS:
            return None
        if answers is not None and self._walk._revision_of.get(answers, revision) != revision:
            return None  # answers a request checked under another revision
        found = self._shapes.result_hits("s2c", method, revision, size, value)
        hits: list[Hit] = list(found) if found else []
        flags = list(meta.get("flags") or []) if meta is not None else []
        if "orphan-response" in flags:
            hits.append(("unknown-response-id", f"no request with id {rpc_id} is waiting for an answer"))
        self._sent_by_server(answers)
        return revision, hits

    def _sent_by_server(self, answered: Any) -> None:
        """IdCheck's `_note_sent` for a server message that is no request."""
        ids = self._ids
        ids._last_readable["s2c"] = None
        if isinstance(answered, int):
            ids._pending["c2s"].pop(answered, None)
