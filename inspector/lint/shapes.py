"""Checks of each message on its own: parse status, method gate and wire shape for its revision.

Sans-IO. The method gates and the per-version wire models are `mcp-types`'
(`mcp_types.methods` surface maps and validators); nothing here restates a
schema. `mcp-types` validates every pre-2026 revision against the 2025-11-25
shapes (its models ignore unknown fields), so shape findings before
2025-11-25 are about fields that revision also requires.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import orjson
from mcp_types import methods
from mcp_types.jsonrpc import ErrorData
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator

from inspector.lint import skills as _skills
from inspector.lint.lean import lean_validator
from inspector.lint.revision import RowContext
from inspector.protocol import Classified, Kind, ParseStatus, SessionFacts, method_allowed
from inspector.protocol.mcp_tables import EXTENSION_CLIENT_REQUESTS

__all__ = ["CACHEABLE", "REMOVED_2026", "TASKS_EXTENSION", "ShapeCheck", "describe_errors", "frame_hits"]

# Methods 2026-07-28 removed (changelog, major change 5 and minor change 11): reported as removed.
REMOVED_2026 = frozenset(
    {"ping", "logging/setLevel", "notifications/roots/list_changed", "notifications/elicitation/complete"}
)
# Results that carry the CacheableResult hints from 2026-07-28 (server/utilities/caching).
CACHEABLE = frozenset(
    {"tools/list", "prompts/list", "resources/list", "resources/read", "resources/templates/list"}
)
_CACHE_FIELDS = ("ttlMs", "cacheScope")
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

Hit = tuple[str, str]

_REQUESTS = {"c2s": methods.CLIENT_REQUESTS, "s2c": methods.SERVER_REQUESTS}
_NOTIFICATIONS = {"c2s": methods.CLIENT_NOTIFICATIONS, "s2c": methods.SERVER_NOTIFICATIONS}
_RESULTS = {"s2c": methods.SERVER_RESULTS, "c2s": methods.CLIENT_RESULTS}


@cache
def _result_adapter(direction: str, method: str, revision: str) -> SchemaValidator:
    """The validator of one result shape. What `mcp_types.methods.validate_server_result` checks,
    without the dump it makes after validating (a sixth of a 100k-message lint, issue 21), nor
    `TypeAdapter.validate_python`'s Python wrapper."""
    return TypeAdapter(_RESULTS[direction][(method, revision)]).validator  # type: ignore[arg-type, return-value]


@cache
def _lean_result(direction: str, method: str, revision: str) -> SchemaValidator | None:
    """The lean first pass of `_result_adapter`'s shape (`lint.lean`): a `tools/call` result in
    2.2 us instead of 6-9 us (its content union tried left to right, no model instances)."""
    return lean_validator(TypeAdapter(_RESULTS[direction][(method, revision)]).core_schema)  # type: ignore[arg-type]


@cache
def _lean_model(model: Any) -> SchemaValidator | None:
    """The lean first pass of a frame or params model (`lint.lean`)."""
    return lean_validator(model.__pydantic_core_schema__)


_SIDE = {"c2s": "client-to-server", "s2c": "server-to-client"}
_KNOWN = {
    direction: {m for table in (_REQUESTS[direction], _NOTIFICATIONS[direction]) for m, _ in table}
    for direction in ("c2s", "s2c")
}


def describe_errors(exc: ValidationError, limit: int = 3, skip: list[Any] | None = None) -> str:
    """Pydantic's errors as `path: message` parts, at most `limit` of them (`skip`: errors told elsewhere)."""
    errors = [e for e in exc.errors() if not skip or e not in skip]
    parts = []
    for err in errors[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "(message)"
        parts.append(f"{where}: {err['msg']}")
    more = len(errors) - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def _versions_with(method: str, direction: str) -> list[str]:
    tables = (_REQUESTS[direction], _NOTIFICATIONS[direction])
    return [v for v in KNOWN_PROTOCOL_VERSIONS if any((method, v) in t for t in tables)]


def _is_cache_hint(method: str, error: Any) -> bool:
    loc: tuple[Any, ...] = tuple(error.get("loc") or ())
    return (
        method in CACHEABLE and len(loc) == 1 and loc[0] in _CACHE_FIELDS and error.get("type") == "missing"
    )


def _declares_tasks(facts: SessionFacts) -> bool:
    caps = facts.server_capabilities
    extensions = caps.get("extensions") if isinstance(caps, dict) else None
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions


MEMO_FROM_BYTES = 512  # results whose message is at least this long are validated once per body
MEMO_SIZE = 256  # distinct large results remembered (oldest forgotten first)
_OK = ParseStatus.OK
_MALFORMED = frozenset({ParseStatus.INVALID_JSON, ParseStatus.INVALID_UTF8, ParseStatus.EMPTY})
_Gate = tuple[tuple[Hit, ...], bool]  # the gate's hits, and whether the frame's shape is checked


def _truncated(row: Any) -> bool:
    """The record kept only the message's first bytes: they do not parse, the message may well."""
    meta = row.get("meta")
    return row.get("parse_status") == "truncated" or (isinstance(meta, dict) and "truncated" in meta)


class ShapeCheck:
    """Parse status, method gate and schema shape of each message."""

    def __init__(self) -> None:
        # (direction, kind, method, revision) -> the method gate's verdict: the same for every
        # message of a kind and method (a 100k-message session has a few dozen), issue 21.
        self._gates: dict[tuple[str, Kind, str, str | None], _Gate] = {}
        # (direction, method, revision) of a result -> its lean validator (`_result_shape`).
        self._result_shapes: dict[tuple[str, str | None, str | None], Any] = {}
        # (direction, method, revision, result bytes) -> its hits, for results of MEMO_FROM_BYTES
        # or more: a session repeats its large answers (tools/list, resources/read of one file), and
        # validating one is far dearer than serialising it. The findings are still per message.
        self._results: dict[tuple[str, str, str, bytes], tuple[Hit, ...]] = {}

    def check(self, ctx: RowContext) -> Iterator[Hit]:
        msg = ctx.msg
        if msg is None:
            return
        status = msg.parse_status
        if status in _MALFORMED:
            if _truncated(ctx.row):  # only its first bytes were recorded (max_record_bytes)
                return
            yield "malformed-json", msg.problem or status.value
            return
        if status is ParseStatus.NOT_JSONRPC and msg.kind is not Kind.BATCH:
            yield "invalid-jsonrpc", msg.problem or "not JSON-RPC"
            return
        for item in ctx.items:
            yield from self._item(ctx, item)

    def _item(self, ctx: RowContext, item: Classified) -> Iterator[Hit]:
        if item.parse_status is not _OK:
            yield "invalid-jsonrpc", f"batch item: {item.problem}"
            return
        kind = item.kind
        if kind is Kind.REQUEST or kind is Kind.NOTIFICATION:
            assert item.method is not None
            yield from self.message_hits(
                ctx.direction, kind, item.method, ctx.revision, ctx.facts, item.payload
            )
        elif kind is Kind.RESPONSE:
            yield from self._result(ctx, item)
        elif kind is Kind.ERROR:
            error = item.payload.get("error") if isinstance(item.payload, dict) else None
            try:
                ErrorData.model_validate(error)
            except ValidationError as exc:
                yield "invalid-shape", f"error object: {describe_errors(exc)}"

    def message_hits(
        self, direction: str, kind: Kind, method: str, revision: str | None, facts: SessionFacts, payload: Any
    ) -> tuple[Hit, ...]:
        """The findings of a request or notification (`kind`) of `method`: its method gate's and,
        when the gate lets it through, its frame's shape."""
        hits, shaped = self.gate(direction, kind, method, revision, facts)
        if not shaped:
            return hits
        assert revision is not None and not hits  # a gate with hits checks no shape
        return frame_hits(kind, method, payload, revision, direction)

    def gate(
        self, direction: str, kind: Kind, method: str, revision: str | None, facts: SessionFacts
    ) -> _Gate:
        """The method gate's hits for a request or notification (`kind`) of `method`, and whether
        its frame's shape is then checked (`frame_hits`): the same for every message of a kind,
        method and revision (but the tasks extension's methods, which the server's capabilities
        decide)."""
        key = (direction, kind, method, revision)
        gate = self._gates.get(key)
        if gate is None:
            gate = self._gate(direction, kind, method, revision, facts)
            if not method.startswith("tasks/"):  # these depend on the declared extension
                self._gates[key] = gate
        return gate

    @staticmethod
    def _gate(direction: str, kind: Kind, method: str, revision: str | None, facts: SessionFacts) -> _Gate:
        """Whether the method may be sent this way in this revision (the hits when not), and
        whether its frame's shape is then checked."""
        if method in EXTENSION_CLIENT_REQUESTS:  # SEP-2640 Skills: shapes in `lint.skills`
            if direction == "s2c":
                return (
                    (
                        "method-not-in-revision",
                        f"{method} is a client-to-server request of {EXTENSION_CLIENT_REQUESTS[method]}; "
                        "it was sent server-to-client",
                    ),
                ), False
            if kind is not Kind.REQUEST:
                return (("invalid-shape", f"{method} is a request; it was sent without an id"),), False
            return (), True
        if method not in _KNOWN[direction]:
            other = "s2c" if direction == "c2s" else "c2s"
            if method.startswith("tasks/") and _declares_tasks(facts):
                return (), False  # a method of the tasks extension the server declared: not MCP core
            if method in _KNOWN[other]:
                return (
                    (
                        "method-not-in-revision",
                        f"{method} is a {_SIDE[other]} {kind.value} in every revision; "
                        f"it was sent {_SIDE[direction]}",
                    ),
                ), False
            return (("unknown-method", f"{method} is not a method of any known MCP revision"),), False
        if revision not in KNOWN_PROTOCOL_VERSIONS:
            return (), False
        if method_allowed(method, revision, direction) is False:
            if method in REMOVED_2026 and revision >= "2026-07-28":
                return (
                    ("method-removed", f"{method} was removed in 2026-07-28 ({revision} is checked)"),
                ), False
            known = ", ".join(_versions_with(method, direction))
            return (
                (
                    "method-not-in-revision",
                    f"{method} is not a {_SIDE[direction]} {kind.value} in {revision} (it is in {known})",
                ),
            ), False
        table = _REQUESTS[direction] if kind is Kind.REQUEST else _NOTIFICATIONS[direction]
        if (method, revision) not in table:  # a notification sent with an id, or a request without
            meant, sent = ("notification", "with") if kind is Kind.REQUEST else ("request", "without")
            return (
                ("invalid-shape", f"{method} ({revision}) is a {meant}; it was sent {sent} an id"),
            ), False
        return (), True

    def _result(self, ctx: RowContext, item: Classified) -> Iterator[Hit]:
        if ctx.msg is not None and ctx.msg.kind is Kind.BATCH:
            return  # a batch's responses each answer their own request; the row names only the first
        method = ctx.row.get("method")
        yield from self.result_hits(ctx.direction, method, ctx.revision, ctx.row.get("size"), item.payload)

    def result_hits(
        self, direction: str, method: str | None, revision: str | None, size: int | None, payload: Any
    ) -> tuple[Hit, ...]:
        """The shape findings of a result answering `method` (the row's `method` column), and a
        `tools/list` result's size findings (`lint/sizes.py`)."""
        if method in EXTENSION_CLIENT_REQUESTS and direction == "s2c":
            return _skills.result_hits(
                method, revision, payload.get("result") if isinstance(payload, dict) else None
            )
        if method == "tools/list" and direction == "s2c":
            from inspector.lint.sizes import tools_list_hits

            result = payload.get("result") if isinstance(payload, dict) else None
            return self._shape_hits(direction, method, revision, size, payload) + tools_list_hits(result)
        return self._shape_hits(direction, method, revision, size, payload)

    def _shape_hits(
        self, direction: str, method: str | None, revision: str | None, size: int | None, payload: Any
    ) -> tuple[Hit, ...]:
        key = (direction, method, revision)
        lean = self._result_shapes.get(key, _NOT_LOOKED_UP)
        if lean is _NOT_LOOKED_UP:
            lean = self._result_shapes[key] = _result_shape(direction, method, revision)
        if lean is _NOT_CHECKED:
            return ()
        assert method is not None and revision is not None
        result = payload.get("result") if isinstance(payload, dict) else None
        if (size or 0) < MEMO_FROM_BYTES:
            if lean is not None:  # the common answer: passed by the lean validator, nothing to word
                try:
                    lean.validate_python(result, by_name=False)
                    return ()
                except ValidationError:
                    pass
            return _result_hits(direction, method, revision, result)
        try:
            body = orjson.dumps(result)
        except TypeError:  # an integer beyond 64 bits: validated, not remembered
            return _result_hits(direction, method, revision, result)
        memo_key = (direction, method, revision, body)
        hits = self._results.get(memo_key)
        if hits is None:
            hits = _result_hits(direction, method, revision, result)
            if len(self._results) >= MEMO_SIZE:
                del self._results[next(iter(self._results))]  # the oldest body
            self._results[memo_key] = hits
        return hits


# (kind, method, revision, direction) -> the validator of the frame's params alone, once a frame of
# that key has passed (its fixed fields, the same in every frame of the key, are then valid) and
# its model validates nothing beyond its fields (`_params_only`); None: always the whole frame.
# Bounded by the methods of the known revisions.
_PARAMS_ONLY: dict[tuple[Kind, str, str, str], SchemaValidator | None] = {}
_FRAME_FIELDS = frozenset({"jsonrpc", "method", "id", "params"})


def frame_hits(kind: Kind, method: str, payload: Any, revision: str, direction: str) -> tuple[Hit, ...]:
    """The shape findings of a request or notification whose method passed the gate."""
    if method in EXTENSION_CLIENT_REQUESTS:
        return _skills.params_hits(method, payload)
    key = (kind, method, revision, direction)
    params_only = _PARAMS_ONLY.get(key)
    if params_only is not None and type(payload) is dict and "params" in payload:
        try:
            params_only.validate_python(payload["params"], by_name=False)
            return ()  # the frame passes as well (`_params_only`)
        except ValidationError:
            pass  # the whole frame's validation words the finding
    table = _REQUESTS[direction] if kind is Kind.REQUEST else _NOTIFICATIONS[direction]
    model = table[(method, revision)]
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if kind is Kind.REQUEST:
        body["id"] = 0  # the id was checked by classification; the model checks the rest
    if isinstance(payload, dict) and "params" in payload:
        body["params"] = payload["params"]
    if not _passes(_lean_model(model), body):
        try:
            # The model's own validator: what `model_validate` calls, without its Python wrapper.
            model.__pydantic_validator__.validate_python(body, by_name=False)
        except ValidationError as exc:
            return (("invalid-shape", f"{method} ({revision}): {describe_errors(exc)}"),)
    if key not in _PARAMS_ONLY:
        _PARAMS_ONLY[key] = _params_only(model)
    return ()


def _params_only(model: Any) -> SchemaValidator | None:
    """The validator of `model`'s params, when validating them alone decides the whole frame: its
    fields are the frame's (the others, fixed per method, proven valid by a frame that passed),
    `params` is a plain model field (no constraints, not optional), and the frame model has no
    validators of its own. Else None."""
    decorators = model.__pydantic_decorators__
    if (
        decorators.model_validators
        or decorators.field_validators
        or decorators.validators
        or decorators.root_validators
        or getattr(model, "__pydantic_post_init__", None)
        or not set(model.model_fields) <= _FRAME_FIELDS
    ):
        return None
    field = model.model_fields.get("params")
    if field is None or field.metadata or not field.is_required():
        return None
    annotation = field.annotation
    if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return None
    # The lean one when there is one: its pass is the params model's pass; a failure goes to the
    # whole frame's validation, which decides.
    return _lean_model(annotation) or annotation.__pydantic_validator__  # type: ignore[return-value]


def _passes(lean: SchemaValidator | None, value: Any) -> bool:
    """Whether the lean validator passes `value` (then the original does too); False: ask the original."""
    if lean is None:
        return False
    try:
        lean.validate_python(value, by_name=False)
    except ValidationError:
        return False
    return True


_NOT_CHECKED: Any = object()  # `_result_shape`: results answering this method are not validated
_NOT_LOOKED_UP: Any = object()


def _result_shape(direction: str, method: str | None, revision: str | None) -> SchemaValidator | None:
    """The lean validator of results answering `method` in `revision` (None: only the original
    decides), or `_NOT_CHECKED` when such results are not validated: no method, an unknown
    revision, or a method without a result in that revision (its request's gate finding covers it)."""
    if not method or revision not in KNOWN_PROTOCOL_VERSIONS or (method, revision) not in _RESULTS[direction]:
        not_checked: SchemaValidator | None = _NOT_CHECKED
        return not_checked
    assert revision is not None
    return _lean_result(direction, method, revision)


def _result_hits(direction: str, method: str, revision: str, result: Any) -> tuple[Hit, ...]:
    """The shape findings of one result."""
    if _passes(_lean_result(direction, method, revision), result):
        return ()
    try:
        # None on purpose: a response without an object result fails validation (a finding).
        _result_adapter(direction, method, revision).validate_python(result, by_name=False)
    except ValidationError as exc:
        hits: list[Hit] = []
        cache = [e for e in exc.errors() if _is_cache_hint(method, e)]
        if cache:  # the cache hints are their own rule: one finding, not two
            named = ", ".join(str(e["loc"][0]) for e in cache)
            hits.append(("cache-hints-missing", f"result of {method} ({revision}) without {named}"))
        if len(cache) < exc.error_count():
            hits.append(
                ("invalid-shape", f"result of {method} ({revision}): {describe_errors(exc, skip=cache)}")
            )
        return tuple(hits)
    return ()
