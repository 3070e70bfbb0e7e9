"""Placement: a directory of books and the databases that hold them (issue 19, point 4).

* `ledger_placement` (in the directory database, `default`) maps each book
  to the Django database alias that holds it; `ledger.placement` reads it.
  Book ids are handed out here, so a book keeps its id (and its range of
  positions) on whichever server it lives.
* `ledger_open_book(key, id)` opens a book under the id the directory gave.
* `ledger_head.read_only`: a book moved to another server stays behind,
  frozen, as the old copy; the event insert trigger refuses appends to a
  frozen book. `ledger_freeze_book(id)` freezes it (the owner only).
"""

import importlib

from django.db import migrations, models

_0007 = importlib.import_module("ledger.migrations.0007_books")
BOOK_SPAN = _0007.BOOK_SPAN
GENESIS_HASH = _0007.GENESIS_HASH

LOCKED_HEAD = """        SELECT position, hash INTO head_position, head_hash
            FROM ledger_head WHERE id = appended.book FOR UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'ledger: book % is not open', appended.book;
        END IF;"""
LOCKED_HEAD_NOT_FROZEN = """        SELECT position, hash, read_only INTO head_position, head_hash, frozen
            FROM ledger_head WHERE id = appended.book FOR UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'ledger: book % is not open', appended.book;
        END IF;
        IF frozen THEN
            RAISE EXCEPTION 'ledger: book % is read-only in this database (it was moved)',
                appended.book
                USING ERRCODE = 'read_only_sql_transaction';
        END IF;"""


def _event_appended() -> str:
    forward = _0007.FORWARD
    start = forward.index("CREATE OR REPLACE FUNCTION ledger_event_appended()")
    end = forward.index("$$;", forward.index("AS $$", start) + 5) + 3
    function = forward[start:end]
    assert function.count(LOCKED_HEAD) == 1, "0007's head lock changed"
    return (function.replace(LOCKED_HEAD, LOCKED_HEAD_NOT_FROZEN)
            .replace("    head_hash text;\nBEGIN", "    head_hash text;\n    frozen boolean;\nBEGIN"))


FORWARD = rf"""
CREATE TABLE ledger_placement (
    book smallint PRIMARY KEY CHECK (book >= 1),
    key varchar(40) NOT NULL UNIQUE,
    database varchar(100) NOT NULL,
    previous_database varchar(100),
    moved_at timestamptz
);
INSERT INTO ledger_placement (book, key, database) VALUES (1, 'main', 'default');

ALTER TABLE ledger_head ADD COLUMN read_only boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION ledger_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_has_role(current_user,
                   (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE')
            AND ((TG_OP = 'UPDATE' AND pg_trigger_depth() > 1)
                 OR (TG_OP = 'UPDATE'
                     AND coalesce(current_setting('ledger.freezing_book', true), '') = 'on'
                     AND NEW.read_only AND NEW.position = OLD.position AND NEW.hash = OLD.hash)
                 OR (TG_OP = 'INSERT'
                     AND coalesce(current_setting('ledger.opening_book', true), '') = 'on')) THEN
        RETURN NEW;  -- moved by ledger_event_appended, opened or frozen by their functions
    END IF;
    RAISE EXCEPTION 'ledger: % on ledger_head is forbidden; it follows the log', TG_OP;
END;
$$;

DROP FUNCTION ledger_open_book(text);
CREATE FUNCTION ledger_open_book(book_key text, wanted smallint DEFAULT NULL) RETURNS smallint
    LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    opened smallint;
BEGIN
    IF book_key !~ '^[a-z][a-z0-9_-]{{0,39}}$' THEN
        RAISE EXCEPTION 'ledger: a book key is 1 to 40 lower-case letters, digits, - or _';
    END IF;
    LOCK TABLE ledger_head IN SHARE ROW EXCLUSIVE MODE;
    SELECT id INTO opened FROM ledger_head WHERE key = book_key;
    IF FOUND THEN
        IF wanted IS NOT NULL AND wanted <> opened THEN
            RAISE EXCEPTION 'ledger: book % is open here as %, not %', book_key, opened, wanted;
        END IF;
        RETURN opened;
    END IF;
    IF wanted IS NOT NULL AND EXISTS (SELECT 1 FROM ledger_head WHERE id = wanted) THEN
        RAISE EXCEPTION 'ledger: book id % is taken here', wanted;
    END IF;
    SELECT coalesce(wanted, coalesce(max(id), 0) + 1) INTO opened FROM ledger_head;
    PERFORM set_config('ledger.opening_book', 'on', true);
    INSERT INTO ledger_head (id, key, position, hash)
        VALUES (opened, book_key, (opened - 1)::bigint * {BOOK_SPAN}, '{GENESIS_HASH}');
    PERFORM set_config('ledger.opening_book', '', true);
    RETURN opened;
END;
$$;
REVOKE EXECUTE ON FUNCTION ledger_open_book(text, smallint) FROM PUBLIC;

CREATE FUNCTION ledger_freeze_book(book smallint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM set_config('ledger.freezing_book', 'on', true);
    UPDATE ledger_head SET read_only = true WHERE id = book;
    PERFORM set_config('ledger.freezing_book', '', true);
END;
$$;
REVOKE EXECUTE ON FUNCTION ledger_freeze_book(smallint) FROM PUBLIC;

{_event_appended()}

DO $$
DECLARE
    signature text;
BEGIN
    FOREACH signature IN ARRAY ARRAY[
        'ledger_head_guard()', 'ledger_open_book(text, smallint)',
        'ledger_freeze_book(smallint)', 'ledger_event_appended()'
    ] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       signature, current_schema());
    END LOOP;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0007_books")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, migrations.RunSQL.noop)],
            state_operations=[
                migrations.CreateModel(
                    name="BookPlacement",
                    fields=[
                        ("book", models.SmallIntegerField(primary_key=True, serialize=False)),
                        ("key", models.CharField(max_length=40, unique=True)),
                        ("database", models.CharField(max_length=100)),
                        ("previous_database", models.CharField(max_length=100, null=True,
                                                               blank=True)),
                        ("moved_at", models.DateTimeField(null=True, blank=True)),
                    ],
                    options={"db_table": "ledger_placement", "ordering": ["book"]},
                ),
                migrations.AddField("ledgerhead", "read_only",
                                    models.BooleanField(default=False)),
            ],
        ),
    ]
