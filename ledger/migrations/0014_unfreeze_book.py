"""Unfreezing a book's old copy is a function of its own, as freezing is.

Moving a book back onto a server that still holds its frozen old copy
(`ledger.placement.move_book`) unfreezes that copy and appends only the
events after its head. Until now the owner switched the heads' guard
trigger off for that one UPDATE, which takes a table lock on every book's
head of that server. `ledger_unfreeze_book(book, position, hash)` (the
owner only, SECURITY DEFINER) unfreezes the copy if and only if it is
frozen at exactly that head, and the guard lets through nothing else:
no position, hash or key changes, and no other role.

Also: `ledger_open_venue_book` (0013) gets the search path every other
ledger function has (pg_catalog, the ledger's schema, pg_temp) instead of
`public`.
"""

from django.db import migrations

GUARD = """
CREATE OR REPLACE FUNCTION ledger_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_has_role(current_user,
                   (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE')
            AND ((TG_OP = 'UPDATE' AND pg_trigger_depth() > 1)
                 OR (TG_OP = 'UPDATE'
                     AND coalesce(current_setting('ledger.freezing_book', true), '') = 'on'
                     AND NEW.read_only AND NEW.position = OLD.position AND NEW.hash = OLD.hash)
                 OR (TG_OP = 'UPDATE'
                     AND coalesce(current_setting('ledger.unfreezing_book', true), '') = 'on'
                     AND OLD.read_only AND NOT NEW.read_only AND NEW.id = OLD.id
                     AND NEW.key = OLD.key AND NEW.position = OLD.position
                     AND NEW.hash = OLD.hash)
                 OR (TG_OP = 'INSERT'
                     AND coalesce(current_setting('ledger.opening_book', true), '') = 'on')) THEN
        RETURN NEW;  -- moved by ledger_event_appended, opened, frozen or unfrozen by their functions
    END IF;
    RAISE EXCEPTION 'ledger: % on ledger_head is forbidden; it follows the log', TG_OP;
END;
$$;
"""

FORWARD = GUARD + """
CREATE FUNCTION ledger_unfreeze_book(book smallint, at_position bigint, at_hash text)
    RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    unfrozen integer;
BEGIN
    PERFORM set_config('ledger.unfreezing_book', 'on', true);
    UPDATE ledger_head SET read_only = false
        WHERE id = book AND read_only AND position = at_position AND hash = at_hash;
    GET DIAGNOSTICS unfrozen = ROW_COUNT;
    PERFORM set_config('ledger.unfreezing_book', '', true);
    RETURN unfrozen = 1;
END;
$$;
REVOKE EXECUTE ON FUNCTION ledger_unfreeze_book(smallint, bigint, text) FROM PUBLIC;

DO $$
DECLARE
    signature text;
BEGIN
    FOREACH signature IN ARRAY ARRAY[
        'ledger_head_guard()', 'ledger_unfreeze_book(smallint, bigint, text)',
        'ledger_open_venue_book(text)'
    ] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       signature, current_schema());
    END LOOP;
END;
$$;
"""

BACKWARD = """
DROP FUNCTION ledger_unfreeze_book(smallint, bigint, text);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0013_open_venue_book")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
