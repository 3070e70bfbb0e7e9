"""The ledger's read API: the catch-up feed and account balances."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.utils.module_loading import import_string
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..models import Account
from ..store import head, load_events_after
from .serializers import (
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
        data = {"events": events, "next_after": next_after, "head_position": head_position}
        return Response(EventFeedSerializer(data).data)


class AccountDetailsView(APIView):
    """An account's balance (natural direction, minor units) and last position."""

    @extend_schema(responses=AccountSerializer)
    def get(self, request: Request, code: str) -> Response:
        account = get_object_or_404(Account, code=code)
        return Response(AccountSerializer(account).data)
