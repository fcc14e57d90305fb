"""Parameter types of the API whose values reach SQL: integers the database can hold, and dates.

Every integer in a path, a query or a JSON body that ends up in a query
(session ids, seqs, offsets, cursors) is a `SqlInt`: 0 to 2^63-1, the range
of the store's 64-bit columns (`store.SQL_INT_MAX`). A bigger one cannot even
be bound to a statement, so it is refused here, as a 422 naming the parameter
and its maximum, before any route runs. A well-formed id that is not in the
database stays a 404. Dates filter `started_ns`, nanoseconds since the epoch
in the same 64-bit range (the years 1677 to 2262): `epoch_ns` clamps a date
outside it to the range's end, which is what it means for such a filter.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import Field

from inspector.store import SQL_INT_MAX

__all__ = ["SqlInt", "epoch_ns"]

SqlInt = Annotated[int, Field(ge=0, le=SQL_INT_MAX)]

# Inside the nanosecond range by a margin of days, so that any time zone offset stays inside too.
_EARLIEST, _LATEST = datetime(1678, 1, 2), datetime(2261, 12, 31)


def epoch_ns(when: datetime | None) -> int | None:
    """Nanoseconds since the epoch; a naive date is local time (as `datetime.timestamp` reads it)."""
    if when is None:
        return None
    earliest, latest = (
        (_EARLIEST, _LATEST)
        if when.tzinfo is None
        else (_EARLIEST.replace(tzinfo=UTC), _LATEST.replace(tzinfo=UTC))
    )
    return int(min(max(when, earliest), latest).timestamp() * 1e9)
