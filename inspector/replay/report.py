"""`replay` and `diff` for the CLI (and the API): run, compare, print, choose the exit status.
The stored records are read through `store.wire`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
from sqlalchemy import (
    Engine,
)

from inspector.auth.connect import AuthRequest
from inspector.capture.pause import refuse_metadata_only
from inspector.capture.redact import missing_secrets_message
from inspector.errors import InspectorError
from inspector.replay.compared import render_compared, runs_compared
from inspector.replay.diff import (
    DEFAULT_IGNORE,
    PathSet,
    SessionDiff,
    diff_sessions,
    noise_patterns,
    render_text,
)
from inspector.replay.driver import ReplayOutcome, run_replay
from inspector.replay.matching import MatchPolicy
from inspector.store import get_session
from inspector.store.models import Session
from inspector.store.wire import StoredMessages, wire
from inspector.terminal_text import visible, visible_json

__all__ = [
    "EXIT_CHANGED",
    "EXIT_FAILED",
    "EXIT_SAME",
    "Verdict",
    "diff_recorded",
    "replay_and_diff",
    "replay_verdict",
]

EXIT_SAME, EXIT_CHANGED, EXIT_FAILED = 0, 1, 2


def _print(
    engine: Engine,
    diff: SessionDiff,
    a: int,
    b: int,
    json_out: bool,
    extra: dict[str, Any] | None = None,
    verbose: bool = False,
    show_equal: bool = False,
) -> None:
    """The report of the diff of sessions `a` and `b`, opening with the runs-compared summary."""
    summary = runs_compared(engine, diff, a, b)
    if json_out:
        doc = {"summary": summary, **diff.to_json(), **(extra or {})}
        sys.stdout.write(visible_json(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode()) + "\n")
    else:
        text = render_text(diff, verbose=verbose, show_equal=show_equal)
        sys.stdout.write(render_compared(summary, a, b) + "\n\n" + text + "\n")


def _paths(patterns: Sequence[str]) -> PathSet:
    try:
        return PathSet(patterns)
    except ValueError as exc:
        raise InspectorError(f"bad --ignore pattern: {exc}") from None


def diff_recorded(
    engine: Engine,
    ref_a: str,
    ref_b: str,
    *,
    ignore: Sequence[str] = (),
    json_out: bool = False,
    verbose: bool = False,
    strict_volatile: bool = False,
    all_exchanges: bool = False,
) -> int:
    """`mcp-inspect diff`: the counts and the exchanges that differ (or were intervened on), each
    with its `index` in the whole report; `all_exchanges` (`--all`) lists the equal ones too. Only
    what differs is held, so a long session that mostly agrees diffs in flat memory."""
    a, b = get_session(engine, ref_a), get_session(engine, ref_b)
    assert a.id is not None and b.id is not None
    result = diff_sessions(
        StoredMessages(engine, a.id),
        StoredMessages(engine, b.id),
        ignore=_paths([*DEFAULT_IGNORE, *ignore]),
        strict_volatile=strict_volatile,
        keep_equal=all_exchanges,
    )
    _print(engine, result, a.id, b.id, json_out, {"a": a.id, "b": b.id}, verbose, show_equal=all_exchanges)
    return EXIT_CHANGED if result.changed else EXIT_SAME


def _failed(outcome: ReplayOutcome) -> str | None:
    if outcome.error:
        return outcome.error
    if outcome.sent == 0:
        return "the recording has no client messages to replay"
    return None


@dataclass
class Verdict:
    """What a replay found: `problem` when it could not run, else the diff against the recording."""

    original: int
    replay: int
    problem: str | None = None
    diff: SessionDiff | None = None
    noise: list[str] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    unmatched_server_requests: list[str] = field(default_factory=list)
    missing_secrets: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        if self.problem is not None or self.diff is None:
            return EXIT_FAILED
        return EXIT_CHANGED if self.diff.changed or self.timeouts else EXIT_SAME


def replay_verdict(
    engine: Engine,
    original: Session,
    target: Sequence[str] | str,
    *,
    calibrate: bool = False,
    ignore: Sequence[str] = (),
    match: str = "strict",
    headers: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    timeout: float = 30.0,
    strict_volatile: bool = False,
    auth: AuthRequest | None = None,
    say: Callable[[str], None] = lambda text: None,
) -> Verdict:
    """Replay `original` against `target` (twice with `calibrate`) and diff it; prints nothing
    (`say` gets progress lines). Bad patterns or match modes raise InspectorError first."""
    assert original.id is not None
    refuse_metadata_only(original, "replayed")
    _paths([*DEFAULT_IGNORE, *ignore])  # a bad pattern is refused before anything runs
    policy = MatchPolicy.named(match)
    runs = 2 if calibrate else 1
    outcomes: list[ReplayOutcome] = []
    for i in range(runs):
        say(f"replaying session {original.id} ({i + 1}/{runs}) ...")
        outcome = anyio.run(
            lambda: run_replay(
                engine,
                original,
                target,
                timeout=timeout,
                policy=policy,
                headers=headers,
                secrets=secrets,
                auth=auth,
            )
        )
        problem = _failed(outcome)
        if problem:
            return Verdict(
                original.id, outcome.session_id, problem=problem, missing_secrets=outcome.missing_secrets
            )
        outcomes.append(outcome)
    patterns = [*DEFAULT_IGNORE, *ignore]
    noise: list[str] = []
    if calibrate:
        noise = noise_patterns(
            wire(engine, outcomes[0].session_id),
            wire(engine, outcomes[1].session_id),
            ignore=PathSet(patterns),
            skip_volatile=not strict_volatile,
        )
        patterns += noise
    replayed = outcomes[-1]
    result = diff_sessions(
        StoredMessages(engine, original.id),
        StoredMessages(engine, replayed.session_id),
        ignore=PathSet(patterns),
        strict_volatile=strict_volatile,
    )
    return Verdict(
        original.id,
        replayed.session_id,
        diff=result,
        noise=noise,
        timeouts=replayed.timeouts,
        unmatched_server_requests=replayed.unmatched_server_requests,
        missing_secrets=outcomes[0].missing_secrets,
    )


def replay_and_diff(
    engine: Engine,
    ref: str,
    target: Sequence[str] | str,
    *,
    calibrate: bool = False,
    ignore: Sequence[str] = (),
    match: str = "strict",
    headers: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    timeout: float = 30.0,
    json_out: bool = False,
    verbose: bool = False,
    strict_volatile: bool = False,
    auth: AuthRequest | None = None,
) -> int:
    """`mcp-inspect replay`: run `replay_verdict`, print the report, return the exit status."""
    original = get_session(engine, ref)
    verdict = replay_verdict(
        engine,
        original,
        target,
        calibrate=calibrate,
        ignore=ignore,
        match=match,
        headers=headers,
        secrets=secrets,
        timeout=timeout,
        strict_volatile=strict_volatile,
        auth=auth,
        say=lambda text: print(f"[mcp-inspect] {visible(text)}", file=sys.stderr, flush=True),
    )
    if verdict.missing_secrets:
        print(f"[mcp-inspect] warning: {missing_secrets_message(verdict.missing_secrets)}", file=sys.stderr)
    if verdict.problem is not None or verdict.diff is None:
        print(f"[mcp-inspect] the replay could not run: {visible(verdict.problem)}", file=sys.stderr)
        print(
            f"[mcp-inspect] replay of session {verdict.original} recorded as session {verdict.replay}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    extra = {
        "original": verdict.original,
        "replay": verdict.replay,
        "calibration_noise": verdict.noise,
        "timeouts": verdict.timeouts,
        "unmatched_server_requests": verdict.unmatched_server_requests,
    }
    _print(engine, verdict.diff, verdict.original, verdict.replay, json_out, extra, verbose)
    if not json_out:
        if verdict.noise:
            print(
                f"calibration: ignored {len(verdict.noise)} noisy path(s): {visible(', '.join(verdict.noise))}",
                file=sys.stderr,
            )
        print(f"[mcp-inspect] replay recorded as session {verdict.replay}", file=sys.stderr)
    return verdict.exit_status
