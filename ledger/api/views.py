"""The ledger's read API: the catch-up feed and account balances."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.utils.module_loading import import_string
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from django.db.models import Sum

from ..models import Account, Event, Posting, natural_sign
from ..store import head, load_events_after
from .serializers import (
    AccountDetailsSerializer,
    AccountQuerySerializer,
    AccountSerializer,
    EventFeedQuerySerializer,
    EventFeedSerializer,
)


class EventFeedView(APIView):
    """Events after a position, in position order.

    Positions are gap-free and committed in order, so a client that reads
    `after=<last position seen>` until `events` is empty has seen every event
    exactly once.
    """

    @extend_schema(parameters=[EventFeedQuerySerializer], responses=EventFeedSerializer)
    def get(self, request: Request) -> Response:
        query = EventFeedQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after = query.validated_data["after"]
        # The head is read first: every event up to it is already committed.
        head_position, _ = head()
        events = load_events_after(after, query.validated_data["limit"])
        next_after = events[-1].position if events else after
        # The project may narrow the feed per client (settings.LEDGER_FEED_FILTER,
        # a callable (request, events) -> events): `next_after` stays the last
        # position read, so a client that sees fewer events still moves on.
        feed_filter = getattr(settings, "LEDGER_FEED_FILTER", None)
        if feed_filter:
            events = import_string(feed_filter)(request, events)
        has_more = next_after < head_position
        data = {"events": events, "next_after": next_after, "head_position": head_position,
                "has_more": has_more, "next": _next(request, next_after) if has_more else None}
        return Response(EventFeedSerializer(data).data)


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
            position = _position_at(as_of)
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


def _next(request: Request, after: int) -> str:
    """The URL of the page after position `after`: the same query, moved on."""
    return replace_query_param(request.build_absolute_uri(), "after", after)


def _position_at(as_of) -> int:
    if isinstance(as_of, int):
        return as_of
    return (Event.objects.filter(recorded_at__lte=as_of).order_by("-position")
            .values_list("position", flat=True).first()) or 0


def _sum_through(code: str, position: int) -> int:
    total = Posting.objects.filter(account_id=code, event_id__lte=position).aggregate(
        total=Sum("amount_minor"))["total"]
    return int(total or 0)
