"""The diff's report: `Change`s inside `ExchangeDiff`s inside a `SessionDiff` (its JSON round-trips)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Change:
    """One difference at one path: `changed`, `added` (only in the replay) or `removed`.

    `volatile`: a string that changed only in clock-like parts (times, dates, UUIDs, numbers
    inside equal words; see `replay.volatile`); shown, but not a behaviour change by default."""

    path: str
    kind: str
    before: Any
    after: Any
    volatile: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "before": self.before,
            "after": self.after,
            "volatile": self.volatile,
        }


@dataclass
class ExchangeDiff:
    """One exchange: `equal`, `changed`, `missing` (original only) or `extra` (replay only)."""

    status: str
    method: str
    summary: str
    original_seq: int | None
    replay_seq: int | None
    changes: list[Change]
    direction: str = "c2s"
    # What the inspector did to this exchange's messages when it was recorded (issue 17), e.g.
    # "dropped by rule slow (not delivered)": the client saw that, the server did not do it.
    interventions: list[str] = field(default_factory=list)
    # Its place in the whole report (equal exchanges included, whether listed or only counted): a
    # stable handle for a report that lists only what differs, or one page of it.
    index: int = -1
    # A changed request whose answer went from ok to failing ("regressed": an error, an `isError`
    # result, no answer) or back ("fixed"); None otherwise (`compare._health`).
    health: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "status": self.status,
            "bucket": self.bucket,
            "method": self.method,
            "summary": self.summary,
            "direction": self.direction,
            "original_seq": self.original_seq,
            "replay_seq": self.replay_seq,
            "changes": [c.to_json() for c in self.changes],
            "interventions": list(self.interventions),
        }

    @property
    def volatile_only(self) -> bool:
        """Changed, but only in volatile values."""
        return self.status == "changed" and all(c.volatile for c in self.changes)

    @property
    def bucket(self) -> str:
        """Its bucket in the runs-compared summary (`BUCKETS`): `new` (only in b), `removed` (only
        in a), `unchanged` (equal), and of the changed: `regressed` / `fixed` (`health`), else
        `volatile` (only volatile values differ), else `changed`."""
        if self.status != "changed":
            return _BUCKET_OF[self.status]
        return self.health or ("volatile" if self.volatile_only else "changed")


_STATUSES = ("equal", "changed", "missing", "extra")
# The runs-compared summary's buckets, in the order reports show them.
BUCKETS = ("regressed", "fixed", "new", "removed", "changed", "volatile", "unchanged")
_BUCKET_OF = {"equal": "unchanged", "missing": "removed", "extra": "new"}


@dataclass
class SessionDiff:
    """The diff of two sessions, exchange by exchange, in the original's order."""

    exchanges: list[ExchangeDiff]
    ignored: list[str]
    strict_volatile: bool = False  # volatile values count as changes too
    # Exchanges per status when `exchanges` leaves out equal ones (`diff_sessions(keep_equal=False)`).
    totals: dict[str, int] | None = field(default=None, compare=False)
    # What `exchanges` holds: "all" of them, or the "differing" ones (and those intervened on).
    listed: str = "all"

    @property
    def changed(self) -> bool:
        """True when behaviour changed (the CLI's exit status 1); volatile values only when strict."""
        return any(
            x.status != "equal" and (self.strict_volatile or not x.volatile_only) for x in self.exchanges
        )

    @property
    def exit_status(self) -> int:
        return 1 if self.changed else 0

    def counts(self) -> dict[str, int]:
        """Exchanges per status, every status present."""
        if self.totals is not None:
            return dict(self.totals)
        found = Counter(x.status for x in self.exchanges)
        return {**{s: found[s] for s in _STATUSES}, "volatile": sum(x.volatile_only for x in self.exchanges)}

    def buckets(self) -> dict[str, int]:
        """Exchanges per bucket (`BUCKETS`, every one present). Only equal exchanges may be left
        unlisted (`listed` "differing"): those are counted from `counts`."""
        found = Counter(x.bucket for x in self.exchanges if x.status != "equal")
        return {**{b: found[b] for b in BUCKETS}, "unchanged": self.counts()["equal"]}

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the `--json` report)."""
        return self.to_json_page(0, len(self.exchanges))

    def to_json_page(self, start: int, end: int) -> dict[str, Any]:
        """`to_json` listing only `exchanges[start:end]` (a page of the API's report)."""
        return {
            "changed": self.changed,
            "counts": self.counts(),
            "ignored": list(self.ignored),
            "strict_volatile": self.strict_volatile,
            "listed": self.listed,
            "exchanges": [x.to_json() for x in self.exchanges[start:end]],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionDiff:
        """Read back what `to_json` wrote."""
        return cls(
            exchanges=[
                ExchangeDiff(
                    status=x["status"],
                    method=x["method"],
                    summary=x["summary"],
                    original_seq=x["original_seq"],
                    replay_seq=x["replay_seq"],
                    changes=[
                        Change(c["path"], c["kind"], c["before"], c["after"], c.get("volatile", False))
                        for c in x["changes"]
                    ],
                    direction=x.get("direction", "c2s"),
                    interventions=list(x.get("interventions") or []),
                    index=int(x.get("index", -1)),
                    health=x["bucket"] if x.get("bucket") in ("regressed", "fixed") else None,
                )
                for x in data["exchanges"]
            ],
            ignored=list(data["ignored"]),
            strict_volatile=bool(data.get("strict_volatile", False)),
            totals=dict(data["counts"]) if data.get("listed") == "differing" else None,
            listed=str(data.get("listed", "all")),
        )
