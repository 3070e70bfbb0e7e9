"""The `Location` of every 201 the API gives (issue 18 item 1).

RFC 9110 §10.2.2: a 201 names the resource it created. The write's URL
name (its route, casino/*/api/urls.py) says where that is:

- a resource of its own, when the API has a read for it: `DETAILS` maps
  the write's route to the read's route and where each of that route's
  arguments comes from (the answer's field, or the write's own path);
- otherwise the event feed at the write's first event: every write appends
  events, and the answer carries their `position` (or `positions`), so
  `/api/v1/events?after=<position - 1>&limit=<events>` reads exactly them
  (with `&book=<key>` when the event is on a venue's book: the feed's
  `after` reads one book);
- otherwise the write's own URL (a write whose answer names no position
  and whose subject has no read of its own); a view that knows its first
  event without naming it in the answer sets Location itself with
  `feed_location` (the cashier's shifts, the table-games sessions).

casino.middleware.WriteRequestMiddleware calls `set_location` on every
answer; an answer that sets its own `Location` keeps it. The schema
documents the header on every 201 (casino.openapi_conventions).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse

from ledger import book_key, book_of

MAIN_BOOK = 1

# write route -> (read route, {read argument: "answer field" or "path:<write argument>"})
DETAILS: dict[str, tuple[str, dict[str, str]]] = {
    "venues": ("venue-details", {"code": "code"}),
    "venue-changes": ("venue-details", {"code": "path:code"}),
    "machines-premises": ("venue-details", {"code": "venue"}),
    "player-registration": ("player-details", {"player_id": "id"}),
    "corrections": ("correction-details", {"correction_id": "id"}),
    "cases": ("case-details", {"case_id": "id"}),
    "case-notes": ("case-details", {"case_id": "path:case_id"}),
    "alert-dismissals": ("alert-details", {"alert_id": "alert_id"}),
    "poker-tables": ("poker-table", {"table_id": "table_id"}),
    "poker-buy-ins": ("poker-table", {"table_id": "path:table_id"}),
    "poker-cash-outs": ("poker-table", {"table_id": "path:table_id"}),
    "poker-time-charges": ("poker-table", {"table_id": "path:table_id"}),
    "poker-hands": ("poker-hand", {"hand_id": "hand_id"}),
    "poker-hand-histories": ("poker-hand", {"hand_id": "hand_id"}),
    "poker-actions": ("poker-hand", {"hand_id": "path:hand_id"}),
    "poker-showdown": ("poker-hand", {"hand_id": "path:hand_id"}),
    "poker-void": ("poker-hand", {"hand_id": "path:hand_id"}),
    "poker-decision": ("poker-hand", {"hand_id": "path:hand_id"}),
    "jackpot-pools": ("jackpot-pool", {"venue": "venue", "kind": "kind"}),
    "jackpot-rollups": ("jackpot-pool", {"venue": "path:venue", "kind": "path:kind"}),
    "jackpot-terms": ("jackpot-pool", {"venue": "path:venue", "kind": "path:kind"}),
    "jackpot-hit-approve": ("jackpot-hit", {"hit_id": "path:hit_id"}),
    "jackpot-hit-reject": ("jackpot-hit", {"hit_id": "path:hit_id"}),
    "jackpot-hit-pay": ("jackpot-hit", {"hit_id": "path:hit_id"}),
    "games-tables": ("games-table", {"table_id": "table_id"}),
    "games-rounds": ("games-round", {"round_id": "round_id"}),
    "games-bets": ("games-round", {"round_id": "path:round_id"}),
    "games-close": ("games-round", {"round_id": "path:round_id"}),
    "games-outcome": ("games-round", {"round_id": "path:round_id"}),
    "games-settle": ("games-round", {"round_id": "path:round_id"}),
    "games-void": ("games-round", {"round_id": "path:round_id"}),
    "machines": ("machines-machine", {"machine_id": "machine_id"}),
    "machines-rounds": ("machines-machine", {"machine_id": "path:machine_id"}),
    "machines-cash-ins": ("machines-machine", {"machine_id": "path:machine_id"}),
    "machines-cash-outs": ("machines-machine", {"machine_id": "path:machine_id"}),
    "machines-pay-outs": ("machines-machine", {"machine_id": "path:machine_id"}),
    "machines-malfunction-credits": ("machines-machine", {"machine_id": "path:machine_id"}),
    "machines-malfunction-approve": ("machines-machine", {"machine_id": "machine_id"}),
    "machines-malfunction-reject": ("machines-machine", {"machine_id": "machine_id"}),
    "tournaments-announce": ("tournaments-details", {"tournament_id": "tournament_id"}),
    "sitngo-series": ("sitngo-series-details", {"series_id": "series_id"}),
    "sitngo-tournaments": ("sitngo-series-details", {"series_id": "path:series_id"}),
    "reports-close": ("reports-close", {"venue": "path:venue", "day": "path:day"}),
    "webhook-subscriptions": ("webhook-subscription-details", {"subscription_id": "id"}),
    "webhook-secret-rotations": ("webhook-subscription-details",
                                 {"subscription_id": "path:subscription_id"}),
}
# Every other write under tournaments/<id>/... names the tournament.
PREFIX_DETAILS: dict[str, tuple[str, dict[str, str]]] = {
    "tournaments-": ("tournaments-details", {"tournament_id": "path:tournament_id"}),
}
FEED_ROUTE = "event-feed"


def _read_route(route: str) -> tuple[str, dict[str, str]] | None:
    if route in DETAILS:
        return DETAILS[route]
    for prefix, target in PREFIX_DETAILS.items():
        if route.startswith(prefix):
            return target
    return None


def _first_position(data: Any) -> tuple[int, int] | None:
    """(first position, number of events) the answer names, if it names any.

    Of a write across books, its events in the book of the lowest position
    (a request's part in a book is one run of positions)."""
    if not isinstance(data, dict):
        return None
    positions = data.get("positions")
    if isinstance(positions, list) and positions and all(isinstance(p, int) for p in positions):
        first = min(positions)
        return first, sum(1 for p in positions if book_of(p) == book_of(first))
    position = data.get("position")
    if isinstance(position, int) and not isinstance(position, bool) and position > 0:
        return position, 1
    return None


def feed_location(request: HttpRequest, position: int, count: int = 1) -> str:
    """The event feed at `count` events from `position` on (absolute URL): for a
    view whose answer names no position but that knows the write's first event.
    Read in the event's book (a position names its book)."""
    book = book_of(position)
    query = urlencode({"after": position - 1, "limit": count,
                       **({} if book == MAIN_BOOK else {"book": book_key(book)})})
    return request.build_absolute_uri(f"{reverse(FEED_ROUTE)}?{query}")


def location_of(request: HttpRequest, data: Any) -> str:
    """The URL (absolute) that names what the write answered with `data` created."""
    match = request.resolver_match
    route = _read_route(match.url_name or "") if match is not None else None
    if route is not None and isinstance(data, dict):
        name, sources = route
        arguments = {}
        for argument, source in sources.items():
            value = (match.kwargs.get(source[5:]) if source.startswith("path:")
                     else data.get(source))
            if value in (None, ""):
                arguments = None
                break
            arguments[argument] = str(value)
        if arguments is not None:
            try:
                return request.build_absolute_uri(reverse(name, kwargs=arguments))
            except NoReverseMatch:
                pass
    first = _first_position(data)
    if first is not None:
        return feed_location(request, *first)
    return request.build_absolute_uri(request.path)


def set_location(request: HttpRequest, response: HttpResponse) -> None:
    """Give a 201 from the API its Location, unless the view gave one."""
    if response.status_code != 201 or response.has_header("Location"):
        return
    if not request.path.startswith("/api/"):
        return
    response["Location"] = location_of(request, getattr(response, "data", None))
