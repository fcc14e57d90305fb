"""Full-text search on PostgreSQL: a generated tsvector column over the message text, GIN-indexed.

SQLite keeps its FTS5 index (filled lazily before a search: `store.queries`); on PostgreSQL the
index is kept as rows arrive, in the writer's transaction (off the forwarding path), never built in
a request. Both backends find a word the same way: the text is cut into words at every character
that is not a letter or digit (JSON punctuation included: `tools/call` is the words `tools`, `call`)
and compared case-insensitively (`inspector_fts_text` does the cutting and lower-casing, with
Unicode's letters and digits, on both the row and the query). Unlike SQLite's tokenizer it keeps
diacritics (`cafe` does not find `café`: unaccent is an extension a shared server may not allow). Raw bytes that are not UTF-8 (or hold NUL) are indexed from their escaped form, so their
ASCII words are still found; a text too large for a tsvector (over 1 MB of distinct words) is not
indexed rather than refused.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# Which characters are letters and digits (and their lower case) must not depend on the database's
# locale (in the C locale `é` is not alnum, and convert_from's text is "C"): ICU's Unicode tables
# where the server has them (Debian's does), else the C.UTF-8 locale's, else the database's own.
COLLATIONS = ("und-x-icu", "C.utf8", "C.UTF-8")

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION inspector_fts_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT lower(regexp_replace(t{collate}, '[^[:alnum:]]+', ' ', 'g')) $$;

CREATE OR REPLACE FUNCTION inspector_fts_vector(raw bytea) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL UNSAFE
AS $$
BEGIN
    RETURN to_tsvector('simple', inspector_fts_text(convert_from(raw, 'UTF8')));
EXCEPTION WHEN others THEN
    BEGIN
        RETURN to_tsvector('simple', inspector_fts_text(encode(raw, 'escape')));
    EXCEPTION WHEN others THEN
        RETURN NULL;
    END;
END
$$;
"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    bind = op.get_bind()
    found = {
        r[0]
        for r in bind.exec_driver_sql(
            "SELECT collname FROM pg_collation WHERE collname IN ('und-x-icu', 'C.utf8', 'C.UTF-8') "
            "AND collencoding IN (-1, pg_char_to_encoding('UTF8'))"
        )
    }
    collation = next((c for c in COLLATIONS if c in found), None)
    op.execute(FUNCTIONS.replace("{collate}", f' COLLATE "{collation}"' if collation else ""))
    op.execute(
        "ALTER TABLE message ADD COLUMN fts tsvector GENERATED ALWAYS AS (inspector_fts_vector(raw)) STORED"
    )
    op.execute("CREATE INDEX ix_message_fts ON message USING gin (fts)")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP INDEX ix_message_fts")
    op.execute("ALTER TABLE message DROP COLUMN fts")
    op.execute("DROP FUNCTION inspector_fts_vector(bytea)")
    op.execute("DROP FUNCTION inspector_fts_text(text)")
