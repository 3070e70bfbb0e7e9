"""A runtime role may open a new book in the main database, nothing more.

By default each casino venue writes to a book of its own (casino/books.py),
opened on the venue's first write by the application, which runs as the
runtime role. Opening a book was the owner's alone (`ledger_open_book`,
`manage.py open_book`) because the directory (`ledger_placement`) says
where each book's appends go, and a role that could rewrite it could send
a book's appends elsewhere. `ledger_open_venue_book(key)` (SECURITY DEFINER,
as the owner) does one thing: it returns the id of the book `key`, opening
it in this database under a new id the directory hands out if it is not
open anywhere. It never changes a directory row or an open book, so the
runtime role still cannot move, freeze or rewrite one.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION ledger_open_venue_book(book_key text) RETURNS smallint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
    found_book smallint;
BEGIN
    SELECT book INTO found_book FROM ledger_placement WHERE key = book_key;
    IF FOUND THEN
        RETURN found_book;
    END IF;
    LOCK TABLE ledger_placement IN SHARE ROW EXCLUSIVE MODE;
    SELECT book INTO found_book FROM ledger_placement WHERE key = book_key;
    IF FOUND THEN
        RETURN found_book;
    END IF;
    -- Open here before the directory knew of it (a flush, an old open_book).
    SELECT id INTO found_book FROM ledger_head WHERE key = book_key;
    IF NOT FOUND THEN
        SELECT greatest((SELECT max(book) FROM ledger_placement),
                        (SELECT max(id) FROM ledger_head), 0) + 1 INTO found_book;
        PERFORM ledger_open_book(book_key, found_book);
    END IF;
    INSERT INTO ledger_placement (book, key, database) VALUES (found_book, book_key, 'default');
    RETURN found_book;
END $$;
"""

BACKWARD = "DROP FUNCTION ledger_open_venue_book(text);"


class Migration(migrations.Migration):
    dependencies = [("ledger", "0012_posting_gaming_day_backfill")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
