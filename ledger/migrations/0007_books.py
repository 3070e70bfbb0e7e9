"""Books: the log is partitioned into books that append in parallel (issue 19).

Until now one `ledger_head` row was the whole log's writer lock. Here it
becomes one row per book, and every guarantee that was the log's is the
book's:

* A book's positions are its own gap-free run inside a range of 2^40
  positions that is the book's alone: book b holds positions
  (b-1)*2^40+1 to b*2^40. Book 1 ("main", every log written so far) keeps
  positions 1, 2, 3...; a position names its book, so `position` stays a
  unique key across books (the primary key every reference uses) while
  per-book order, continuity (L2) and the chain (L8) are checked per book.
* Every log row carries its book (`book` on events, postings, idempotency
  records, accounts and streams): CHECK constraints tie an event's and a
  posting's position to its book's range, and the insert triggers refuse
  a posting to an account of another book and an event on a stream of
  another book. A movement between books is two events through clearing
  accounts (`ledger.books.transfer`), never one event across two books.
* The event insert trigger checks and moves the head of each book the
  statement appends to, in book order (so two transactions appending to
  the same two books lock them in the same order), and stamps each head's
  `xid`: a projection may change in the transaction that moved any head.
* `ledger_lock_and_read` takes the book: appends to different books lock
  different rows and commit in parallel.
* A book is opened by `ledger_open_book(key)`, which only the tables'
  owner may run (`manage.py open_book`); the head guard refuses any other
  insert, as it refuses every direct update.
"""

import importlib

from django.db import migrations, models

_0006 = importlib.import_module("ledger.migrations.0006_projections_follow_appends")

BOOK_SPAN = 1 << 40
GENESIS_HASH = "0" * 64

FORWARD = rf"""
ALTER TABLE ledger_head DROP CONSTRAINT ledger_head_single_row;
ALTER TABLE ledger_head ADD COLUMN key varchar(40) NOT NULL DEFAULT 'main';
ALTER TABLE ledger_head ADD CONSTRAINT ledger_head_key UNIQUE (key);
ALTER TABLE ledger_head ADD CONSTRAINT ledger_head_book_range CHECK (
    id >= 1 AND position >= (id - 1)::bigint * {BOOK_SPAN} AND position <= id::bigint * {BOOK_SPAN});

ALTER TABLE ledger_event ADD COLUMN book smallint NOT NULL DEFAULT 1;
ALTER TABLE ledger_event ADD CONSTRAINT ledger_event_book_range CHECK (
    position > (book - 1)::bigint * {BOOK_SPAN} AND position <= book::bigint * {BOOK_SPAN});
ALTER TABLE ledger_posting ADD COLUMN book smallint NOT NULL DEFAULT 1;
ALTER TABLE ledger_posting ADD CONSTRAINT ledger_posting_book_range CHECK (
    event_id > (book - 1)::bigint * {BOOK_SPAN} AND event_id <= book::bigint * {BOOK_SPAN});
ALTER TABLE ledger_idempotency ADD COLUMN book smallint NOT NULL DEFAULT 1;
ALTER TABLE ledger_idempotency ADD CONSTRAINT ledger_idempotency_book_range CHECK (
    first_position > (book - 1)::bigint * {BOOK_SPAN}
    AND last_position <= book::bigint * {BOOK_SPAN});
-- Filled by the insert trigger only (migration 0004's guard refuses anything else).
ALTER TABLE ledger_account DISABLE TRIGGER ledger_account_follows_log;
ALTER TABLE ledger_account ADD COLUMN book smallint NOT NULL DEFAULT 1;
ALTER TABLE ledger_account ENABLE TRIGGER ledger_account_follows_log;
ALTER TABLE ledger_stream DISABLE TRIGGER ledger_stream_follows_log;
ALTER TABLE ledger_stream ADD COLUMN book smallint NOT NULL DEFAULT 1;
ALTER TABLE ledger_stream ENABLE TRIGGER ledger_stream_follows_log;

CREATE OR REPLACE FUNCTION ledger_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_has_role(current_user,
                   (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE')
            AND ((TG_OP = 'UPDATE' AND pg_trigger_depth() > 1)
                 OR (TG_OP = 'INSERT'
                     AND coalesce(current_setting('ledger.opening_book', true), '') = 'on')) THEN
        RETURN NEW;  -- moved by ledger_event_appended, opened by ledger_open_book
    END IF;
    RAISE EXCEPTION 'ledger: % on ledger_head is forbidden; it follows the log', TG_OP;
END;
$$;

CREATE FUNCTION ledger_open_book(book_key text) RETURNS smallint
    LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    opened smallint;
BEGIN
    IF book_key !~ '^[a-z][a-z0-9_-]{{0,39}}$' THEN
        RAISE EXCEPTION 'ledger: a book key is 1 to 40 lower-case letters, digits, - or _';
    END IF;
    SELECT id INTO opened FROM ledger_head WHERE key = book_key;
    IF FOUND THEN
        RETURN opened;
    END IF;
    LOCK TABLE ledger_head IN SHARE ROW EXCLUSIVE MODE;
    SELECT coalesce(max(id), 0) + 1 INTO opened FROM ledger_head;
    PERFORM set_config('ledger.opening_book', 'on', true);
    INSERT INTO ledger_head (id, key, position, hash)
        VALUES (opened, book_key, (opened - 1)::bigint * {BOOK_SPAN}, '{GENESIS_HASH}');
    PERFORM set_config('ledger.opening_book', '', true);
    RETURN opened;
END;
$$;
REVOKE EXECUTE ON FUNCTION ledger_open_book(text) FROM PUBLIC;

-- L2 and L8 per book, then the projections the writer reads.
CREATE OR REPLACE FUNCTION ledger_event_appended() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    appended record;
    head_position bigint;
    head_hash text;
BEGIN
    FOR appended IN
        SELECT book, min(position) AS first_position, max(position) AS last_position,
               count(*) AS inserted
        FROM new_events GROUP BY book ORDER BY book
    LOOP
        SELECT position, hash INTO head_position, head_hash
            FROM ledger_head WHERE id = appended.book FOR UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'ledger: book % is not open', appended.book;
        END IF;
        IF appended.first_position <> head_position + 1
                OR appended.last_position - appended.first_position + 1 <> appended.inserted THEN
            RAISE EXCEPTION 'ledger: positions % to % do not continue the log of book % after %',
                appended.first_position, appended.last_position, appended.book, head_position;
        END IF;
        IF EXISTS (
            SELECT 1 FROM (
                SELECT prev_hash,
                       lag(hash, 1, head_hash) OVER (ORDER BY position) AS previous_hash
                FROM new_events WHERE book = appended.book
            ) AS linked
            WHERE linked.prev_hash IS DISTINCT FROM linked.previous_hash
        ) THEN
            RAISE EXCEPTION 'ledger: prev_hash does not link to the previous event of book %',
                appended.book;
        END IF;
        UPDATE ledger_head
            SET position = appended.last_position,
                hash = (SELECT hash FROM new_events WHERE position = appended.last_position),
                xid = pg_current_xact_id()
            WHERE id = appended.book;
    END LOOP;
    IF NOT FOUND THEN
        RETURN NULL;  -- an empty statement
    END IF;
    -- A stream lives in one book: its versions are that book's to order.
    IF EXISTS (
        SELECT 1 FROM new_events AS n JOIN ledger_stream AS s ON s.name = n.stream
        WHERE s.book <> n.book
    ) OR EXISTS (
        SELECT 1 FROM new_events GROUP BY stream HAVING count(DISTINCT book) > 1
    ) THEN
        RAISE EXCEPTION 'ledger: a stream belongs to one book';
    END IF;
    INSERT INTO ledger_stream (name, version, last_position, book)
        SELECT stream, max(version), max(position), min(book) FROM new_events GROUP BY stream
        ON CONFLICT (name) DO UPDATE
            SET version = EXCLUDED.version, last_position = EXCLUDED.last_position;
    INSERT INTO ledger_account (code, type, currency, name, must_not_go_negative,
            balance_max_minor, balance_minor, opened_position, last_position, book)
        SELECT payload->>'code', payload->>'type', payload->>'currency',
               coalesce(payload->>'name', ''),
               (payload->>'must_not_go_negative')::boolean,
               (payload->>'balance_max_minor')::bigint, 0, position, position, book
        FROM new_events WHERE type = 'ledger.account_opened'
        ORDER BY position;
    RETURN NULL;
END;
$$;

-- L3 and L5 as in 0004, and: a posting is its event's book's, to an account
-- of that book.
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
        WHERE NOT EXISTS (SELECT 1 FROM ledger_event AS e
                          WHERE e.position = p.event_id AND e.book = p.book)
    ) THEN
        RAISE EXCEPTION 'ledger: postings refer to an event that does not exist';
    END IF;
    IF EXISTS (
        SELECT 1 FROM new_postings AS p
        WHERE NOT EXISTS (
            SELECT 1 FROM ledger_account AS a
            WHERE a.code = p.account_id AND a.currency = p.currency AND a.book = p.book
        )
    ) THEN
        RAISE EXCEPTION 'ledger: a posting names an unknown account or the wrong currency'
            ' (or an account of another book)';
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

CREATE OR REPLACE FUNCTION ledger_in_append() RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER AS $$
    SELECT coalesce(bool_or(xid = pg_current_xact_id_if_assigned()), false)
    FROM ledger_head
$$;

DROP FUNCTION ledger_lock_and_read(text[], text[], text[]);
CREATE FUNCTION ledger_lock_and_read(book smallint, keys text[], streams text[],
                                     accounts text[])
RETURNS TABLE (head_position bigint, head_hash text, now_at timestamptz,
               key_rows json, stream_rows json, account_rows json)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    SELECT h.position, h.hash, now() INTO head_position, head_hash, now_at
        FROM ledger_head h WHERE h.id = book FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger: book % is not open', book;
    END IF;
    -- A new statement, so a new snapshot (migration 0005 says why). The
    -- rows of other books are read too, and tell the writer a stream or an
    -- account is not this book's.
    SELECT
        (SELECT json_agg(json_build_array(i.key, i.fingerprint, i.first_position,
                                          i.last_position))
           FROM ledger_idempotency i WHERE i.key = ANY(keys)),
        (SELECT json_agg(json_build_array(s.name, s.version, s.book))
           FROM ledger_stream s WHERE s.name = ANY(streams)),
        (SELECT json_agg(json_build_array(a.code, a.type, a.currency, a.must_not_go_negative,
                                          a.balance_max_minor, a.balance_minor, a.book))
           FROM ledger_account a WHERE a.code = ANY(accounts))
    INTO key_rows, stream_rows, account_rows;
    RETURN NEXT;
END;
$$;

DO $$
DECLARE
    signature text;
BEGIN
    FOREACH signature IN ARRAY ARRAY[
        'ledger_head_guard()', 'ledger_open_book(text)', 'ledger_event_appended()',
        'ledger_postings_inserted()', 'ledger_in_append()',
        'ledger_lock_and_read(smallint, text[], text[], text[])'
    ] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       signature, current_schema());
    END LOOP;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0006_projections_follow_appends")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, migrations.RunSQL.noop)],
            state_operations=[
                migrations.RemoveConstraint("ledgerhead", "ledger_head_single_row"),
                migrations.AddField("ledgerhead", "key", models.CharField(
                    max_length=40, unique=True, default="main")),
                migrations.AddField("event", "book", models.SmallIntegerField(default=1)),
                migrations.AddField("posting", "book", models.SmallIntegerField(default=1)),
                migrations.AddField("idempotencyrecord", "book",
                                    models.SmallIntegerField(default=1)),
                migrations.AddField("account", "book", models.SmallIntegerField(default=1)),
                migrations.AddField("stream", "book", models.SmallIntegerField(default=1)),
            ],
        ),
    ]
