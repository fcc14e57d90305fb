"""Semantic diff of two recorded MCP sessions (original vs replay, or any A vs B).

Sans-IO: message records in, a `SessionDiff` out; no database, no clock. By concern:
`model` (the report), `ignore` (the default ignore rules), `tree` (the JSON compare), `records`
(the stored records read as messages), `exchanges` (messages grouped as the recorder paired them),
`compare` (two paired exchanges), `stream` (the streamed diff, `diff_sessions`), `lane` (its twin
shortcut), `noise` (calibration), `render` (the text report).

- An *exchange* is a request (either direction) with its response and the
  notifications the peer linked to it (progress, through the recorder's
  `related_seq`). Other notifications (logs, list changes, client
  notifications), invalid messages and orphan responses are exchanges of
  their own, paired by content wherever they arrive: when a log lands
  inside or after a call is timing, not behaviour.
- Exchanges are aligned by (direction, method, params without ignored paths):
  the k-th identical request of one session pairs with the k-th of the other,
  so JSON-RPC ids and the interleaving of independent messages never matter,
  while the order of identical requests does. Server-to-client requests and
  the handshake (`initialize`, `server/discover`) are aligned by method alone
  and their params compared.
- Inside a pair: responses are diffed (result vs result, error code+message vs
  error code+message); the notifications are a multiset (order-insensitive);
  arrays of objects keyed by `uri`/`uriTemplate`/`name` are aligned by that key
  (order-insensitive), other arrays by index (order-sensitive).
- Volatile values are ignored through a `PathSet` (`DEFAULT_IGNORE`), and
  `noise_patterns` turns the differences between two runs of the same traffic
  into more patterns (calibration, after Diffy's primary/secondary idea).
- A string that changed only in clock-like parts (`replay.volatile`) is a
  *volatile* change: listed, but the sessions count as different for it only
  with `strict_volatile` (Diffy's rule: flag what exceeds the expected noise).
- Each exchange falls in one bucket of the runs-compared summary (`ExchangeDiff.bucket`,
  `SessionDiff.buckets`; `replay.compared` adds the latency): a changed request whose answer
  went from ok to an error, an `isError` result or none is `regressed`, the other way `fixed`;
  other changes are `volatile` or `changed`; `new`, `removed` and `unchanged` follow the status.
"""

from inspector.replay.diff.exchanges import params_view, response_view
from inspector.replay.diff.ignore import DEFAULT_IGNORE, default_ignore
from inspector.replay.diff.model import Change, ExchangeDiff, SessionDiff
from inspector.replay.diff.noise import noise_patterns
from inspector.replay.diff.render import render_text
from inspector.replay.diff.stream import diff_sessions
from inspector.replay.diff.tree import diff_json
from inspector.replay.paths import PathSet

__all__ = [
    "DEFAULT_IGNORE",
    "Change",
    "ExchangeDiff",
    "PathSet",
    "SessionDiff",
    "default_ignore",
    "diff_json",
    "diff_sessions",
    "noise_patterns",
    "params_view",
    "render_text",
    "response_view",
]
