"""Projections of rulebook and venue events (run inline by ledger.append)."""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from ledger import RecordedEvent

from .events import RULEBOOK_LOADED, VENUE_CHANGED, VENUE_REGISTERED
from .models import (Decision, Figure, RulebookVersion, RuleTable, StakeLimit, Venue,
                     VenueBooksSince, WinLimit)


def _rules_tables() -> list[str]:
    """The app's tables the projections own: every one but VenueBooksSince, which
    the migration that brought per-venue books writes once (no event makes it)."""
    from django.apps import apps

    return [model._meta.db_table
            for model in apps.get_app_config("rules").get_models(include_auto_created=True)
            if model._meta.managed and not model._meta.proxy and model is not VenueBooksSince]


class RulebookProjection:
    name = "rules.rulebooks"
    tables = property(lambda self: _rules_tables())
    event_types = frozenset({RULEBOOK_LOADED})

    def reset(self) -> None:
        for model in (StakeLimit, WinLimit, Figure, Decision, RuleTable, RulebookVersion):
            model.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            self._apply_one(event)

    def _apply_one(self, event: RecordedEvent) -> None:
        content = event.payload["content"]
        header = content["rulebook"]
        key = f"{header['id']}@{header['version']}"
        version = RulebookVersion.objects.create(
            key=key,
            rulebook_id=header["id"],
            version=header["version"],
            effective_from=dt.date.fromisoformat(header["effective_from"]),
            effective_from_cite=header.get("effective_from_cite", ""),
            seed=header["seed"],
            title=header["title"],
            venue_type=header["venue_type"],
            currency=header["currency"],
            time_zone=header["time_zone"],
            content_sha256=event.payload["content_sha256"],
            source_name=event.payload["source_name"],
            loaded_position=event.position,
        )
        StakeLimit.objects.bulk_create(
            StakeLimit(
                key=f"{key}/{row['game']}.{row['bet_unit']}", rulebook=version,
                limit_id=row["id"], game=row["game"], bet_unit=row["bet_unit"],
                stake_minor_max=row["stake_minor_max"], raise_rule=row["raise_rule"],
                cite=row["cite"], note=row.get("note", ""),
            )
            for row in content.get("stake_limits", [])
        )
        WinLimit.objects.bulk_create(
            WinLimit(
                key=f"{key}/{row['id']}", rulebook=version, limit_id=row["id"],
                scope=row["scope"], win_minor_max=row["win_minor_max"], cite=row["cite"],
                note=row.get("note", ""),
            )
            for row in content.get("win_limits", [])
        )
        Figure.objects.bulk_create(
            Figure(
                key=f"{key}/{row['key']}", rulebook=version, figure_key=row["key"],
                value=row["value"], unit=row["unit"],
                # A value no seed line holds has no cite, only its decision.
                cite=row.get("cite", ""),
                note=row.get("note", ""), decision=row.get("decision", ""),
                effective_from=(dt.date.fromisoformat(row["effective_from"])
                                if row.get("effective_from") else None),
            )
            for row in content.get("figures", [])
        )
        Decision.objects.bulk_create(
            Decision(
                key=f"{key}/decision/{index}", rulebook=version, index=index,
                topic=row["topic"], decision=row["decision"], reason=row["reason"],
                cite=row.get("cite", ""),
            )
            for index, row in enumerate(content.get("decisions", []))
        )
        RuleTable.objects.bulk_create(
            RuleTable(
                key=f"{key}/table/{row['key']}", rulebook=version, table_key=row["key"],
                rows=row["rows"], cite=row["cite"], note=row.get("note", ""),
                decision=row.get("decision", ""),
            )
            for row in content.get("tables", [])
        )


class VenueProjection:
    name = "rules.venues"
    tables = property(lambda self: _rules_tables())
    event_types = frozenset({VENUE_REGISTERED, VENUE_CHANGED})

    def reset(self) -> None:
        Venue.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        registered = [event for event in events if event.type == VENUE_REGISTERED]
        Venue.objects.bulk_create(
            Venue(
                code=event.payload["code"],
                name=event.payload["name"],
                rulebook_id=event.payload["rulebook_id"],
                currency=event.payload["currency"],
                time_zone=event.payload["time_zone"],
                gaming_day_start=dt.time.fromisoformat(event.payload["gaming_day_start"]),
                registered_position=event.position,
                # Registrations before the type was recorded carry none.
                venue_type=event.payload.get("venue_type", ""),
                adults_only=event.payload.get("adults_only", False),
                adults_only_position=event.position,
            )
            for event in registered
        )
        for event in events:
            if event.type != VENUE_CHANGED:
                continue
            changes = event.payload["changes"]
            update: dict = {"changed_position": event.position}
            if "name" in changes:
                update["name"] = changes["name"]
            if "adults_only" in changes:
                update.update(adults_only=changes["adults_only"],
                              adults_only_position=event.position)
            Venue.objects.filter(code=event.payload["code"]).update(**update)
