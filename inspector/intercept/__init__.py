"""Intercept and fault injection on live connections (sans-IO core).

`match` (which messages), `rules` (what to do, rules files), `engine` (the
`Interceptor` that decides per message). The transports (`wrap`, `proxy`)
apply its decisions; nothing here is imported unless --faults or
--intercept is given.
"""

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
    RulesError,
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
