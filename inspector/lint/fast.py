"""The fast lane of `check.Linter`: the common rows of a session checked without the general walk.

Sans-IO. Most rows of a long session are the same few things once the handshake is over: a
client request, the server's result, a progress or log notification, a stderr line. For each
of them only a few of the eight checks can say anything, and the session's facts do not move.
`FastLane.run` recognises such a row from its stored columns and its parsed body (the same
classification `protocol.jsonrpc.classify` makes, for these shapes only), runs the rules that
can fire on it (the same rule code: `ShapeCheck`'s gate and validators, `IdCheck`'s id
bookkeeping, `CapabilityCheck`) and makes the same state changes the full path would
(`SessionWalk` revisions, `IdCheck`'s pending requests). Any other row, or any row while the
session is not in a settled handshake era, goes to the full path.

The rows it takes (all of them, or the full path is used):
- a row without JSON-RPC (a stderr line, kind `log`/`http` or no bytes) outside HTTP channels;
- outside HTTP (channel not `http-*`, no `meta.exchange`), once the initialize request is
  answered and `notifications/initialized` seen, under a known handshake-era revision:
  a client request (not initialize, no per-request protocol version in `_meta`), a server
  notification, a server result (not to initialize or server/discover).

`tests/unit/test_lint_fast.py` checks that the lane finds exactly what the full path finds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import mcp_types
import orjson
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from pydantic_core import SchemaValidator

from inspector.lint.revision import RowContext
from inspector.lint.shapes import _PARAMS_ONLY, _RESULTS, MEMO_FROM_BYTES, _lean_result, frame_hits
from inspector.protocol import Classified, Kind, ParseStatus
from inspector.protocol.sse import stored_body

if TYPE_CHECKING:
    from inspector.lint.capabilities import CapabilityCheck
    from inspector.lint.lifecycle import IdCheck
    from inspector.lint.revision import SessionWalk
    from inspector.lint.shapes import ShapeCheck

__all__ = ["VALUES", "FastLane"]

# The columns `FastLane.run` reads, first in a row's tuple and in this order (`meta` as JSON text).
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
_UNKNOWN: Any = object()  # a result's lean validator not looked up yet


class FastLane:
    """The common rows of a settled session (see the module's docstring); None: use the full path."""

    def __init__(self, walk: SessionWalk, shapes: ShapeCheck, ids: IdCheck, caps: CapabilityCheck) -> None:
        self._walk = walk
        self._shapes = shapes
        self._ids = ids
        self._caps = caps
        self.taken = 0  # rows this lane checked
        self._caps_of: dict[str, Any] | None = None  # the server capabilities `_cap_hits` holds for
        self._cap_hits: dict[tuple[Kind, str, str], tuple[Hit, ...]] = {}
        self._revision: str | None = _UNSETTLED  # `_settled`'s answer until the next full-path row
        # Per method, while the settled revision (`_planned_for`) and the server capabilities last:
        # `_plan`s of client requests and server notifications, lean validators of results.
        self._planned_for: str | None = _UNSETTLED
        self._requests: dict[str, Any] = {}
        self._notifications: dict[str, Any] = {}
        self._results: dict[Any, SchemaValidator | None] = {}

    def run(
        self,
        rows: Iterable[tuple[Any, ...]],
        full: Callable[[tuple[Any, ...]], None],
        found: Callable[[tuple[Any, ...], str, list[Hit]], None],
        *,
        meta_parsed: bool = False,
    ) -> None:
        """Check `rows` in order: tuples whose first values are `VALUES` (`meta` JSON text, or
        already parsed with `meta_parsed`). A row the lane does not take goes to `full` (the
        general walk, which must call `settle`); a row it takes with rule hits to `found` with its
        revision and hits (a row in a hundred). One loop per page, the state in locals: the
        per-row calls and lookups of a lane row were half of a 100k lint (issue 21)."""
        shapes = self._shapes
        result_hits = shapes.result_hits
        ids = self._ids
        seen, pending_c2s, pending_s2c = ids._seen["c2s"], ids._pending["c2s"], ids._pending["s2c"]
        last_readable = ids._last_readable
        revision_of = self._walk._revision_of
        requests, notifications, results = self._requests, self._notifications, self._results
        loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError  # noqa: N806
        taken = 0
        try:
            for values in rows:
                meta = values[8]
                if meta is not None and not meta_parsed:
                    try:
                        meta = loads(meta)
                    except JSONDecodeError:
                        full(values)  # the full path parses it its own way
                        continue
                channel = values[2]
                if channel in _HTTP_CHANNELS:
                    full(values)
                    continue
                raw = values[3]
                kind = values[5]
                if kind in _NOT_JSONRPC or raw is None:
                    taken += 1  # no message: no rule reads it, nothing is learnt (`SessionWalk`)
                    continue
                if kind == "batch" or (meta is not None and (type(meta) is not dict or "exchange" in meta)):
                    full(values)  # `IdCheck` reads a batch row's flags per item; HTTP exchanges
                    continue
                revision = self._revision
                if revision is _UNSETTLED:
                    revision = self._settled()
                if revision is None:
                    full(values)
                    continue
                if channel == "sse":
                    raw = stored_body(channel, bytes(raw))
                try:
                    value = loads(raw)
                except JSONDecodeError:
                    full(values)
                    continue
                if type(value) is not dict or value.get("jsonrpc") != "2.0":
                    full(values)
                    continue
                raw_id = value.get("id", None)
                method = value.get("method")
                direction = values[1]
                if method is not None:
                    if type(method) is not str or "result" in value or "error" in value:
                        full(values)
                        continue
                    if raw_id is None:
                        # A server notification.
                        if "id" in value or direction != "s2c":
                            full(values)
                            continue
                        plan = notifications.get(method)
                        if plan is None:
                            plan = self._plan("s2c", _NOTIFICATION, method, revision, values[0], value)
                            if plan is None:
                                full(values)  # the first of its kind: the full path works it out
                                continue
                        gate_hits, shaped, params_only, cap = plan
                        hits = list(gate_hits) if gate_hits else _NONE
                        if shaped and (
                            more := _shape_hits(params_only, _NOTIFICATION, method, value, revision, "s2c")
                        ):
                            hits = [*hits, *more]
                        # IdCheck's `_note_sent` for a server message that is no request.
                        last_readable["s2c"] = None
                        answered = values[7]
                        if isinstance(answered, int):
                            pending_c2s.pop(answered, None)
                        if cap:
                            hits = [*hits, *cap]
                        taken += 1
                        if hits:
                            found(values, revision, hits)
                        continue
                    # A client request.
                    if type(raw_id) is not int or direction != "c2s" or method == "initialize":
                        full(values)
                        continue
                    params = value.get("params")
                    if type(params) is dict:
                        pmeta = params.get("_meta")
                        if type(pmeta) is dict and _PV in pmeta:
                            full(values)  # a per-request version: the revision and facts follow it
                            continue
                    plan = requests.get(method)
                    if plan is None:
                        plan = self._plan("c2s", _REQUEST, method, revision, values[0], value)
                        if plan is None:
                            full(values)  # the first of its kind (or a tasks/ method)
                            continue
                    gate_hits, shaped, params_only, cap = plan
                    hits = list(gate_hits) if gate_hits else _NONE
                    if shaped and (
                        more := _shape_hits(params_only, _REQUEST, method, value, revision, "c2s")
                    ):
                        hits = [*hits, *more]
                    # IdCheck, as `_check` and `_note_sent` do for one request (never stateless here).
                    seq = int(values[0])
                    rpc_id = str(raw_id)
                    if rpc_id in seen:
                        hits = [
                            *hits,
                            ("duplicate-request-id", f"id {rpc_id} was already used by an earlier request"),
                        ]
                    seen.add(rpc_id)
                    pending_c2s[seq] = rpc_id
                    last_readable["c2s"] = seq
                    answered = values[7]
                    if isinstance(answered, int):
                        pending_s2c.pop(answered, None)
                    if cap:
                        hits = [*hits, *cap]
                    # SessionWalk.advance: the request's revision (facts: no change without a `_meta` version).
                    revision_of[seq] = revision
                    taken += 1
                    if hits:
                        found(values, revision, hits)
                    continue
                # A server result.
                if type(raw_id) is not int or "result" not in value or "error" in value or direction != "s2c":
                    full(values)
                    continue
                answers, answered_method = values[7], values[6]
                if answered_method in _FACT_ANSWERS:
                    full(values)
                    continue
                if answers is not None and revision_of.get(answers, revision) != revision:
                    full(values)  # answers a request checked under another revision
                    continue
                size = values[4]
                lean = results.get(answered_method, _UNKNOWN) if (size or 0) < MEMO_FROM_BYTES else None
                if lean is _UNKNOWN:
                    lean = results[answered_method] = _lean_result_of(answered_method, revision)
                hits = _NONE
                if lean is not None:
                    try:
                        lean.validate_python(value["result"], by_name=False)
                    except ValidationError:
                        lean = None  # the original decides and words it
                if lean is None and (more := result_hits("s2c", answered_method, revision, size, value)):
                    hits = list(more)
                if meta is not None and "orphan-response" in list(meta.get("flags") or []):
                    hits = [
                        *hits,
                        ("unknown-response-id", f"no request with id {raw_id} is waiting for an answer"),
                    ]
                last_readable["s2c"] = None
                if isinstance(answers, int):
                    pending_c2s.pop(answers, None)
                taken += 1
                if hits:
                    found(values, revision, hits)
        finally:
            self.taken += taken

    def settle(self) -> None:
        """Work out again whether the session is settled (`Linter` calls it after each full-path
        row: only those change the walk's facts)."""
        self._revision = _UNSETTLED

    def _plan(
        self, direction: str, kind: Kind, method: str, revision: str, seq: Any, value: dict[str, Any]
    ) -> Any:
        """What the lane does for a request or notification of `method` under the settled
        `revision`: the gate's hits, whether the frame's shape is checked, its params' validator
        (`shapes._PARAMS_ONLY`) and `CapabilityCheck`'s hits; None until the full path has seen
        one (the gate is then known). Remembered per method while the revision and the server's
        capabilities last (`_settled`)."""
        gate = self._shapes._gates.get((direction, kind, method, revision))
        if gate is None:
            return None
        gate_hits, shaped = gate
        key = (kind, method, revision, direction)
        plan = (
            gate_hits,
            shaped,
            _PARAMS_ONLY.get(key),
            self._capability(seq, direction, kind, method, value, revision),
        )
        if not shaped or key in _PARAMS_ONLY:  # else: asked again until a frame has passed
            (self._requests if kind is _REQUEST else self._notifications)[method] = plan
        return plan

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
            self._forget()
        if revision != self._planned_for:
            self._planned_for = revision
            self._forget()
        self._revision = revision
        return revision

    def _forget(self) -> None:
        """Drop the per-method plans (`_plan`) and result validators: the revision or the server's
        capabilities changed."""
        self._requests.clear()
        self._notifications.clear()
        self._results.clear()

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


def _lean_result_of(method: Any, revision: str) -> SchemaValidator | None:
    """The lean validator of results answering `method` (`shapes._lean_result`), when
    `ShapeCheck.result_hits` would validate them at all."""
    if not method or (method, revision) not in _RESULTS["s2c"]:
        return None
    return _lean_result("s2c", method, revision)


def _shape_hits(
    params_only: SchemaValidator | None,
    kind: Kind,
    method: str,
    value: dict[str, Any],
    revision: str,
    direction: str,
) -> tuple[Hit, ...]:
    """A request's or notification's shape findings: none when its params pass the method's
    params-only validator (the frame then passes as well, `shapes.frame_hits`), else the frame's."""
    if params_only is not None and "params" in value:
        try:
            params_only.validate_python(value["params"], by_name=False)
            return ()
        except ValidationError:
            pass
    return frame_hits(kind, method, value, revision, direction)
