"""Many recorders starting at once on a fresh PostgreSQL database all open it.

Bug: each ran the schema creation (`CREATE TABLE IF NOT EXISTS ...`) at the same time; in
PostgreSQL those race in the catalog ("duplicate key value violates unique constraint
pg_type_typname_nsp_index"), and the losers' `wrap` exited with "cannot open the recording
database". Schema creation and upgrades now take a transaction-level advisory lock.
Real PostgreSQL cluster; real connections from threads released together by a barrier.
"""

from __future__ import annotations

import threading

from inspector.store import open_engine
from tests.postgres import PgCluster


def test_twenty_engines_opening_a_fresh_database_at_once_all_succeed(pg_cluster: PgCluster) -> None:
    errors: list[BaseException] = []
    for _round in range(4):
        url = pg_cluster.new_database("race")
        barrier = threading.Barrier(20)

        def open_one(url: str = url, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                open_engine(url).dispose()
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors[0]
        assert (
            pg_cluster.psql("SELECT count(*) FROM schema_info", dbname=url.rsplit("/", 1)[1]).strip() == "1"
        )
