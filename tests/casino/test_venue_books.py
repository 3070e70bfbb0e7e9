"""A book per venue through the command runner (casino/books.py, issue 19 point 1).

By default (CASINO_VENUE_BOOKS_DEFAULT="own") a venue's streams and accounts
live on its own book and the operator's (the player's stream and gaming
account) on the main book; a cage deposit touches both and is written across
them in one transaction (ledger.crossbook). "main" keeps every venue on the
main book, and so does the default for a venue whose history is there (one
registered before per-venue books came to the database). The system check
casino.E019 refuses settings the routing cannot use.
"""

import pytest

from casino import books
from casino.books import book_key_for_venue, venue_book, venue_books_check
from casino.cage.commands import deposit
from ledger import verify_chain
from casino.rules.models import Venue, VenueBooksSince
from ledger.models import Account, Event, LedgerHead
from tests.casino.conftest import NOON

CASINO, ROOM = "casino-helsinki", "poker-helsinki"


@pytest.fixture
def own_books(settings):
    settings.CASINO_VENUE_BOOKS_DEFAULT = "own"
    settings.CASINO_VENUE_BOOKS = {}
    return settings


def _deposit(player, key: str, amount: int = 15_000, venue: str = CASINO):
    return deposit(player_id=player.id, venue=venue, amount_minor=amount, currency="EUR",
                   method="cash", actor="cashier-1", idempotency_key=key, at=NOON)


def _book(code: str) -> int:
    return Account.objects.get(code=code).book


def test_the_default_is_a_book_per_venue(settings):
    """Issue 19: by default one book per venue (the settings' own default)."""
    assert settings.CASINO_VENUE_BOOKS_DEFAULT == "own"
    assert settings.CASINO_VENUE_BOOKS == {}


def test_on_the_main_setting_every_venue_writes_to_the_main_book(settings, player):
    """"main" keeps the log as it was before books: one event, one book, no clearing."""
    settings.CASINO_VENUE_BOOKS_DEFAULT = "main"
    result = _deposit(player, "d-main")
    accounts = {p.account_id for p in Event.objects.get(position=result.position).postings.all()}
    assert accounts == {f"cage/{CASINO}/cash", f"player/{player.id}/account"}
    assert Event.objects.get(position=result.position).book == 1
    assert _book(f"cage/{CASINO}/cash") == 1
    assert not Account.objects.filter(code__startswith="clearing/").exists()
    assert not LedgerHead.objects.filter(key=CASINO).exists()


def test_a_deposit_at_a_venue_on_its_own_book_is_written_across_both(own_books, player):
    """The player's event stays on main (their stream and gaming account are the
    operator's); the cage's cash is on the venue's book, reached through clearing."""
    result = _deposit(player, "d-1")
    venue = venue_book(CASINO)
    assert LedgerHead.objects.get(id=venue).key == CASINO
    assert _book(f"cage/{CASINO}/cash") == venue
    assert _book(f"player/{player.id}/account") == 1
    event = Event.objects.get(position=result.position)
    assert event.book == 1 and event.stream == f"player/{player.id}"
    leg = Event.objects.get(book=venue, type="ledger.crossbook_leg")
    assert leg.payload["stream"] == event.stream and leg.payload["venue"] == CASINO
    assert Account.objects.get(code=f"cage/{CASINO}/cash").balance_minor == 15_000
    assert Account.objects.get(code=f"player/{player.id}/account").balance_minor == 15_000
    clearing = dict(Account.objects.filter(code__startswith="clearing/")
                    .values_list("code", "balance_minor"))
    assert clearing == {f"clearing/main/{CASINO}/EUR": 15_000,
                        f"clearing/{CASINO}/main/EUR": -15_000}
    assert verify_chain().ok and verify_chain(book=venue).ok


def test_a_retry_across_books_writes_nothing_more(own_books, player):
    first = _deposit(player, "d-2")
    before = Event.objects.count()
    again = _deposit(player, "d-2")
    assert Event.objects.count() == before
    assert again.position == first.position
    assert Account.objects.get(code=f"cage/{CASINO}/cash").balance_minor == 15_000


def test_venues_share_a_book_when_configured(own_books, player):
    """Small venues may share one book (CASINO_VENUE_BOOKS)."""
    own_books.CASINO_VENUE_BOOKS = {CASINO: "helsinki", ROOM: "helsinki"}
    assert venue_book(CASINO) == venue_book(ROOM)
    _deposit(player, "d-3")
    assert LedgerHead.objects.get(id=_book(f"cage/{CASINO}/cash")).key == "helsinki"


def test_a_venue_code_that_is_no_book_key_gets_a_stable_one(own_books):
    assert book_key_for_venue("Casino.Tallinn") == "casino_tallinn"
    key = book_key_for_venue("9-lives")
    assert key == book_key_for_venue("9-lives") and key.startswith("v") and len(key) == 21


def test_a_venue_whose_history_is_on_main_stays_there_by_default(own_books, player):
    """A venue registered before per-venue books came to the database (the upgrade,
    rules.VenueBooksSince) keeps writing to the main book, so its numbering stays one
    chain; a setting that names its book still moves it."""
    VenueBooksSince.objects.all().delete()
    VenueBooksSince.objects.create(position=Venue.objects.get(code=CASINO).registered_position)
    assert books.history_on_main(CASINO) and venue_book(CASINO) == 1
    _deposit(player, "d-4")
    assert _book(f"cage/{CASINO}/cash") == 1
    assert not Event.objects.filter(book__gt=1).exists()
    books.forget()
    own_books.CASINO_VENUE_BOOKS = {CASINO: "helsinki"}
    assert venue_book(CASINO) == LedgerHead.objects.get(key="helsinki").id


def test_a_venue_registered_after_the_upgrade_gets_its_own_book(own_books, venues):
    VenueBooksSince.objects.all().delete()
    VenueBooksSince.objects.create(position=Venue.objects.get(code=CASINO).registered_position
                                   - 1)
    assert not books.history_on_main(CASINO)
    assert venue_book(CASINO) == LedgerHead.objects.get(key=CASINO).id


@pytest.mark.parametrize(("default", "configured", "problems"), [
    ("own", {}, 0),
    ("main", {CASINO: "helsinki", ROOM: "main"}, 0),
    ("ours", {}, 1),
    ("own", {CASINO: "Helsinki!"}, 1),
], ids=["own", "named", "bad-default", "bad-key"])
def test_the_system_check_refuses_settings_it_cannot_use(settings, default, configured,
                                                         problems):
    settings.CASINO_VENUE_BOOKS_DEFAULT = default
    settings.CASINO_VENUE_BOOKS = configured
    assert [m.id for m in venue_books_check()] == ["casino.E019"] * problems


def test_the_check_runs_with_every_command_that_checks(settings):
    """A plain `manage.py check` (the one runserver and migrate run) stops on a default
    it cannot use with casino.E019, and passes on per-venue books."""
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    settings.CASINO_VENUE_BOOKS_DEFAULT = "every"
    with pytest.raises(SystemCheckError, match="casino.E019"):
        call_command("check")
    settings.CASINO_VENUE_BOOKS_DEFAULT = "own"
    call_command("check")
