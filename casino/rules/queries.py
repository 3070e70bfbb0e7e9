"""Read side: which rulebook version governs, and its figures and limits.

Every answer comes from the process cache of reference data
(casino/rules/cache.py): a write reads a venue and its rulebook version
from the database once per process, not once per request.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from .cache import cached
from .errors import RulesError, RulesErrorCode
from .models import Figure, RulebookVersion, RuleTable, StakeLimit, Venue, WinLimit


def venue_day(venue, moment: dt.datetime) -> dt.date:
    """The venue's gaming day containing a moment: local date, shifted by its start.

    Zone conversion is zoneinfo's, so 23- and 25-hour days at the DST changes
    come out right.
    """
    local = moment.astimezone(zoneinfo.ZoneInfo(venue.time_zone))
    start = venue.gaming_day_start
    shifted = local - dt.timedelta(hours=start.hour, minutes=start.minute)
    return shifted.date()


def rulebook_in_force(rulebook_id: str, on: dt.date) -> RulebookVersion:
    """Return the version of a rulebook that governs the given day.

    That is the loaded version with the latest effective_from on or before
    the day (the highest version on a tie).
    """
    versions = cached(("versions", rulebook_id), lambda: list(
        RulebookVersion.objects.filter(rulebook_id=rulebook_id)
        .order_by("-effective_from", "-version")) or None)
    version = next((v for v in versions or () if v.effective_from <= on), None)
    if version is None:
        raise RulesError(RulesErrorCode.NO_VERSION_IN_FORCE,
                         f"no version of {rulebook_id} is in force on {on.isoformat()}",
                         rulebook_id=rulebook_id, on=on.isoformat())
    return version


def venue(code: str) -> Venue:
    found = cached(("venue", code), lambda: Venue.objects.filter(code=code).first())
    if found is None:
        raise RulesError(RulesErrorCode.UNKNOWN_VENUE, f"no venue {code!r}",
                         venue=code)
    return found


def stake_limits(rulebook: RulebookVersion) -> dict[tuple[str, str], StakeLimit]:
    """Return a version's stake limits by (game, bet unit)."""
    return cached(("stake_limits", rulebook.key), lambda: {
        (row.game, row.bet_unit): row
        for row in StakeLimit.objects.filter(rulebook_id=rulebook.pk)})


def stake_limit(rulebook: RulebookVersion, game: str, bet_unit: str) -> StakeLimit | None:
    return stake_limits(rulebook).get((game, bet_unit))


def win_limit(rulebook: RulebookVersion) -> WinLimit | None:
    rows = cached(("win_limits", rulebook.key), lambda: list(
        WinLimit.objects.filter(rulebook_id=rulebook.pk).order_by("win_minor_max")))
    return rows[0] if rows else None


def figures(rulebook: RulebookVersion) -> dict[str, Figure]:
    """Return every figure row of a version by key (effective dates not applied)."""
    return cached(("figures", rulebook.key), lambda: {
        row.figure_key: row for row in Figure.objects.filter(rulebook_id=rulebook.pk)})


def figures_in_force(rulebook: RulebookVersion, on: dt.date) -> dict[str, Figure]:
    """Return a version's figures in force on a day, by key (from the cache).

    A figure with its own later `effective_from` (the EU cash cap from
    2027-07-10, say) does not count before that day. The one way every app
    reads a rulebook's figures for a day.
    """
    return {key: row for key, row in figures(rulebook).items()
            if row.effective_from is None or row.effective_from <= on}


def figure(rulebook: RulebookVersion, key: str, on: dt.date | None = None) -> Figure | None:
    """Return a figure of a rulebook version (None if this version lacks it).

    A figure with its own later effective_from only counts from that day.
    """
    row = figures(rulebook).get(key)
    if row is not None and on is not None and row.effective_from and on < row.effective_from:
        return None
    return row


def rule_table(rulebook: RulebookVersion, key: str) -> RuleTable | None:
    """Return a cited table of a rulebook version (None if this version lacks it)."""
    tables = cached(("tables", rulebook.key), lambda: {
        row.table_key: row for row in RuleTable.objects.filter(rulebook_id=rulebook.pk)})
    return tables.get(key)


def versions_in_force(on: dt.date) -> list[RulebookVersion]:
    """The governing version of every rulebook on a day."""
    ordered = cached(("all_versions",), lambda: list(RulebookVersion.objects.order_by(
        "rulebook_id", "effective_from", "version")) or None)
    latest: dict[str, RulebookVersion] = {}
    for version in ordered or ():
        if version.effective_from <= on:
            latest[version.rulebook_id] = version
    return list(latest.values())
