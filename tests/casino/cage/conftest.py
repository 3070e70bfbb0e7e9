"""Fixtures for the cage tests: API clients per role, the log's size."""

import itertools

import pytest
from django.contrib.auth.models import Group, User
from django.db.models import Q
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.roles import Role
from ledger.crossbook import CROSSBOOK_LEG
from ledger.models import Event

_users = itertools.count(1)


def event_count() -> int:
    return Event.objects.count()


def request_event_count() -> int:
    """The log's size without what the ledger adds between books.

    With venue books a request across books also writes a companion
    (`ledger.crossbook_leg`) and opens clearing accounts on first use; on one
    book there are none, so this is `event_count()` there.
    """
    return (Event.objects.exclude(type=CROSSBOOK_LEG)
            .exclude(stream__startswith="account/clearing/").count())


def rejection(refused) -> Event:
    """The refusal a request recorded: the newest rejection, the one its error names.

    Not "the newest event": with venue books an earlier request's companion in
    a venue's book has a higher position than anything on main.
    """
    event = Event.objects.filter(type="compliance.attempt_rejected").order_by("-position").first()
    assert event is not None
    assert event.position == refused.value.details["rejection_position"]
    return event


def request_events(key: str) -> list[Event]:
    """The events a keyed request wrote, without the ledger's companions.

    Across books each part is recorded under its own key: the caller's in
    the home book, `<key>#<book>` in the others.
    """
    return list(Event.objects.filter(Q(idempotency_key=key)
                                     | Q(idempotency_key__startswith=f"{key}#"))
                .exclude(type=CROSSBOOK_LEG).order_by("position"))


def _request_key(key: str | None) -> str | None:
    # A request across books records its parts under `<key>` and `<key>#<book>`.
    return key.split("#", 1)[0] if key else key


def legs_of(event: Event) -> list[Event]:
    """The companions (`ledger.crossbook_leg`) of `event` in other books; none on one book.

    With venue books (casino.books) a cage event on the player's stream (main)
    keeps its main-book postings and the venue's postings move to a companion
    in the venue's book. A keyed request's legs share its key; legs of
    unkeyed requests are matched in order: the n-th event of the stream and
    type with the n-th leg naming them, in each other book.
    """
    legs = Event.objects.filter(type=CROSSBOOK_LEG, payload__stream=event.stream,
                                payload__type=event.type).exclude(book=event.book)
    if event.idempotency_key:
        return [leg for leg in legs.order_by("position")
                if _request_key(leg.idempotency_key) == _request_key(event.idempotency_key)]
    same = list(Event.objects.filter(book=event.book, stream=event.stream, type=event.type,
                                     idempotency_key__isnull=True)
                .order_by("position").values_list("position", flat=True))
    found = []
    for book in sorted(set(legs.values_list("book", flat=True))):
        mine = list(legs.filter(book=book, idempotency_key__isnull=True).order_by("position"))
        assert len(mine) == len(same), "unkeyed legs do not pair with their events one to one"
        found.append(mine[same.index(event.position)])
    return found


def request_postings(position: int) -> list[tuple[str, int]]:
    """(account, amount) of the event at `position` and of its legs, clearing left out.

    The postings a request made, whichever books they landed in; sorted, as
    the split between books reorders them.
    """
    event = Event.objects.get(position=position)
    return sorted((p.account_id, p.amount_minor)
                  for e in (event, *legs_of(event))
                  for p in e.postings.all() if not p.account_id.startswith("clearing/"))


@pytest.fixture
def client_for(venues):
    """Return an API client authenticated as a new user holding `role`."""

    def make(role: Role | None) -> APIClient:
        user = User.objects.create_user(f"terminal-{next(_users)}")
        if role is not None:
            user.groups.add(Group.objects.get(name=role))
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        return client

    return make


@pytest.fixture
def cage_client(client_for):
    return client_for(Role.CAGE)
