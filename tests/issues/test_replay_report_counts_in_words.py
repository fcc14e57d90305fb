"""The replay/diff report says "1 exchange", not "1 exchanges".

What was wrong: `replay` of a one-request session printed "1 exchanges: 1 equal, ...", and the
lines about volatile-only changes and intervened exchanges had the same fault. Each count now
takes the singular or plural its number needs.
"""

from __future__ import annotations

from inspector.replay.diff import ExchangeDiff, SessionDiff, render_text


def _report(n: int, *, intervened: bool = False) -> list[str]:
    notes = ["dropped by rule slow (not delivered)"] if intervened else []
    xs = [ExchangeDiff("equal", "ping", "ping", i, i, [], interventions=notes) for i in range(1, n + 1)]
    return render_text(SessionDiff(xs, [])).splitlines()


def test_one_exchange_is_singular() -> None:
    assert _report(1)[0] == "1 exchange: 1 equal, 0 changed, 0 missing, 0 extra"
    assert _report(2)[0] == "2 exchanges: 2 equal, 0 changed, 0 missing, 0 extra"
    assert _report(0)[0] == "0 exchanges: 0 equal, 0 changed, 0 missing, 0 extra"


def test_intervened_line_is_singular_for_one() -> None:
    assert _report(1, intervened=True)[1].startswith("1 exchange was intervened on when recorded:")
    assert _report(2, intervened=True)[1].startswith("2 exchanges were intervened on when recorded:")
