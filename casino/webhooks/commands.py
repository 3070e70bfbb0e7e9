"""The webhook writes, through the one command runner: subscribe, rotate a secret.

Each write records an event (`webhooks.subscribed`, `webhooks.secret_rotated`:
who asked for which events to go where, an audit fact) and, in the same
transaction, the configuration row the sender reads (the subscription, its
signing secret). The secrets themselves never enter the log: they must be
rotatable away, and the log is immutable. The runner gives idempotency: a
repeat under the same key answers the recorded event, and the rows it made.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from django.db import transaction

from casino.clock import operator_day
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, RecordedEvent, book_heads
from ledger.read import stream_version

from . import signing
from .errors import WebhookError, WebhookErrorCode
from .models import SigningSecret, Subscription
from .projections import invalidate, kick
from .reach import types_out_of_reach, venues_out_of_reach

SOURCE = "casino.webhooks"
SUBSCRIBED = "webhooks.subscribed"
SECRET_ROTATED = "webhooks.secret_rotated"


def subscription_stream(public_id: str) -> str:
    return f"webhook/{public_id}"


@dataclass(frozen=True)
class HookContext:
    stream: str
    version: int
    at: dt.datetime
    payload: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HookResult:
    subscription: Subscription
    secret: str
    replayed: bool


class _HookCommand(BaseCommand[HookContext, tuple[RecordedEvent, bool]]):
    source = SOURCE
    event_type = ""

    def decide(self, context: HookContext) -> Decision:
        # A subscription concerns no venue: the operator's day (casino.clock).
        event = NewEvent(stream=context.stream, type=self.event_type,
                         payload=dict(context.payload), occurred_at=context.at,
                         gaming_day=operator_day(context.at))
        return Decision([event], {context.stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool
               ) -> tuple[RecordedEvent, bool]:
        return events[0], replayed


class Subscribe(_HookCommand):
    name = "webhooks.subscribe"
    event_type = SUBSCRIBED

    def load(self, arguments: Mapping[str, Any], call: Call) -> HookContext:
        public_id = uuid.uuid4().hex[:16]
        # Every book's head (a venue's book numbers its own events): the
        # deliveries start after each (sending.backfill).
        heads = {head.key: head.position for head in book_heads().values()}
        return HookContext(
            stream=subscription_stream(public_id), version=0, at=call.moment(),
            payload={"subscription": public_id, "owner": arguments["owner"],
                     "url": arguments["url"], "event_types": arguments["event_types"],
                     "venues": arguments["venues"], "starts_after_position": heads["main"],
                     "starts_after_heads": heads,
                     "secret": uuid.uuid4().hex[:16]})


class RotateSecret(_HookCommand):
    name = "webhooks.rotate_secret"
    event_type = SECRET_ROTATED

    def load(self, arguments: Mapping[str, Any], call: Call) -> HookContext:
        stream = subscription_stream(arguments["subscription"])
        return HookContext(
            stream=stream, version=stream_version(stream), at=call.moment(),
            payload={"subscription": arguments["subscription"],
                     "secret": uuid.uuid4().hex[:16],
                     "previous_valid_seconds": arguments["previous_valid_seconds"]})


SUBSCRIBE = Subscribe()
ROTATE_SECRET = RotateSecret()


def subscribe(*, owner, key, url: str, event_types: Sequence[str], venues: Sequence[str],
              idempotency_key: str | None = None) -> HookResult:
    """Subscribe `url` to events of these types and venues, within the owner's reach.

    Raises WebhookError (`webhooks.event_type_out_of_reach`,
    `webhooks.venue_out_of_reach`) and the runner's errors.
    """
    event_types, venues = sorted(set(event_types)), sorted(set(venues))
    outside = types_out_of_reach(owner, event_types)
    if outside:
        raise WebhookError(WebhookErrorCode.EVENT_TYPE_OUT_OF_REACH,
                           "your roles do not read these events in the feed",
                           event_types=outside)
    outside = venues_out_of_reach(key, venues)
    if outside:
        raise WebhookError(WebhookErrorCode.VENUE_OUT_OF_REACH,
                           "your API key does not serve these venues", venues=outside)
    arguments = {"owner": owner.get_username(), "key": key.pk if key is not None else None,
                 "url": url, "event_types": event_types, "venues": venues}
    with transaction.atomic():
        event, replayed = run(SUBSCRIBE, arguments,
                              Call(actor=owner.get_username(), key=idempotency_key))
        payload = event.payload
        subscription = Subscription.objects.filter(public_id=payload["subscription"]).first()
        if subscription is None:
            subscription = Subscription.objects.create(
                public_id=payload["subscription"], owner=owner, key=key, url=payload["url"],
                event_types=payload["event_types"], venues=payload["venues"],
                starts_after_position=payload["starts_after_position"],
                starts_after_heads=payload.get("starts_after_heads", {}),
                recorded_position=event.position)
            SigningSecret.objects.create(subscription=subscription, public_id=payload["secret"],
                                         secret=signing.new_secret())
            # Forget the cache now (this transaction's later reads) and at commit
            # (what other threads of this process cached meanwhile).
            invalidate()
            transaction.on_commit(lambda: (invalidate(), kick([subscription.pk])))
    secret = SigningSecret.objects.get(public_id=payload["secret"])
    return HookResult(subscription, secret.secret, replayed)


def rotate_secret(*, owner, subscription: Subscription, previous_valid_seconds: int,
                  idempotency_key: str | None = None) -> HookResult:
    """Make a new signing secret; the ones in use stay valid `previous_valid_seconds` more."""
    arguments = {"subscription": subscription.public_id,
                 "previous_valid_seconds": previous_valid_seconds}
    with transaction.atomic():
        event, replayed = run(ROTATE_SECRET, arguments,
                              Call(actor=owner.get_username(), key=idempotency_key))
        payload = event.payload
        if not SigningSecret.objects.filter(public_id=payload["secret"]).exists():
            retires_at = event.recorded_at + dt.timedelta(seconds=previous_valid_seconds)
            for old in subscription.secrets.all():
                if old.active_at(event.recorded_at) and (old.retires_at is None
                                                         or old.retires_at > retires_at):
                    SigningSecret.objects.filter(pk=old.pk).update(retires_at=retires_at)
            SigningSecret.objects.create(subscription=subscription, public_id=payload["secret"],
                                         secret=signing.new_secret())
            invalidate()
            transaction.on_commit(invalidate)
    secret = SigningSecret.objects.get(public_id=payload["secret"])
    return HookResult(subscription, secret.secret, replayed)


def unknown(subscription_id: str) -> WebhookError:
    return WebhookError(WebhookErrorCode.UNKNOWN_SUBSCRIPTION,
                        "no subscription of yours has this id", subscription_id=subscription_id)
