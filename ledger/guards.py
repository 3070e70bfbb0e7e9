"""The statement guard on every projection table (migration 0006).

Each registered projection's tables get one statement-level trigger,
`ledger_follows_append`, that refuses a change outside an append's
transaction to every role but the tables' owner. It is installed after each
`migrate` (the `post_migrate` signal, as the owner runs it) rather than by a
migration per app, so a projection added later is guarded by being
registered. `ledger_account` and `ledger_stream` keep their stricter guard
from migration 0004 (only the insert triggers or a rebuild change them).
"""

from __future__ import annotations

from django.db import connections

from . import projections

TRIGGER = "ledger_follows_append"
# Guarded more strictly by migration 0004.
LEDGER_PROJECTIONS = frozenset({"ledger_account", "ledger_stream"})


def guarded_tables() -> list[str]:
    return [t for t in projections.projection_tables() if t not in LEDGER_PROJECTIONS]


def install(using: str = "default") -> list[str]:
    """(Re)create the guard on every projection table that exists; return them."""
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regprocedure('ledger_projection_follows_append()') IS NOT NULL")
        if not cursor.fetchone()[0]:
            return []  # migrated backwards past 0006
        cursor.execute("SELECT relname FROM pg_class WHERE relkind IN ('r', 'p')"
                       " AND relnamespace = current_schema()::regnamespace"
                       " AND relname = ANY(%s)", [guarded_tables()])
        existing = sorted(row[0] for row in cursor.fetchall())
        for table in existing:
            cursor.execute(
                f'CREATE OR REPLACE TRIGGER {TRIGGER}'
                f' BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "{table}"'
                " FOR EACH STATEMENT EXECUTE FUNCTION ledger_projection_follows_append()")
    return existing


def install_after_migrate(sender, using: str = "default", **kwargs) -> None:
    install(using)
