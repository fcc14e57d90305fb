"""Intercept and fault injection on live connections: a feature over the transports.

The sans-IO core: `match` (which messages), `rules` (what to do, rules files),
`engine` (the `Interceptor` that decides per message), `commands` (what the
control channel's requests do to an interceptor). Its edges to the outside:
`addon` (the interceptor as an `inspector.flow` addon: the plain stdio shim
of `wrap` and the mock server's stdio hook apply its verdicts), `wrap`
(`wrap --faults/--intercept`: builds the interceptor and runs the shim with
the addon), `proxy` (the same addon over the plain `transports.http_proxy.HttpProxy`,
whose verdicts `transports.http_intervene` does in HTTP terms). The control channel's IO (its
listener, announcements and clients) is `inspector.control`, below this
package. The transports import nothing of this package. Nothing here is
imported unless --faults or --intercept is given.
"""

from inspector.errors import RulesError
from inspector.intercept.engine import (
    CloseStream,
    Decision,
    Deliver,
    Disconnect,
    Drip,
    Effect,
    Hold,
    HttpError,
    Interceptor,
    Intervention,
    Pending,
    Reply,
)
from inspector.intercept.match import KINDS, Match, Seen, Tracker, compile_where
from inspector.intercept.rules import (
    ACTIONS,
    HTTP_ONLY_ACTIONS,
    ErrorSpec,
    Rule,
    RuleSet,
    check_transport,
    load_rules,
    parse_rules,
)

__all__ = [
    "ACTIONS",
    "HTTP_ONLY_ACTIONS",
    "KINDS",
    "CloseStream",
    "Decision",
    "Deliver",
    "Disconnect",
    "Drip",
    "Effect",
    "ErrorSpec",
    "Hold",
    "HttpError",
    "Interceptor",
    "Intervention",
    "Match",
    "Pending",
    "Reply",
    "Rule",
    "RuleSet",
    "RulesError",
    "Seen",
    "Tracker",
    "check_transport",
    "compile_where",
    "load_rules",
    "parse_rules",
]
