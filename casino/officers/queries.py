"""What the officers' screens read: the desk, timelines and chart series.

Read-only queries over the log (ledger_event, ledger_posting) and the
projections of every app. Other apps are read by event type strings and
account-name patterns where possible, and their models are imported
defensively where they may not exist yet (the jackpots' hits), so the desk
shows what the installed apps provide.

Decision (gross gaming revenue): GGR of a venue and gaming day is the sum,
in each account's natural direction, of the postings that day to the
venue's revenue accounts `house/<venue>/...` (rake and time charges, house
games' results and commissions, tournament fees). Expense accounts under
`house/<venue>/` (jackpot funding, tournament prizes above the buy-ins) are
costs, not negative GGR, and are left out. Rake is `house/<venue>/rake`
alone. Reason: GGR is what players lost to the house (stakes less
winnings); in a card room that is the rake and fees.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection
from django.db.models import Q

from casino import clock
from casino.compliance.events import ATTEMPT_REJECTED
from casino.compliance.models import (
    Alert,
    AlertDismissal,
    AlertKind,
    Case,
    CaseLink,
    CaseState,
    ChainVerification,
    Correction,
    CorrectionState,
)
from ledger.read import Account, Event, natural_sign
from ledger import base_position
from ledger.read import placed_heads

from .formatting import EventView, PostingView, Rendered, render

DAY_SEALED = "reports.day_sealed"      # written by casino.reports
TIMELINE_PAGE_MAX = 200
DESK_ROWS_MAX = 25
CHART_DAYS_MAX = 31


# --- timelines ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TimelineEntry:
    event: Event
    rendered: Rendered


def _views(events: Iterable[Event]) -> list[TimelineEntry]:
    entries = []
    for event in events:
        view = EventView(
            position=event.position, type=event.type, stream=event.stream,
            payload=event.payload, metadata=event.metadata,
            postings=tuple(PostingView(p.account_id, p.amount_minor, p.currency)
                           for p in event.postings.all()),
            occurred_at=event.occurred_at, gaming_day=event.gaming_day)
        entries.append(TimelineEntry(event, render(view)))
    return entries


def _page(positions_sql: str, params: Sequence[Any], after: int, limit: int
          ) -> list[TimelineEntry]:
    limit = max(1, min(limit, TIMELINE_PAGE_MAX))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT position FROM ({positions_sql}) AS found(position)"
                       " WHERE position > %s ORDER BY position LIMIT %s",
                       [*params, after, limit])
        positions = [row[0] for row in cursor.fetchall()]
    events = Event.objects.filter(position__in=positions).prefetch_related("postings")
    return _views(events.order_by("position"))


def player_timeline(player_id: str, *, after: int = 0, limit: int = TIMELINE_PAGE_MAX
                    ) -> list[TimelineEntry]:
    """A player's events in log order: their stream, events naming them
    anywhere in the payload (a seat at a table, a jackpot share, an alert),
    and events posting to their accounts (`player/<id>/...`)."""
    sql = ("SELECT position FROM ledger_event WHERE stream = %s"
           " UNION SELECT event_id FROM ledger_posting WHERE account_id LIKE %s"
           " UNION SELECT position FROM ledger_event WHERE payload @> %s::jsonb"
           " UNION SELECT position FROM ledger_event"
           " WHERE jsonb_path_exists(payload, 'strict $.** ? (@ == $id)',"
           " jsonb_build_object('id', %s::text))")
    escaped = player_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return _page(sql, [f"player/{player_id}", f"player/{escaped}/%",
                       json.dumps({"player_id": player_id}), player_id], after, limit)


def table_streams(table_id: str) -> Q:
    """The streams of a table: poker (`table/`, `hand/<id>/<n>`) or house
    game (`gametable/`, `round/<id>/<n>`); ids are unique across both."""
    return (Q(stream__in=[f"table/{table_id}", f"gametable/{table_id}"])
            | Q(stream__startswith=f"hand/{table_id}/")
            | Q(stream__startswith=f"round/{table_id}/"))


def table_timeline(table_id: str, *, after: int = 0, limit: int = TIMELINE_PAGE_MAX
                   ) -> list[TimelineEntry]:
    """A table's events in log order: the table, its hands or rounds, and
    the alerts raised on them (they are on the hand's or round's stream)."""
    limit = max(1, min(limit, TIMELINE_PAGE_MAX))
    events = (Event.objects.filter(table_streams(table_id), position__gt=after)
              .order_by("position").prefetch_related("postings")[:limit])
    return _views(events)


def stream_timeline(stream: str, *, after: int = 0, limit: int = TIMELINE_PAGE_MAX
                    ) -> list[TimelineEntry]:
    """One stream and the streams under it (`tournament/<id>`, `case/<id>`)."""
    limit = max(1, min(limit, TIMELINE_PAGE_MAX))
    events = (Event.objects.filter(Q(stream=stream) | Q(stream__startswith=f"{stream}/"),
                                   position__gt=after)
              .order_by("position").prefetch_related("postings")[:limit])
    return _views(events)


def events_at(positions: Iterable[int]) -> list[TimelineEntry]:
    events = (Event.objects.filter(position__in=list(positions))
              .order_by("position").prefetch_related("postings"))
    return _views(events)


# --- the desk ----------------------------------------------------------------

def _optional_model(module: str, name: str):
    """A model another helper's app may not have yet; None when it is missing."""
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def pending_jackpot_hits() -> list[Any]:
    """Jackpot hits waiting for an officer: recorded (to approve) or approved
    (to pay). Empty when the jackpots app has no hits model."""
    hit_model = _optional_model("casino.jackpots.models", "JackpotHit")
    open_states = _optional_model("casino.jackpots.models", "OPEN_HIT_STATES")
    if hit_model is None:
        return []
    states = list(open_states) if open_states else ["hit", "approved"]
    return list(hit_model.objects.filter(state__in=states).select_related("pool")
                .order_by("hand_started_at")[:DESK_ROWS_MAX])


def open_alerts():
    """Alerts nobody has handled: no case concerns them and none was dismissed."""
    return (Alert.objects
            .exclude(raised_position__in=CaseLink.objects.values("position"))
            .exclude(id__in=AlertDismissal.objects.values("alert_id")))


def open_cases():
    return Case.objects.exclude(state=CaseState.CLOSED)


def today() -> dt.date:
    """Today's date in the project's zone, the gaming day events default to."""
    return clock.now().astimezone(ZoneInfo(settings.TIME_ZONE)).date()


@dataclass(frozen=True, slots=True)
class BookStatus:
    """One book's head (its own numbering: 1, 2, 3..) and what is not yet verified."""

    key: str
    events: int                     # the book's last local position
    hash: str
    unverified_events: int


@dataclass(frozen=True, slots=True)
class LedgerStatus:
    head_position: int              # the main book's
    head_hash: str
    last_verification: ChainVerification | None
    unverified_events: int          # every book's, after its last verified head (a seal verifies too)
    last_seal: Event | None
    books: tuple[BookStatus, ...] = ()


def ledger_status() -> LedgerStatus:
    """Every book's head, and how many of its events came after the last good
    verification or seal (each records every book's head it verified)."""
    heads = placed_heads()
    verification = ChainVerification.objects.order_by("-position").first()
    seal = Event.objects.filter(type=DAY_SEALED).order_by("-position").first()
    verified: dict[str, int] = {}
    recorded = [seal.payload] if seal is not None else []
    if verification is not None and verification.ok:
        event = Event.objects.filter(position=verification.position).first()
        recorded.append(event.payload if event is not None
                        else {"head_position": verification.head_position})
    for payload in recorded:
        # Recorded before books: the main book's head alone.
        books = payload.get("heads") or {"main": {"position": payload.get("head_position", 0)}}
        for key, head in books.items():
            verified[key] = max(verified.get(key, 0), int(head["position"]))
    statuses = []
    for book, key, position, hash_, _database in heads:
        base = base_position(book)
        statuses.append(BookStatus(key=key, events=position - base, hash=hash_,
                                   unverified_events=position - max(verified.get(key, 0), base)))
    main = next(((position, hash_) for book, _k, position, hash_, _d in heads if book == 1),
                (0, ""))
    return LedgerStatus(main[0], main[1], verification,
                        sum(status.unverified_events for status in statuses), seal,
                        tuple(statuses))


@dataclass(frozen=True, slots=True)
class Desk:
    day: dt.date
    open_alerts: list[Alert]
    open_alerts_count: int
    open_cases: list[Case]
    open_cases_count: int
    pending_corrections: list[Correction]
    pending_hits: list[Any]
    rejected_today: list[Alert]
    rejected_today_count: int
    limit_hits_today_count: int
    ledger: LedgerStatus
    by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def pending_approvals_count(self) -> int:
        return len(self.pending_corrections) + len(self.pending_hits)


def desk() -> Desk:
    """Everything on the officers' landing page, each list capped."""
    day = today()
    alerts = open_alerts()
    todays = Alert.objects.filter(
        raised_position__in=Event.objects.filter(gaming_day=day, type=ATTEMPT_REJECTED)
        .values("position"))
    by_kind: dict[str, int] = defaultdict(int)
    for kind in alerts.values_list("kind", flat=True):
        by_kind[kind] += 1
    return Desk(
        day=day,
        open_alerts=list(alerts[:DESK_ROWS_MAX]),
        open_alerts_count=alerts.count(),
        open_cases=list(open_cases()[:DESK_ROWS_MAX]),
        open_cases_count=open_cases().count(),
        pending_corrections=list(Correction.objects.filter(state=CorrectionState.PROPOSED)
                                 [:DESK_ROWS_MAX]),
        pending_hits=pending_jackpot_hits(),
        rejected_today=list(todays[:DESK_ROWS_MAX]),
        rejected_today_count=todays.filter(kind=AlertKind.REJECTED_ATTEMPT).count(),
        limit_hits_today_count=todays.filter(kind=AlertKind.LIMIT_HIT).count(),
        ledger=ledger_status(),
        by_kind=dict(by_kind),
    )


# --- chart series ------------------------------------------------------------

def day_range(last: dt.date, days: int = CHART_DAYS_MAX) -> list[dt.date]:
    return [last - dt.timedelta(days=offset) for offset in range(days - 1, -1, -1)]


def _daily_sums(account_like: str, first: dt.date, last: dt.date
                ) -> dict[tuple[str, dt.date], int]:
    """Sum of postings per account and gaming day, debit positive."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.account_id, e.gaming_day, SUM(p.amount_minor)"
            " FROM ledger_posting p JOIN ledger_event e ON e.position = p.event_id"
            " WHERE p.account_id LIKE %s AND e.gaming_day BETWEEN %s AND %s"
            " GROUP BY 1, 2", [account_like, first, last])
        return {(code, day): int(total) for code, day, total in cursor.fetchall()}


def jackpot_pool_balances(days: Sequence[dt.date]) -> dict[str, list[int]]:
    """Each jackpot pool's balance at the end of each gaming day (natural
    direction: what the pool owes future winners)."""
    pools = {a.code: natural_sign(a.type)
             for a in Account.objects.filter(code__startswith="jackpot/",
                                             code__endswith="/pool")}
    if not pools or not days:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.account_id, SUM(p.amount_minor) FROM ledger_posting p"
            " JOIN ledger_event e ON e.position = p.event_id"
            " WHERE p.account_id = ANY(%s) AND e.gaming_day < %s GROUP BY 1",
            [list(pools), days[0]])
        opening = {code: int(total) for code, total in cursor.fetchall()}
    sums = _daily_sums("jackpot/%/pool", days[0], days[-1])
    series = {}
    for code, sign in sorted(pools.items()):
        running = opening.get(code, 0)
        values = []
        for day in days:
            running += sums.get((code, day), 0)
            values.append(sign * running)
        series[code.removeprefix("jackpot/").removesuffix("/pool")] = values
    return series


def venue_revenue(days: Sequence[dt.date]) -> dict[str, dict[str, list[int]]]:
    """Per venue: daily rake and gross gaming revenue (see the module's decision)."""
    if not days:
        return {}
    revenue = {a.code: natural_sign(a.type)
               for a in Account.objects.filter(code__startswith="house/", type="revenue")}
    sums = _daily_sums("house/%", days[0], days[-1])
    venues: dict[str, dict[str, list[int]]] = {}
    for (code, day), total in sums.items():
        if code not in revenue:
            continue
        venue = code.split("/")[1]
        row = venues.setdefault(venue, {"rake": [0] * len(days), "ggr": [0] * len(days)})
        index = days.index(day)
        amount = revenue[code] * total
        row["ggr"][index] += amount
        if code == f"house/{venue}/rake":
            row["rake"][index] += amount
    return dict(sorted(venues.items()))


def rejections_per_day(days: Sequence[dt.date]) -> dict[str, list[int]]:
    """Refused attempts per gaming day: limit hits and other refusals."""
    if not days:
        return {}
    counts = {"refused": [0] * len(days), "limit hits": [0] * len(days)}
    rows = (Alert.objects.filter(kind__in=[AlertKind.REJECTED_ATTEMPT, AlertKind.LIMIT_HIT])
            .filter(raised_position__in=Event.objects.filter(
                type=ATTEMPT_REJECTED, gaming_day__range=(days[0], days[-1]))
                .values("position")))
    day_of = dict(Event.objects.filter(position__in=rows.values("raised_position"))
                  .values_list("position", "gaming_day"))
    for alert in rows.only("kind", "raised_position"):
        day = day_of[alert.raised_position]
        key = "limit hits" if alert.kind == AlertKind.LIMIT_HIT else "refused"
        counts[key][days.index(day)] += 1
    return counts
