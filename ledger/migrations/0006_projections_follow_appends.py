"""Every projection follows the log: no change outside an append (issue 13, point 8).

Migration 0004 put the two tables the writer decides with (`ledger_account`,
`ledger_stream`) under the insert triggers. The apps' projections are the
other rows commands decide with: a player's self-exclusion and limits, the
day's loss and cash counters, open alerts, hand, round and tournament
snapshots. Python writes them, in the append's transaction, so they cannot
be computed by a trigger; what a trigger can say is *when* they may change:

* `ledger_head.xid` records the transaction that last moved the head. The
  event insert trigger (running as the owner) sets it, in the same UPDATE
  that moves the head, to `pg_current_xact_id()`, the top-level
  transaction's id even inside a savepoint.
* `ledger_in_append()` is true while the current transaction is the one that
  moved the head: the writer holds the head's row lock until it commits, so
  no other transaction can move it in between. An xid8 is never reused.
* `ledger_projection_follows_append()` refuses INSERT, UPDATE, DELETE and
  TRUNCATE on a projection table outside such a transaction, except for the
  tables' owner (migrations, `rebuild_projections`, fixtures), as the issue
  asks. The ledger app installs it on every registered projection's tables
  after each migrate (`ledger.guards`), so a new projection is guarded
  without a migration of its own.

So the runtime role can no longer clear `self_excluded_until` or a loss
counter with an UPDATE of its own; it changes them only by appending the
event that says so. What remains, said plainly: a session of the runtime
role that appends *some* event may, in that same transaction, write a
projection row that event does not justify. `verify_ledger` names that row:
it rebuilds every projection into a scratch schema and compares.
"""

import importlib

from django.db import migrations

_0004 = importlib.import_module("ledger.migrations.0004_projections_follow_the_log")

HEAD_UPDATE = """    UPDATE ledger_head
        SET position = last_position,
            hash = (SELECT hash FROM new_events WHERE position = last_position)
        WHERE id = 1;"""
HEAD_UPDATE_WITH_XID = """    UPDATE ledger_head
        SET position = last_position,
            hash = (SELECT hash FROM new_events WHERE position = last_position),
            xid = pg_current_xact_id()
        WHERE id = 1;"""


def _event_appended(forward: str) -> str:
    """0004's `ledger_event_appended`, with the head UPDATE given."""
    start = forward.index("CREATE OR REPLACE FUNCTION ledger_event_appended()")
    end = forward.index("$$;", forward.index("AS $$", start) + 5) + 3
    function = forward[start:end]
    assert function.count(HEAD_UPDATE) == 1, "0004's head update changed"
    return function


EVENT_APPENDED = _event_appended(_0004.FORWARD)

FORWARD = f"""
ALTER TABLE ledger_head ADD COLUMN xid xid8;

{EVENT_APPENDED.replace(HEAD_UPDATE, HEAD_UPDATE_WITH_XID)}

CREATE FUNCTION ledger_in_append() RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER AS $$
    SELECT coalesce(xid = pg_current_xact_id_if_assigned(), false)
    FROM ledger_head WHERE id = 1
$$;

CREATE FUNCTION ledger_projection_follows_append() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF ledger_in_append()
            OR pg_has_role(current_user,
                           (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'ledger: % on % is refused outside an append; it follows the log',
        TG_OP, TG_TABLE_NAME
        USING HINT = 'Append the event that changes it; manage.py rebuild_projections'
                     ' (as the owner) recomputes the table.';
END;
$$;

DO $$
DECLARE
    signature text;
BEGIN
    FOREACH signature IN ARRAY ARRAY[
        'ledger_event_appended()', 'ledger_in_append()', 'ledger_projection_follows_append()'
    ] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       signature, current_schema());
    END LOOP;
END;
$$;
"""

BACKWARD = f"""
DO $$
DECLARE
    guarded record;
BEGIN
    FOR guarded IN SELECT tgrelid::regclass AS relation FROM pg_trigger
            WHERE tgname = 'ledger_follows_append' LOOP
        EXECUTE format('DROP TRIGGER ledger_follows_append ON %s', guarded.relation);
    END LOOP;
END;
$$;
DROP FUNCTION ledger_projection_follows_append();
DROP FUNCTION ledger_in_append();
{EVENT_APPENDED}
ALTER TABLE ledger_head DROP COLUMN xid;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0005_lock_and_read")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
