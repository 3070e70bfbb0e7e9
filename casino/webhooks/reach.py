"""Which events a subscription receives: its filters, then the feed's own rules.

The role and venue rules are the event feed's (casino.roles.feed_filter,
called with the subscription's owner and key as the request), never a
copy: a subscription receives exactly what its owner would read in
GET /api/v1/events, narrowed by the types and venues it chose.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Sequence

from casino.roles import feed_filter, may_read_event, roles_of


@dataclass(frozen=True)
class Reach:
    """A subscription as the outbox and the sender match events against it."""

    subscription_id: int
    event_types: tuple[str, ...]
    venues: frozenset[str]
    request: SimpleNamespace

    def chosen(self, event) -> bool:
        """Whether the subscription's own filters take the event."""
        if self.event_types and not any(type_matches(event.type, chosen)
                                        for chosen in self.event_types):
            return False
        venue = event.payload.get("venue") if isinstance(event.payload, dict) else None
        return not (self.venues and isinstance(venue, str) and venue not in self.venues)

    def select(self, events: Sequence) -> list:
        """The events it receives, as the feed would show them to its owner."""
        chosen = [event for event in events if self.chosen(event)]
        return feed_filter(self.request, chosen) if chosen else []


def type_matches(event_type: str, chosen: str) -> bool:
    """`cage.` takes every cage event; `cage.deposit_made` only that type."""
    return event_type.startswith(chosen) if chosen.endswith(".") else event_type == chosen


def reach_of(subscription) -> Reach:
    """The subscription's reach; reads the owner's roles once."""
    user = subscription.owner
    roles_of(user)      # cached on the user object for every later match
    return Reach(subscription_id=subscription.pk,
                 event_types=tuple(subscription.event_types or ()),
                 venues=frozenset(subscription.venues or ()),
                 request=SimpleNamespace(user=user, auth=subscription.key))


def types_out_of_reach(user, event_types: Sequence[str]) -> list[str]:
    """The chosen types (or prefixes) the user's roles may not read in the feed."""
    roles = roles_of(user)
    return [chosen for chosen in event_types
            if not may_read_event(roles, chosen if not chosen.endswith(".") else chosen + "x")]


def venues_out_of_reach(key, venues: Sequence[str]) -> list[str]:
    """The chosen venues the client's key does not serve."""
    if key is None:
        return []
    return sorted(venue for venue in venues if not key.serves(venue))
