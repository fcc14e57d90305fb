"""Per-revision conformance checks of recorded traffic ("lint").

`check_rows(rows)` is pure: a session's message rows in, `Finding`s out
(no IO; modules per concern: `revision` decides which protocol revision
applies to each message, `shapes` the method gates and wire shapes from
`mcp-types`, `lifecycle` ids / initialization order / batches,
`capabilities` the capability rules, `transport` the Streamable HTTP
headers; `rules` lists every rule with its severity and spec section).
`lint_session(engine, id)` runs it over a stored session and stores the
findings (`stored`, the package's one module that touches the database).
"""

from inspector.lint.check import check_rows
from inspector.lint.findings import SEVERITIES, Finding, Rule, Severity, at_least
from inspector.lint.rules import RULES
from inspector.lint.stored import findings_of, lint_is_stale, lint_session

__all__ = [
    "RULES",
    "SEVERITIES",
    "Finding",
    "Rule",
    "Severity",
    "at_least",
    "check_rows",
    "findings_of",
    "lint_is_stale",
    "lint_session",
]
