"""Read side of the jackpots: a pool's balances and its reconciled history.

The history is read from the ledger, not the projections: every posting to
the pool's pending and pool accounts, grouped by event type, so an officer
or accountant sees contributions, roll-ups, payouts and top-ups add up to
the balances to the cent (000 section 5, reconciliation).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from ledger.read import Account

from .accounts import pool_key
from .errors import JackpotError, JackpotErrorCode
from .events import BASE_TOPPED_UP, CONTRIBUTIONS_ROLLED_UP, HIT_PAID
from .models import JackpotPool


@dataclass(frozen=True, slots=True)
class PoolHistory:
    """A pool's money in one snapshot; `reconciles` states the two identities."""

    key: str
    venue: str
    kind: str
    currency: str
    status: str
    contributions: int
    contributions_minor: int       # every credit to the pending account
    adjustments_minor: int         # other postings to pending (reversals), net
    rolled_up_minor: int
    paid_minor: int
    topped_up_minor: int
    pending_minor: int             # the pending account's balance
    pool_minor: int                # the posted pool's balance
    base_guarantee_minor: int
    rollups: int
    hits: int
    last_rolled_day: object
    as_of_position: int

    @property
    def reconciles(self) -> bool:
        pending_ok = (self.contributions_minor + self.adjustments_minor - self.rolled_up_minor
                      == self.pending_minor)
        pool_ok = self.rolled_up_minor - self.paid_minor + self.topped_up_minor == self.pool_minor
        return pending_ok and pool_ok


def pool(venue: str, kind: str) -> JackpotPool:
    row = JackpotPool.objects.filter(key=pool_key(venue, kind)).first()
    if row is None:
        raise JackpotError(JackpotErrorCode.UNKNOWN_POOL, f"no jackpot pool {kind} at {venue}",
                           venue=venue, kind=kind)
    return row


def pool_history(venue: str, kind: str) -> PoolHistory:
    """Sum the pool's postings by kind in one statement (one snapshot)."""
    row = pool(venue, kind)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT"
            " count(*) FILTER (WHERE p.account_id = %(pending)s AND p.amount_minor < 0"
            "   AND e.type <> %(rolled)s),"
            " COALESCE(-sum(p.amount_minor) FILTER (WHERE p.account_id = %(pending)s"
            "   AND p.amount_minor < 0 AND e.type <> %(rolled)s), 0)::bigint,"
            " COALESCE(-sum(p.amount_minor) FILTER (WHERE p.account_id = %(pending)s"
            "   AND p.amount_minor > 0 AND e.type <> %(rolled)s), 0)::bigint,"
            " COALESCE(-sum(p.amount_minor) FILTER (WHERE p.account_id = %(pool)s"
            "   AND e.type = %(rolled)s), 0)::bigint,"
            " COALESCE(sum(p.amount_minor) FILTER (WHERE p.account_id = %(pool)s"
            "   AND e.type = %(paid)s), 0)::bigint,"
            " COALESCE(-sum(p.amount_minor) FILTER (WHERE p.account_id = %(pool)s"
            "   AND e.type = %(topped)s), 0)::bigint,"
            " (SELECT position FROM ledger_head WHERE id = coalesce("
            "   (SELECT book FROM ledger_account WHERE code = %(pool)s), 1))"
            " FROM ledger_posting p JOIN ledger_event e ON e.position = p.event_id"
            " WHERE p.account_id IN (%(pending)s, %(pool)s)",
            {"pending": row.pending_account, "pool": row.pool_account,
             "rolled": CONTRIBUTIONS_ROLLED_UP, "paid": HIT_PAID, "topped": BASE_TOPPED_UP})
        count, contributed, adjusted, rolled, paid, topped, position = cursor.fetchone()
    balances = dict(Account.objects.filter(code__in=[row.pending_account, row.pool_account])
                    .values_list("code", "balance_minor"))
    return PoolHistory(
        key=row.key, venue=row.venue, kind=row.kind, currency=row.currency,
        status=row.status, contributions=count, contributions_minor=contributed,
        adjustments_minor=adjusted, rolled_up_minor=rolled, paid_minor=paid,
        topped_up_minor=topped, pending_minor=balances.get(row.pending_account, 0),
        pool_minor=balances.get(row.pool_account, 0),
        base_guarantee_minor=row.base_guarantee_minor, rollups=row.rollups, hits=row.hits,
        last_rolled_day=row.last_rolled_day, as_of_position=position)
