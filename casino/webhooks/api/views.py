"""The webhook subscriptions API: subscribe, read one, rotate its signing secret.

Each write runs one command (casino.webhooks.commands) through the runner,
under the request's Idempotency-Key: a retry with the same key and body
answers the first answer again (`Idempotent-Replayed: true`), another body
under the same key is a 409 `request.idempotency_key_reused`. A client reads
and rotates only its own subscriptions (another's answers 404, as an
unknown one).
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import BAD_REQUEST, ErrorSerializer, KeyedWriteView, write_schema
from casino.roles import Role

from .. import commands
from ..models import Subscription
from .serializers import (
    RotationRequestSerializer,
    SubscriptionCreatedSerializer,
    SubscriptionRequestSerializer,
    SubscriptionSerializer,
)

NOT_FOUND = OpenApiResponse(ErrorSerializer, description="`webhooks.unknown_subscription`.")
ERRORS = {
    400: BAD_REQUEST,
    409: OpenApiResponse(ErrorSerializer, description="Key reused for another request."),
    422: OpenApiResponse(ErrorSerializer, description="A type or venue out of the client's"
                         " reach (`webhooks.event_type_out_of_reach`,"
                         " `webhooks.venue_out_of_reach`)."),
}


def _answer(subscription: Subscription, secret: str | None = None) -> dict:
    now = timezone.now()
    data = {
        "id": subscription.public_id, "url": subscription.url,
        "event_types": subscription.event_types, "venues": subscription.venues,
        "active": subscription.active,
        "starts_after_position": subscription.starts_after_position,
        "starts_after_heads": subscription.starts_after_heads,
        "created_at": subscription.created_at,
        "secrets": [{"id": s.public_id, "created_at": s.created_at, "retires_at": s.retires_at}
                    for s in subscription.secrets.all() if s.active_at(now)],
    }
    if secret is not None:
        return SubscriptionCreatedSerializer({**data, "secret": secret}).data
    return SubscriptionSerializer(data).data


def _own(request: Request, subscription_id: str) -> Subscription:
    subscription = Subscription.objects.filter(public_id=subscription_id[:32],
                                               owner=request.user).first()
    if subscription is None:
        raise commands.unknown(subscription_id)
    return subscription


class _WebhookView(KeyedWriteView):
    # Any role: what a subscription receives is what its owner reads in the feed.
    roles_read = tuple(Role)
    roles_write = tuple(Role)


class SubscriptionsView(_WebhookView):
    """Subscribe a URL to event types and venues within the client's reach."""

    @write_schema(SubscriptionRequestSerializer, SubscriptionCreatedSerializer,
                  "Subscribe a URL to events", ERRORS)
    def post(self, request: Request) -> Response:
        key, data = self._body(request, SubscriptionRequestSerializer)
        client_key = request.auth if hasattr(request.auth, "serves") else None
        result = commands.subscribe(owner=request.user, key=client_key, url=data["url"],
                                    event_types=data["event_types"], venues=data["venues"],
                                    idempotency_key=key)
        return self._created(_answer(result.subscription, result.secret), result.replayed)


class SubscriptionDetailsView(_WebhookView):
    """One of the client's subscriptions, with its active secrets (not their values)."""

    @extend_schema(summary="Read a webhook subscription",
                   responses={200: SubscriptionSerializer, 404: NOT_FOUND})
    def get(self, request: Request, subscription_id: str) -> Response:
        return Response(_answer(_own(request, subscription_id)))


class SecretRotationsView(_WebhookView):
    """Rotate a subscription's signing secret without downtime.

    A new secret is made; the ones in use stay valid `previous_valid_seconds`
    more, and every delivery meanwhile carries a signature by each, so a
    receiver that still holds the old secret and one that already holds the
    new both verify.
    """

    @write_schema(RotationRequestSerializer, SubscriptionCreatedSerializer,
                  "Rotate a webhook's signing secret", {**ERRORS, 404: NOT_FOUND})
    def post(self, request: Request, subscription_id: str) -> Response:
        key, data = self._body(request, RotationRequestSerializer)
        subscription = _own(request, subscription_id)
        result = commands.rotate_secret(owner=request.user, subscription=subscription,
                                        previous_valid_seconds=data["previous_valid_seconds"],
                                        idempotency_key=key)
        return self._created(_answer(result.subscription, result.secret), result.replayed)
