"""The ledger's read API: the catch-up feed and account balances."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.utils.module_loading import import_string
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from django.db.models import Sum

from ..books import MAIN_BOOK, MAIN_BOOK_KEY, base_position, book_id
from ..errors import InvalidEvent, UnknownBook
from ..feed import book_heads, decode_cursor, encode_cursor, read_feed
from ..placement import feed_databases
from ..models import Account, Event, Posting, natural_sign
from ..types import BOOK_SPAN
from .serializers import (
    AccountDetailsSerializer,
    AccountQuerySerializer,
    AccountSerializer,
    EventFeedQuerySerializer,
    EventFeedSerializer,
)


class EventFeedView(APIView):
    """Events of every book after a vector cursor, or of the main book after a position.

    `?cursor=<next_cursor>` reads every book: each page's `next_cursor`
    holds the last position read in each book, and a client that passes it
    back until `has_more` is false has seen every event of every book
    exactly once, each book's gap-free and in position order (ledger.feed;
    an empty `cursor` starts every book at its beginning, and a book opened
    later starts at its own).

    `?after=<position>` (or neither) reads one book only, the main book as
    the feed did before books, or the book `?book=<key>` names: its
    positions are gap-free and committed in order, so reading
    `after=<last position seen>` sees each of its events once. Its answer
    carries a `next_cursor` too, from which a client may go on over every
    book.
    """

    @extend_schema(parameters=[EventFeedQuerySerializer], responses={
        200: EventFeedSerializer,
        404: OpenApiResponse(description="No book is open under the key `book` or the"
                                         " cursor names (`ledger.unknown_book`).")})
    def get(self, request: Request) -> Response:
        query = EventFeedQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        limit = query.validated_data["limit"]
        text = query.validated_data.get("cursor")
        # Each book is read where the directory places it (a moved book's
        # frozen old copy is not read twice).
        placed = feed_databases()
        book = MAIN_BOOK
        if text is None:
            book = _book(query.validated_data.get("book", MAIN_BOOK_KEY))
            after = query.validated_data["after"]
            # Positions outside the book's range hold none of its events.
            base = base_position(book)
            page = read_feed({book: min(max(after, base), base + BOOK_SPAN)}, limit,
                             using=placed, books=[book])
            next_after = max(after, page.cursor[book])
        else:
            page = read_feed(decode_cursor(text, book_heads(placed)), limit, using=placed)
            next_after = page.cursor[MAIN_BOOK]
        events = list(page.events)
        # The project may narrow the feed per client (settings.LEDGER_FEED_FILTER,
        # a callable (request, events) -> events): the cursor stays the last
        # position read per book, so a client that sees fewer events still moves on.
        feed_filter = getattr(settings, "LEDGER_FEED_FILTER", None)
        if feed_filter:
            events = import_string(feed_filter)(request, events)
        next_cursor = encode_cursor(page.cursor, page.keys())
        if text is None:
            url = _next(request, next_after) if page.has_more else None
        else:
            url = _next_cursor(request, next_cursor) if page.has_more else None
        data = {"events": events, "next_after": next_after,
                "head_position": page.heads[book].position,
                "next_cursor": next_cursor, "has_more": page.has_more, "next": url}
        return Response(EventFeedSerializer(data, context={"book_keys": page.keys()}).data)


class AccountDetailsView(APIView):
    """An account's balance (natural direction, minor units) and last position.

    `?as_of=<position>` or `?as_of=<ISO 8601 time>` adds the balance just after
    that position, or after the last event recorded at or before that time
    (recorded time: positions are in commit order, business time may be
    sent late). `?history=true` adds the account's postings after `after`, up
    to `limit`, each with the balance it left (issue 17 item 5).
    """

    @extend_schema(parameters=[AccountQuerySerializer], responses=AccountDetailsSerializer)
    def get(self, request: Request, code: str) -> Response:
        account = get_object_or_404(Account, code=code)
        query = AccountQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = dict(AccountSerializer(account).data)
        sign = natural_sign(account.type)
        as_of = query.validated_data.get("as_of")
        if as_of is not None:
            position = _position_at(as_of, account.book)
            data["as_of"] = {"position": position,
                             "balance_minor": sign * _sum_through(account.code, position)}
        if query.validated_data["history"]:
            after, limit = query.validated_data["after"], query.validated_data["limit"]
            balance = sign * _sum_through(account.code, after)
            rows = []
            for position, index, event_type, occurred_at, gaming_day, amount in (
                    Posting.objects.filter(account_id=account.code, event_id__gt=after)
                    .order_by("event_id", "index")
                    .values_list("event_id", "index", "event__type", "event__occurred_at",
                                 "event__gaming_day", "amount_minor")[:limit]):
                balance += sign * amount
                rows.append({"position": position, "posting": index, "type": event_type,
                             "occurred_at": occurred_at, "gaming_day": gaming_day,
                             "amount_minor": amount, "balance_after_minor": balance})
            data["history"] = rows
            data["next_after"] = rows[-1]["position"] if len(rows) == limit else None
            data["has_more"] = data["next_after"] is not None
            data["next"] = _next(request, data["next_after"]) if data["has_more"] else None
        return Response(data)


def _book(key: str) -> int:
    """The id of the open book `key` (ledger.unknown_book, a 404, when none is)."""
    try:
        return book_id(key)
    except InvalidEvent:
        raise UnknownBook(f"no book {key} is open", book=key) from None


def _next(request: Request, after: int) -> str:
    """The URL of the page after position `after`: the same query, moved on."""
    return replace_query_param(request.build_absolute_uri(), "after", after)


def _next_cursor(request: Request, cursor: str) -> str:
    """The URL of the page after a vector cursor: the same query, moved on."""
    return replace_query_param(remove_query_param(request.build_absolute_uri(), "after"),
                               "cursor", cursor)


def _position_at(as_of, book: int) -> int:
    """The account's book's last position recorded by `as_of` (a position orders
    its own book only: another book's later position would take in postings
    recorded after `as_of`)."""
    if isinstance(as_of, int):
        return as_of
    return (Event.objects.filter(book=book, recorded_at__lte=as_of).order_by("-position")
            .values_list("position", flat=True).first()) or 0


def _sum_through(code: str, position: int) -> int:
    total = Posting.objects.filter(account_id=code, event_id__lte=position).aggregate(
        total=Sum("amount_minor"))["total"]
    return int(total or 0)
