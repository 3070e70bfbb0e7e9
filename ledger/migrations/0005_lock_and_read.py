"""The writer's lock and its reads in one round trip.

The writer takes the head row's lock, then reads the idempotency keys,
stream versions and accounts of its group. The reads must be a statement of
their own, after the lock: under READ COMMITTED a statement sees the
snapshot from when it started, so reads folded into the locking statement
would miss what the previous lock holder committed while this one waited.
A VOLATILE function gets a fresh snapshot for each statement it runs, so
`ledger_lock_and_read` keeps the two statements apart and still costs the
caller one round trip (one statement in every write's budget).
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_lock_and_read(keys text[], streams text[], accounts text[])
RETURNS TABLE (head_position bigint, head_hash text, now_at timestamptz,
               key_rows json, stream_rows json, account_rows json)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    SELECT h.position, h.hash, now() INTO head_position, head_hash, now_at
        FROM ledger_head h WHERE h.id = 1 FOR UPDATE;
    -- A new statement, so a new snapshot: it sees every commit made before
    -- the lock was granted.
    SELECT
        (SELECT json_agg(json_build_array(i.key, i.fingerprint, i.first_position,
                                          i.last_position))
           FROM ledger_idempotency i WHERE i.key = ANY(keys)),
        (SELECT json_agg(json_build_array(s.name, s.version))
           FROM ledger_stream s WHERE s.name = ANY(streams)),
        (SELECT json_agg(json_build_array(a.code, a.type, a.currency, a.must_not_go_negative,
                                          a.balance_max_minor, a.balance_minor))
           FROM ledger_account a WHERE a.code = ANY(accounts))
    INTO key_rows, stream_rows, account_rows;
    RETURN NEXT;
END;
$$;

DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_lock_and_read(text[], text[], text[])'
                   ' SET search_path = pg_catalog, %I, pg_temp', current_schema());
END;
$$;
"""

BACKWARD = "DROP FUNCTION ledger_lock_and_read(text[], text[], text[]);"


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_projections_follow_the_log")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
