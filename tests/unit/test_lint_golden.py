"""The lint against its golden findings (`tests/lint_golden.py`): recorded sessions under `tests/`
(every rule's case, clean sessions of every revision and transport, the benchmark's generated
session, made-up sessions of every mix) linted again give exactly the findings checked in.

Each rule is seen firing on its bad case, at the offending message, and no rule fires on the clean
sessions. After a deliberate change of what the lint finds, `python -m tests.lint_golden` writes
the files again (review the diff)."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.lint import RULES
from tests.lint_golden import bench_session, findings, load
from tests.unit.test_lint_made_up import every_way
from tests.unit.test_lint_rules import CASES

_RULE_CASES = load("rule_cases")
_CLEAN = load("clean")
_MADE_UP = load("made_up")


def test_every_rule_has_a_golden_case() -> None:
    assert set(_RULE_CASES) == set(CASES) == set(RULES)


@pytest.mark.parametrize("rule_id", sorted(_RULE_CASES))
def test_rule_case_gives_its_golden_findings(rule_id: str) -> None:
    golden = _RULE_CASES[rule_id]
    found = every_way(golden["rows"])
    assert [f.to_json() for f in found] == golden["findings"]
    _rows, seq = CASES[rule_id]()
    assert (rule_id, seq) in {(f.rule, f.seq) for f in found}  # fires on its bad case
    assert golden["rows"] == _normalised(_rows)  # the case is still the one the golden file holds


def _normalised(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as the golden file gives them back (every column, none of them missing)."""
    from tests.lint_golden import _read, _written

    return [_read(_written(dict(r))) for r in rows]


@pytest.mark.parametrize("name", sorted(_CLEAN))
def test_clean_session_has_no_findings(name: str) -> None:
    assert _CLEAN[name]["findings"] == []
    assert every_way(_CLEAN[name]["rows"]) == []  # no rule fires on a good case


def test_clean_sessions_cover_every_revision_and_transport() -> None:
    assert {n.split("-", 1)[0] for n in _CLEAN} == {"stdio", "http", "oauth", "wire"}
    assert sum(len(s["rows"]) for s in _CLEAN.values()) > 100


def test_the_benchmark_session_gives_its_golden_findings() -> None:
    rows = bench_session()["bench-3000"]
    golden = load("bench")["bench-3000"]["findings"]
    assert findings(rows) == golden
    assert {f["rule"] for f in golden} == {"duplicate-request-id", "logging-not-declared"}


@pytest.mark.parametrize("name", sorted(_MADE_UP))
def test_made_up_session_gives_its_golden_findings(name: str) -> None:
    golden = _MADE_UP[name]
    assert [f.to_json() for f in every_way(golden["rows"])] == golden["findings"]


def test_made_up_sessions_see_most_rules_fire() -> None:
    fired = {f["rule"] for s in _MADE_UP.values() for f in s["findings"]}
    assert len(fired) >= 15
