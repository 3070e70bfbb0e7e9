"""Projections: wagering and cash activity, alerts, corrections, cases."""

from __future__ import annotations

from typing import Sequence

from django.db import connection
from django.db.models import F

from ledger import RecordedEvent

from .events import (
    ALERT_DISMISSED,
    ALERT_RAISED,
    ATTEMPT_REJECTED,
    CASE_EVENT_TYPES,
    CASE_EVENTS_LINKED,
    CASE_NOTE_ADDED,
    CASE_OPENED,
    CASE_STATE_CHANGED,
    CHAIN_VERIFIED,
    CORRECTION_APPROVED,
    CORRECTION_POSTED,
    CORRECTION_PROPOSED,
    CORRECTION_REJECTED,
)
from .models import (
    Alert,
    AlertDismissal,
    AlertKind,
    Case,
    CaseLink,
    CaseNote,
    CaseState,
    CashActivity,
    ChainVerification,
    Correction,
    CorrectionState,
    PlayerActivity,
)

# Rules a player set or the venue fixes as a running total: hitting one is a
# "limit hit" for the officers' screens; other refusals are plain rejections.
LIMIT_RULES = frozenset({
    "compliance.daily_spend_limit", "compliance.monthly_spend_limit", "compliance.loss_cap",
    "compliance.max_stake", "compliance.account_ceiling", "compliance.max_win",
})


class ActivityProjection:
    """Sums the `activity` and `cash` blocks any app puts on its events."""

    name = "compliance.activity"
    event_types = None

    def reset(self) -> None:
        PlayerActivity.objects.all().delete()
        CashActivity.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        """Add the batch's activity and cash, summed per row, in one upsert each."""
        wagers: dict[str, list] = {}
        cash_rows: dict[str, list] = {}
        for event in events:
            activity = event.payload.get("activity")
            if activity is not None:
                key = (f"{activity['player']}/{activity['venue']}/{activity['day']}/"
                       f"{activity['category']}")
                row = wagers.setdefault(key, [activity["player"], activity["venue"],
                                              activity["day"], activity["category"], 0, 0])
                row[4] += activity.get("staked_minor", 0)
                row[5] += activity.get("won_minor", 0)
            cash = event.payload.get("cash")
            if cash is not None:
                key = f"{cash['player']}/{cash['venue']}/{cash['gaming_day']}"
                row = cash_rows.setdefault(key, [cash["player"], cash["venue"],
                                                 cash["gaming_day"], 0, 0, 0])
                row[3] += cash["amount_minor"]
                row[4] += 1
                row[5] += 1 if cash.get("near_threshold") else 0
        with connection.cursor() as cursor:
            if wagers:
                cursor.execute(WAGERS_UPSERT, [list(wagers), *map(list, zip(*wagers.values()))])
            if cash_rows:
                cursor.execute(CASH_UPSERT, [list(cash_rows),
                                             *map(list, zip(*cash_rows.values()))])


# One statement per batch for each table (a get_or_create and an update per
# event cost five, savepoints included, on every stake and cash payment).
WAGERS_UPSERT = """
INSERT INTO compliance_playeractivity
    (key, player_id, venue, day, category, staked_minor, won_minor)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::date[], %s::text[],
                     %s::bigint[], %s::bigint[])
ON CONFLICT (key) DO UPDATE SET
    staked_minor = compliance_playeractivity.staked_minor + EXCLUDED.staked_minor,
    won_minor = compliance_playeractivity.won_minor + EXCLUDED.won_minor
"""
CASH_UPSERT = """
INSERT INTO compliance_cashactivity
    (key, player_id, venue, gaming_day, total_minor, transactions, near_threshold)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::date[], %s::bigint[],
                     %s::int[], %s::int[])
ON CONFLICT (key) DO UPDATE SET
    total_minor = compliance_cashactivity.total_minor + EXCLUDED.total_minor,
    transactions = compliance_cashactivity.transactions + EXCLUDED.transactions,
    near_threshold = compliance_cashactivity.near_threshold + EXCLUDED.near_threshold
"""


class AlertProjection:
    name = "compliance.alerts"
    event_types = frozenset({ATTEMPT_REJECTED, ALERT_RAISED})

    def reset(self) -> None:
        Alert.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        alerts = []
        for event in events:
            p = event.payload
            if event.type == ATTEMPT_REJECTED:
                attempt = p["attempt"]
                alerts.append(Alert(
                    id=f"alert/{event.position}",
                    kind=(AlertKind.LIMIT_HIT if p["rule"] in LIMIT_RULES
                          else AlertKind.REJECTED_ATTEMPT),
                    player_id=attempt.get("player_id") or "", venue=attempt["venue"],
                    summary=f"{attempt['kind']} refused: {p['rule']} ({p['cite']})",
                    details=p, raised_position=event.position, raised_at=event.occurred_at,
                ))
            else:
                alerts.append(Alert(
                    id=f"alert/{event.position}", kind=p["kind"],
                    player_id=p.get("player_id") or "", venue=p.get("venue") or "",
                    summary=p["summary"], details=p.get("details", {}),
                    raised_position=event.position, raised_at=event.occurred_at,
                ))
        Alert.objects.bulk_create(alerts)


class CorrectionProjection:
    name = "compliance.corrections"
    event_types = frozenset({CORRECTION_PROPOSED, CORRECTION_APPROVED, CORRECTION_REJECTED,
                             CORRECTION_POSTED})

    def reset(self) -> None:
        Correction.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            p = event.payload
            if event.type == CORRECTION_PROPOSED:
                Correction.objects.create(
                    id=p["correction_id"], account=p["account"],
                    counter_account=p["counter_account"], amount_minor=p["amount_minor"],
                    currency=p["currency"], reason=p["reason"],
                    proposed_by=event.metadata.get("actor", ""), proposed_at=event.occurred_at,
                    balance_before_minor=p["balance_before_minor"],
                    last_position=event.position,
                )
                continue
            update = {"last_position": event.position}
            if event.type == CORRECTION_POSTED:
                update.update(state=CorrectionState.POSTED,
                              balance_before_minor=p["balance_before_minor"],
                              balance_after_minor=p["balance_after_minor"])
            else:
                update.update(
                    state=(CorrectionState.APPROVED if event.type == CORRECTION_APPROVED
                           else CorrectionState.REJECTED),
                    decided_by=event.metadata.get("actor", ""), decided_at=event.occurred_at,
                    decision_note=p.get("note", ""),
                )
            Correction.objects.filter(id=p["correction_id"]).update(**update)


class CaseProjection:
    """Cases, their notes and the events they concern; alert dismissals;
    recorded chain verifications."""

    name = "compliance.cases"
    event_types = CASE_EVENT_TYPES | {ALERT_DISMISSED, CHAIN_VERIFIED}

    def reset(self) -> None:
        CaseLink.objects.all().delete()
        CaseNote.objects.all().delete()
        Case.objects.all().delete()
        AlertDismissal.objects.all().delete()
        ChainVerification.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            p = event.payload
            actor = event.metadata.get("actor", "")
            if event.type == CHAIN_VERIFIED:
                ChainVerification.objects.create(
                    position=event.position, ok=p["ok"], events=p["events"],
                    head_position=p["head_position"], head_hash=p.get("head_hash", ""),
                    bad_position=p.get("bad_position"), problem=p.get("problem", ""),
                    verified_by=actor, verified_at=event.occurred_at)
                continue
            if event.type == ALERT_DISMISSED:
                AlertDismissal.objects.create(
                    alert_id=p["alert_id"], dismissed_by=actor, reason=p["reason"],
                    dismissed_at=event.occurred_at, position=event.position)
                continue
            case_id = p["case_id"]
            if event.type == CASE_OPENED:
                Case.objects.create(
                    id=case_id, title=p["title"], alert_id=p.get("alert_id", ""),
                    player_id=p.get("player_id", ""), venue=p.get("venue", ""),
                    opened_by=actor, opened_at=event.occurred_at,
                    opened_position=event.position, last_position=event.position)
                self._link(case_id, p["positions"], actor, event.position)
                if p.get("note"):
                    self._note(case_id, event, p["note"], actor)
                continue
            update: dict = {"last_position": event.position}
            if event.type == CASE_NOTE_ADDED:
                self._note(case_id, event, p["text"], actor)
                update["notes_count"] = F("notes_count") + 1
            elif event.type == CASE_EVENTS_LINKED:
                self._link(case_id, p["positions"], actor, event.position)
            elif event.type == CASE_STATE_CHANGED:
                update.update(state=p["to_state"], state_changed_by=actor,
                              state_changed_at=event.occurred_at)
                if p["to_state"] == CaseState.CLOSED:
                    update["closed_reason"] = p.get("reason", "")
            Case.objects.filter(id=case_id).update(**update)

    @staticmethod
    def _note(case_id: str, event: RecordedEvent, text: str, actor: str) -> None:
        CaseNote.objects.create(position=event.position, case_id=case_id, author=actor,
                                text=text, written_at=event.occurred_at)
        if event.type == CASE_OPENED:
            Case.objects.filter(id=case_id).update(notes_count=1)

    @staticmethod
    def _link(case_id: str, positions, actor: str, at_position: int) -> None:
        CaseLink.objects.bulk_create([
            CaseLink(key=f"{case_id}/{position}", case_id=case_id, position=position,
                     linked_by=actor, linked_position=at_position)
            for position in positions])
