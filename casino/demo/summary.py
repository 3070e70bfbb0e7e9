"""What the demo prints at the end, read from the projections (never from the run).

Everything here is read from the database as it stands, so a second run,
which appends nothing, prints the same summary as the first.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Sequence

from django.db.models import Count, Q, Sum

from casino.compliance.models import Alert, AlertDismissal, Correction, CorrectionState
from casino.games.models import Round, RoundState
from casino.jackpots.models import HitState, JackpotHit, JackpotPool
from casino.players.models import Player
from casino.poker.models import Hand, HandStatus
from casino.reports.models import DayClose, DaySeal, JournalExport
from ledger.read import Account, Event

from . import back_office


@dataclass(frozen=True, slots=True)
class Summary:
    players: int
    hands: dict[str, int]
    rounds: dict[str, int]
    rake_minor: int
    jackpot_pool_minor: int
    jackpot_pending_minor: int
    alerts_open: dict[str, int]
    rejections: int
    hits_awaiting_approval: int
    corrections_proposed: int
    disputes_open: int
    closes: int
    closes_reconciled: int
    seals: int
    export: tuple[int, str] | None
    back_office: tuple[str, ...] = ()     # issue 17: casino/demo/back_office.py

    def lines(self) -> list[str]:
        hands = sum(self.hands.values())
        rounds = sum(self.rounds.values())
        alerts = sum(self.alerts_open.values())
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.alerts_open.items()))
        pending = self.hits_awaiting_approval + self.corrections_proposed
        export = (f"event #{self.export[0]}, sha256 {self.export[1][:16]}..."
                  if self.export else "none")
        return [
            f"players            {self.players}",
            f"poker hands        {hands} ({_states(self.hands)})",
            f"house-game rounds  {rounds} ({_states(self.rounds)})",
            f"poker rake         {_eur(self.rake_minor)}",
            f"jackpot pool       {_eur(self.jackpot_pool_minor)} posted,"
            f" {_eur(self.jackpot_pending_minor)} pending roll-up",
            f"alerts open        {alerts} ({kinds or 'none'})",
            f"refusals recorded  {self.rejections}",
            f"pending approvals  {pending} (jackpot hits {self.hits_awaiting_approval},"
            f" corrections {self.corrections_proposed}); disputes awaiting an officer"
            f" {self.disputes_open}",
            f"daily closes       {self.closes}, reconciled"
            f" {'yes' if self.closes and self.closes == self.closes_reconciled else 'NO'}"
            f" ({self.closes_reconciled}/{self.closes})",
            f"day seals          {self.seals}",
            f"journal export     {export}",
            *self.back_office,
        ]


def summarize(days: Sequence[dt.date]) -> Summary:
    dismissed = AlertDismissal.objects.values_list("alert_id", flat=True)
    alerts = {}
    for row in (Alert.objects.exclude(id__in=dismissed).values("kind")
                .annotate(n=Count("pk")).order_by()):
        alerts[row["kind"]] = row["n"]
    pools = JackpotPool.objects.all()
    pool_accounts = [p.pool_account for p in pools]
    pending_accounts = [p.pending_account for p in pools]
    latest_export = JournalExport.objects.filter(first_day=min(days), last_day=max(days),
                                                 format="csv", part="journal"
                                                 ).order_by("position").first()
    closes = DayClose.objects.filter(gaming_day__in=days)
    return Summary(
        players=Player.objects.count(),
        hands=_count(Hand.objects.all()),
        rounds=_count(Round.objects.all()),
        rake_minor=_balance(Q(code__startswith="house/", code__endswith="/rake")),
        jackpot_pool_minor=_balance(Q(code__in=pool_accounts)),
        jackpot_pending_minor=_balance(Q(code__in=pending_accounts)),
        alerts_open=alerts,
        rejections=Event.objects.filter(type__endswith="_rejected").count(),
        hits_awaiting_approval=JackpotHit.objects.filter(state=HitState.HIT).count(),
        corrections_proposed=Correction.objects.filter(
            state=CorrectionState.PROPOSED).count(),
        disputes_open=(Hand.objects.filter(state=HandStatus.DISPUTED).count()
                       + Round.objects.filter(state=RoundState.DISPUTED).count()),
        closes=closes.count(),
        closes_reconciled=closes.filter(reconciled=True).count(),
        seals=DaySeal.objects.filter(gaming_day__in=days).count(),
        export=(latest_export.position, latest_export.sha256) if latest_export else None,
        back_office=tuple(back_office.summary_lines(days)),
    )


def _count(queryset) -> dict[str, int]:
    return {row["state"]: row["n"] for row in
            queryset.values("state").annotate(n=Count("pk")).order_by("state")}


def _balance(condition: Q) -> int:
    return Account.objects.filter(condition).aggregate(total=Sum("balance_minor"))["total"] or 0


def _states(counts: dict[str, int]) -> str:
    return ", ".join(f"{state} {n}" for state, n in sorted(counts.items())) or "none"


def _eur(minor: int) -> str:
    sign = "-" if minor < 0 else ""
    return f"EUR {sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"
