"""Balances nothing can forge: the rows the writer decides with follow the log.

The writer reads `ledger_account` (balance, type, currency, the maximum and
may-not-go-negative rules) and `ledger_stream` (versions) to decide about
money. Until now a Python projection wrote them, so any role with UPDATE on
the table could raise a balance and the writer would pay it out (issue 13,
point 8). From here on:

* The insert triggers on the log maintain both tables, in the same statement
  as the insert: `ledger_event_appended` opens accounts from
  `ledger.account_opened` events and moves stream versions;
  `ledger_postings_inserted` adds each statement's postings to the balances
  (the CHECK constraints of L4 then refuse an overdraft at insert time). Both
  are SECURITY DEFINER, so they run as the tables' owner whoever inserts.
* A statement-level guard on both tables refuses INSERT, UPDATE, DELETE and
  TRUNCATE unless `ledger_trusted_change` says the change comes from those
  triggers (trigger depth > 1) or from a rebuild (the transaction-local
  setting `ledger.rebuilding`, which `ledger.rebuild` sets), and in both
  cases only while running as the owner or a role holding its privileges.
  A runtime role that is not the owner gets nothing from either: its own
  trigger runs as itself, and so does its own `SET ledger.rebuilding`.

What this does not stop, said plainly: the owner and superusers. They can set
`ledger.rebuilding` (it is an ordinary setting) or switch triggers off
(`session_replication_role = replica`) and write anything. Least privilege
(the runtime role is not the owner) is what keeps those powers away from the
application; `verify_ledger`, which recomputes every balance from the
postings and compares every projection with a rebuild, is what catches their
use. The functions pin their search_path, so a role that can create objects
cannot shadow a table or function they call.
"""

from django.db import migrations

FORWARD = r"""
-- Who may change a row the writer decides with (see the module docstring).
CREATE FUNCTION ledger_trusted_change(relid oid) RETURNS boolean
    LANGUAGE sql STABLE AS $$
    SELECT (pg_trigger_depth() > 1
            OR coalesce(current_setting('ledger.rebuilding', true), '') = 'on')
        AND pg_has_role(current_user,
                        (SELECT relowner FROM pg_class WHERE oid = relid), 'USAGE')
$$;

CREATE FUNCTION ledger_projection_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF ledger_trusted_change(TG_RELID) THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'ledger: % on % is refused; it follows the log', TG_OP, TG_TABLE_NAME
        USING HINT = 'Append an event; manage.py rebuild_projections recomputes the table.';
END;
$$;
CREATE TRIGGER ledger_account_follows_log
    BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON ledger_account
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_projection_guard();
CREATE TRIGGER ledger_stream_follows_log
    BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON ledger_stream
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_projection_guard();

-- The head moves only from the event insert trigger, which runs as the owner.
CREATE OR REPLACE FUNCTION ledger_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND pg_trigger_depth() > 1
            AND pg_has_role(current_user,
                            (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE') THEN
        RETURN NEW;  -- moved by ledger_event_appended, never directly
    END IF;
    RAISE EXCEPTION 'ledger: % on ledger_head is forbidden; it follows the log', TG_OP;
END;
$$;

-- L2 as in 0003, then the projections the writer reads: stream versions and
-- the accounts opened by this statement's events.
CREATE OR REPLACE FUNCTION ledger_event_appended() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    head_position bigint;
    head_hash text;
    first_position bigint;
    last_position bigint;
    inserted bigint;
BEGIN
    SELECT min(position), max(position), count(*)
        INTO first_position, last_position, inserted FROM new_events;
    IF inserted = 0 THEN
        RETURN NULL;
    END IF;
    SELECT position, hash INTO head_position, head_hash
        FROM ledger_head WHERE id = 1 FOR UPDATE;
    IF first_position <> head_position + 1
            OR last_position - first_position + 1 <> inserted THEN
        RAISE EXCEPTION 'ledger: positions % to % do not continue the log after %',
            first_position, last_position, head_position;
    END IF;
    IF EXISTS (
        SELECT 1 FROM (
            SELECT position, prev_hash,
                   lag(hash, 1, head_hash) OVER (ORDER BY position) AS previous_hash
            FROM new_events
        ) AS linked
        WHERE linked.prev_hash IS DISTINCT FROM linked.previous_hash
    ) THEN
        RAISE EXCEPTION 'ledger: prev_hash does not link to the previous event';
    END IF;
    UPDATE ledger_head
        SET position = last_position,
            hash = (SELECT hash FROM new_events WHERE position = last_position)
        WHERE id = 1;
    -- L6's index: each stream's version is its newest event's.
    INSERT INTO ledger_stream (name, version, last_position)
        SELECT stream, max(version), max(position) FROM new_events GROUP BY stream
        ON CONFLICT (name) DO UPDATE
            SET version = EXCLUDED.version, last_position = EXCLUDED.last_position;
    -- An account exists, with its rules, because an event opened it.
    INSERT INTO ledger_account (code, type, currency, name, must_not_go_negative,
            balance_max_minor, balance_minor, opened_position, last_position)
        SELECT payload->>'code', payload->>'type', payload->>'currency',
               coalesce(payload->>'name', ''),
               (payload->>'must_not_go_negative')::boolean,
               (payload->>'balance_max_minor')::bigint, 0, position, position
        FROM new_events WHERE type = 'ledger.account_opened'
        ORDER BY position;
    RETURN NULL;
END;
$$;

-- L3 and L5 as in 0002, then L4's running balances: each account moves by
-- its postings in this statement, in its natural direction (debit-normal
-- asset and expense accounts count debits up). The CHECK constraints on
-- ledger_account refuse an overdraft or a balance over the maximum here.
CREATE OR REPLACE FUNCTION ledger_postings_inserted() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM new_postings
        GROUP BY event_id, currency HAVING sum(amount_minor) <> 0
    ) THEN
        RAISE EXCEPTION 'ledger: postings of an event do not sum to zero per currency';
    END IF;
    IF EXISTS (
        SELECT 1 FROM new_postings AS p
        WHERE NOT EXISTS (SELECT 1 FROM ledger_event AS e WHERE e.position = p.event_id)
    ) THEN
        RAISE EXCEPTION 'ledger: postings refer to an event that does not exist';
    END IF;
    IF EXISTS (
        SELECT 1 FROM new_postings AS p
        WHERE NOT EXISTS (
            SELECT 1 FROM ledger_account AS a
            WHERE a.code = p.account_id AND a.currency = p.currency
        )
    ) THEN
        RAISE EXCEPTION 'ledger: a posting names an unknown account or the wrong currency';
    END IF;
    UPDATE ledger_account AS a
        SET balance_minor = a.balance_minor
                + CASE WHEN a.type IN ('asset', 'expense') THEN d.debit_minor
                       ELSE -d.debit_minor END,
            last_position = d.last_position
        FROM (
            SELECT account_id, sum(amount_minor) AS debit_minor,
                   max(event_id) AS last_position
            FROM new_postings GROUP BY account_id
        ) AS d
        WHERE a.code = d.account_id;
    RETURN NULL;
END;
$$;

-- A function that runs as the owner, or decides who may write, resolves
-- names in the migration's schema only: nothing a caller puts earlier on
-- its search_path (or in pg_temp) can stand in for a table or a function.
DO $$
DECLARE
    signature text;
BEGIN
    FOREACH signature IN ARRAY ARRAY[
        'ledger_trusted_change(oid)', 'ledger_projection_guard()', 'ledger_head_guard()',
        'ledger_event_appended()', 'ledger_postings_inserted()'
    ] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       signature, current_schema());
    END LOOP;
END;
$$;
"""

BACKWARD = r"""
CREATE OR REPLACE FUNCTION ledger_postings_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM new_postings
        GROUP BY event_id, currency HAVING sum(amount_minor) <> 0
    ) THEN
        RAISE EXCEPTION 'ledger: postings of an event do not sum to zero per currency';
    END IF;
    IF EXISTS (
        SELECT 1 FROM new_postings AS p
        WHERE NOT EXISTS (SELECT 1 FROM ledger_event AS e WHERE e.position = p.event_id)
    ) THEN
        RAISE EXCEPTION 'ledger: postings refer to an event that does not exist';
    END IF;
    IF EXISTS (
        SELECT 1 FROM new_postings AS p
        WHERE NOT EXISTS (
            SELECT 1 FROM ledger_account AS a
            WHERE a.code = p.account_id AND a.currency = p.currency
        )
    ) THEN
        RAISE EXCEPTION 'ledger: a posting names an unknown account or the wrong currency';
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION ledger_event_appended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    head_position bigint;
    head_hash text;
    first_position bigint;
    last_position bigint;
    inserted bigint;
BEGIN
    SELECT min(position), max(position), count(*)
        INTO first_position, last_position, inserted FROM new_events;
    IF inserted = 0 THEN
        RETURN NULL;
    END IF;
    SELECT position, hash INTO head_position, head_hash
        FROM ledger_head WHERE id = 1 FOR UPDATE;
    IF first_position <> head_position + 1
            OR last_position - first_position + 1 <> inserted THEN
        RAISE EXCEPTION 'ledger: positions % to % do not continue the log after %',
            first_position, last_position, head_position;
    END IF;
    IF EXISTS (
        SELECT 1 FROM (
            SELECT position, prev_hash,
                   lag(hash, 1, head_hash) OVER (ORDER BY position) AS previous_hash
            FROM new_events
        ) AS linked
        WHERE linked.prev_hash IS DISTINCT FROM linked.previous_hash
    ) THEN
        RAISE EXCEPTION 'ledger: prev_hash does not link to the previous event';
    END IF;
    UPDATE ledger_head
        SET position = last_position,
            hash = (SELECT hash FROM new_events WHERE position = last_position)
        WHERE id = 1;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION ledger_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND pg_trigger_depth() > 1 THEN
        RETURN NEW;  -- moved by ledger_event_appended, never directly
    END IF;
    RAISE EXCEPTION 'ledger: % on ledger_head is forbidden; it follows the log', TG_OP;
END;
$$;

DROP TRIGGER ledger_stream_follows_log ON ledger_stream;
DROP TRIGGER ledger_account_follows_log ON ledger_account;
DROP FUNCTION ledger_projection_guard();
DROP FUNCTION ledger_trusted_change(oid);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_linear_chain_check")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
