"""What `proxy --faults/--intercept` builds: an intercept addon deciding only when a rule can act."""

from __future__ import annotations

import yaml

from inspector.intercept import Interceptor, parse_rules
from inspector.intercept.proxy import describe, proxy_addon


def _interceptor(rules: str, breakpoints: bool = False) -> Interceptor:
    return Interceptor(parse_rules(yaml.safe_load(rules)), seed=3, breakpoints=breakpoints)


DISABLED = "rules:\n  - {name: unused, match: {}, action: drop, enabled: false}\n"
PAUSE = "rules:\n  - {name: hold, match: {}, action: pause}\n"
DELAY = "rules:\n  - {name: slow, match: {}, action: delay, ms: 5}\n"


def test_no_rule_that_can_act_means_the_plain_proxy_with_the_facts() -> None:
    assert proxy_addon(_interceptor(DISABLED), intercept=False).decides is False
    assert proxy_addon(_interceptor(PAUSE), intercept=False).decides is False  # pauses need --intercept
    assert describe(_interceptor(PAUSE)) == (
        "[mcp-inspect] no rule is active (1 in the file): forwarding as a plain proxy"
    )


def test_an_active_rule_or_intercept_means_the_intercepting_proxy() -> None:
    assert proxy_addon(_interceptor(DELAY), intercept=False).decides is True
    assert proxy_addon(_interceptor(PAUSE, breakpoints=True), intercept=True).decides is True
    assert proxy_addon(_interceptor(DISABLED), intercept=True).decides is True  # rules may be added live
    assert describe(_interceptor(DELAY)) == "[mcp-inspect] intercepting with seed 3: 1 rule: slow"
