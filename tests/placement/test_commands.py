"""manage.py open_book, move_book and books over three servers (issue 19, point 4)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ledger import NewEvent, Posting, append, open_account
from ledger.placement import database_for

from .conftest import THREE_SERVERS
from .test_three_servers import DAY_ONE

pytestmark = [THREE_SERVERS, pytest.mark.slow]     # two servers started for the folder


def _call(*args, **options) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


def _rows(listing: str) -> list[list[str]]:
    """The `books` table's rows (header left out), cells split on whitespace."""
    lines = listing.splitlines()
    assert lines[0].split() == ["key", "id", "database", "events", "head", "frozen"]
    return [line.split() for line in lines[1:]]


def test_open_book_places_a_book_and_books_lists_it(three_servers):
    """open_book opens the book in the named server; opening it again shows it;
    another database for it, or an alias that does not exist, is refused."""
    assert _call("open_book", "vilnius", "--database", "server2") == (
        "book vilnius: id 2 in server2, 0 events, head 0\n")
    assert _call("open_book", "vilnius", "--database", "server2") == (
        "book vilnius: id 2 in server2, 0 events, head 0\n")
    assert _call("open_book", "riga") == "book riga: id 3 in default, 0 events, head 0\n"
    assert database_for("vilnius") == "server2"
    with pytest.raises(CommandError, match="book vilnius is placed in server2, not server3"):
        _call("open_book", "vilnius", "--database", "server3")
    with pytest.raises(CommandError, match="no database alias 'server9'"):
        _call("open_book", "kaunas", "--database", "server9")
    assert _rows(_call("books"))[-2:] == [["vilnius", "2", "server2", "0", "0", "no"],
                                          ["riga", "3", "default", "0", "0", "no"]]


def test_move_book_moves_it_and_books_shows_the_frozen_old_copy(three_servers):
    """move_book moves the book with its events; books lists the new copy and
    the old one, frozen at the same head."""
    _call("open_book", "vilnius", "--database", "server2")
    open_account(code="vilnius/cash", type="asset", currency="EUR", book="vilnius")
    open_account(code="vilnius/player", type="liability", currency="EUR", book="vilnius")
    append([NewEvent(stream="test/1", type="test.moved", payload={},
                     postings=(Posting("vilnius/cash", 900, "EUR"),
                               Posting("vilnius/player", -900, "EUR")),
                     gaming_day=DAY_ONE)], book="vilnius")
    assert _call("move_book", "vilnius", "server3") == (
        "book vilnius: moved from server2 to server3, 3 events, head 3;"
        " the copy in server2 is frozen\n")
    assert database_for("vilnius") == "server3"
    assert _rows(_call("books"))[-2:] == [
        ["vilnius", "2", "server3", "3", "3", "no"],
        ["vilnius", "2", "server2", "(old", "copy)", "3", "3", "yes"]]
    with pytest.raises(CommandError, match="already in server3"):
        _call("move_book", "vilnius", "server3")
    # Back onto its frozen old copy (nothing to copy: no append since), then away again.
    assert _call("move_book", "vilnius", "server2") == (
        "book vilnius: moved from server3 to server2, 3 events, head 3;"
        " the copy in server3 is frozen\n")
    assert _rows(_call("books"))[-2:] == [
        ["vilnius", "2", "server2", "3", "3", "no"],
        ["vilnius", "2", "server3", "(old", "copy)", "3", "3", "yes"]]
    with pytest.raises(CommandError, match="no database alias 'server9'"):
        _call("move_book", "vilnius", "server9")
