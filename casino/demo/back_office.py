"""The demo's back office (issue 17): cashier shifts and a blackjack table's accounting.

Each evening at casino-helsinki:

- window w1: cashier cara opens with a EUR 2,000 bank counted by
  denomination; the vault sends EUR 500 (slip signed by the vault's vera and
  cara); at 21:00 cara hands over to cecil (close with an exact count, open
  with the same bank); cecil closes at 23:40. On the first evening the count
  is exact; on the second it is EUR 60 short (two EUR 10 notes and two
  EUR 20 notes paid twice, the reason given), above the EUR 50 alert
  threshold (decision cashier.short.alert_threshold): an officer's alert.
- table bj-1: opens with EUR 3,500 of chips by denomination (dealer dora,
  pit supervisor pia), takes a EUR 1,000 fill and sends a EUR 500 credit
  back (slips signed by the cage's carl and dora), closes, and its drop box
  is counted by two counters (on the second evening they differ by EUR 50:
  the variance is recorded; the drop is the second count).

The threshold report over both days then shows cash in and out apart, and
the summary prints shifts, over/short, fills, credits, soft counts and the
table's win and hold. Keys `demo/<seed>/back-office/...`: a second run
appends nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Sequence

from django.db.models import Sum

from casino.cashier import commands as cashier
from casino.cashier.models import Shift, ShiftState, Transfer
from casino.tablegames import commands as tables
from casino.tablegames.models import SessionState, Slip, TableSession

from .clock import helsinki

if TYPE_CHECKING:  # the demo imports this module; no cycle at run time
    from .gaming_day import Demo, Step

VENUE = "casino-helsinki"
WINDOW = "w1"
TABLE = "bj-1"
BANK = {"5000": 20, "2000": 25, "1000": 50}                  # EUR 2,000
SENT_FROM_VAULT = {"5000": 10}                              # EUR 500
CHIPS_OPENING = {"10000": 20, "2500": 40, "500": 100}       # EUR 3,500
FILL = {"10000": 10}                                        # EUR 1,000
CREDIT = {"2500": 20}                                       # EUR 500
CHIPS_CLOSING = {"10000": 15, "2500": 20}                   # EUR 2,000


def steps(demo: "Demo", number: int, day: dt.date) -> list["Step"]:
    """The back office's steps of one evening."""
    from .gaming_day import Step

    office = BackOffice(demo, number)
    return [
        Step(helsinki(day, 17, 0), "cashier: open w1", office.open_window),
        Step(helsinki(day, 17, 30), "table bj-1: open", office.open_table),
        Step(helsinki(day, 19, 0), "cashier: vault to w1", office.from_vault),
        Step(helsinki(day, 20, 0), "table bj-1: fill", office.fill),
        Step(helsinki(day, 21, 0), "cashier: handover", office.hand_over),
        Step(helsinki(day, 22, 0), "table bj-1: credit", office.credit),
        Step(helsinki(day, 23, 30), "table bj-1: close", office.close_table),
        Step(helsinki(day, 23, 40), "cashier: close w1", office.close_window),
        Step(helsinki(day, 23, 50), "table bj-1: soft count", office.soft_count),
    ]


class BackOffice:
    def __init__(self, demo: "Demo", number: int) -> None:
        self.demo, self.number = demo, number

    def key(self, *parts: object) -> str:
        return self.demo.key("back-office", self.number, *parts)

    def open_window(self) -> None:
        cashier.open_shift(venue=VENUE, window=WINDOW, bank=BANK, actor="cara",
                           idempotency_key=self.key("open"))

    def from_vault(self) -> None:
        cashier.transfer(venue=VENUE, source="vault", target=f"window:{WINDOW}",
                         count=SENT_FROM_VAULT, signed_by=["vera", "cara"], actor="cara",
                         note="change for the evening", idempotency_key=self.key("vault"))

    def hand_over(self) -> None:
        # Exact: the bank and the EUR 500 from the vault (EUR 2,500).
        count = {"5000": 30, "2000": 25, "1000": 50}
        cashier.hand_over(venue=VENUE, window=WINDOW, count=count, bank=count,
                          to_cashier="cecil", actor="cara",
                          idempotency_key=self.key("handover"))

    def close_window(self) -> None:
        if self.number == 0:
            cashier.close_shift(venue=VENUE, window=WINDOW,
                                count={"5000": 30, "2000": 25, "1000": 50}, actor="cecil",
                                idempotency_key=self.key("close"))
        else:
            cashier.close_shift(venue=VENUE, window=WINDOW,
                                count={"5000": 30, "2000": 23, "1000": 48}, actor="cecil",
                                reason="two EUR 20 and two EUR 10 notes paid out twice",
                                idempotency_key=self.key("close"))

    def open_table(self) -> None:
        tables.open_table(venue=VENUE, table=TABLE, inventory=CHIPS_OPENING,
                          signed_by=["dora", "pia"], actor="dora",
                          idempotency_key=self.key("table-open"))

    def fill(self) -> None:
        tables.fill(venue=VENUE, table=TABLE, chips=FILL, signed_by=["carl", "dora"],
                    actor="carl", idempotency_key=self.key("fill"))

    def credit(self) -> None:
        tables.credit(venue=VENUE, table=TABLE, chips=CREDIT, signed_by=["carl", "dora"],
                      actor="dora", idempotency_key=self.key("credit"))

    def close_table(self) -> None:
        tables.close_table(venue=VENUE, table=TABLE, inventory=CHIPS_CLOSING,
                           signed_by=["dora", "pia"], actor="dora",
                           idempotency_key=self.key("table-close"))

    def soft_count(self) -> None:
        first = {"5000": 80} if self.number == 0 else {"5000": 79, "1000": 10}
        tables.soft_count(venue=VENUE, table=TABLE, first_count=first,
                          second_count={"5000": 80}, counted_by=["kim", "kai"], actor="kim",
                          idempotency_key=self.key("soft-count"))


def summary_lines(days: Sequence[dt.date]) -> list[str]:
    """The back office's lines of the demo's summary (read from the projections)."""
    shifts = Shift.objects.filter(gaming_day__in=days, state=ShiftState.CLOSED)
    over_short = shifts.aggregate(total=Sum("over_short_minor"))["total"] or 0
    short = shifts.filter(over_short_minor__lt=0).count()
    sessions = TableSession.objects.filter(gaming_day__in=days, state=SessionState.COUNTED)
    totals = sessions.aggregate(drop=Sum("drop_minor"), win=Sum("win_minor"),
                                variance=Sum("count_variance_minor"))
    slips = Slip.objects.filter(session__in=sessions)
    fills = slips.filter(kind="fill").aggregate(total=Sum("amount_minor"))["total"] or 0
    credits = slips.filter(kind="credit").aggregate(total=Sum("amount_minor"))["total"] or 0
    drop, win = totals["drop"] or 0, totals["win"] or 0
    basis_points = win * 10_000 // drop if drop else None
    hold = (f"{basis_points // 100}.{basis_points % 100:02d} %" if basis_points is not None
            else "-")
    return [
        f"cashier shifts     {shifts.count()} closed ({short} short), over/short"
        f" {_eur(over_short)}, transfers {Transfer.objects.filter(gaming_day__in=days).count()}"
        " (two signatures each)",
        f"table games        {sessions.count()} sessions counted: fills {_eur(fills)},"
        f" credits {_eur(credits)}, drop {_eur(drop)} (count variance"
        f" {_eur(totals['variance'] or 0)}), win {_eur(win)}, hold {hold}",
        "threshold report   /admin/officers/reports/ (cash in and out apart; CSV, XLSX)",
    ]


def _eur(minor: int) -> str:
    sign = "-" if minor < 0 else ""
    return f"EUR {sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"
