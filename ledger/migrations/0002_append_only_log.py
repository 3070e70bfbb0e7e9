"""PostgreSQL's half of the ledger's guarantees (see ledger/__init__.py).

Written as plain SQL rather than with django-pgtrigger on purpose: every
pgtrigger trigger begins with a check of the session setting
`pgtrigger.ignore`, which any connection may set, so it cannot forbid a
change "for every role". These triggers have no such switch; only a superuser
disabling triggers outright gets past them, and verify_ledger catches that.
"""

from django.db import migrations

GENESIS_HASH = "0" * 64

FORWARD = f"""
-- L1: the log is append-only. Statement-level BEFORE triggers fire even when
-- no row matches, so `UPDATE ledger_event SET ... WHERE false` fails too.
CREATE FUNCTION ledger_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger: % on % is forbidden; the ledger is append-only',
        TG_OP, TG_TABLE_NAME
        USING HINT = 'Record a compensating event instead.';
END;
$$;

CREATE TRIGGER ledger_event_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON ledger_event
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();
CREATE TRIGGER ledger_posting_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON ledger_posting
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();
CREATE TRIGGER ledger_idempotency_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON ledger_idempotency
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();

-- The head row exists once and moves only with the log (L2).
INSERT INTO ledger_head (id, position, hash) VALUES (1, 0, '{GENESIS_HASH}');

CREATE FUNCTION ledger_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND pg_trigger_depth() > 1 THEN
        RETURN NEW;  -- moved by ledger_event_appended, never directly
    END IF;
    RAISE EXCEPTION 'ledger: % on ledger_head is forbidden; it follows the log', TG_OP;
END;
$$;
CREATE TRIGGER ledger_head_guard_rows
    BEFORE INSERT OR UPDATE OR DELETE ON ledger_head
    FOR EACH ROW EXECUTE FUNCTION ledger_head_guard();
CREATE TRIGGER ledger_head_guard_truncate
    BEFORE TRUNCATE ON ledger_head
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_head_guard();

-- L2 and the chain's links: each insert must continue the log exactly where
-- the head is, with no gap, each prev_hash naming its predecessor's hash.
CREATE FUNCTION ledger_event_appended() RETURNS trigger LANGUAGE plpgsql AS $$
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
        SELECT 1 FROM new_events AS e
        LEFT JOIN new_events AS p ON p.position = e.position - 1
        WHERE e.prev_hash IS DISTINCT FROM
            CASE WHEN e.position = first_position THEN head_hash ELSE p.hash END
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
CREATE TRIGGER ledger_event_appended
    AFTER INSERT ON ledger_event
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_event_appended();

-- L3 and L5: the postings inserted for each event sum to zero per currency,
-- belong to an event that exists, and name an account in its own currency.
-- One set-based check per statement replaces row-by-row foreign keys, which
-- cost about a third of a batch append's time in deferred checks at commit.
CREATE FUNCTION ledger_postings_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER ledger_postings_inserted
    AFTER INSERT ON ledger_posting
    REFERENCING NEW TABLE AS new_postings
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_postings_inserted();
"""

BACKWARD = """
DROP TRIGGER ledger_postings_inserted ON ledger_posting;
DROP FUNCTION ledger_postings_inserted();
DROP TRIGGER ledger_event_appended ON ledger_event;
DROP FUNCTION ledger_event_appended();
DROP TRIGGER ledger_head_guard_truncate ON ledger_head;
DROP TRIGGER ledger_head_guard_rows ON ledger_head;
DROP FUNCTION ledger_head_guard();
DROP TRIGGER ledger_idempotency_append_only ON ledger_idempotency;
DROP TRIGGER ledger_posting_append_only ON ledger_posting;
DROP TRIGGER ledger_event_append_only ON ledger_event;
DROP FUNCTION ledger_reject_change();
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
