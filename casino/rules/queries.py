"""Read side: which rulebook version governs, and its figures and limits."""

from __future__ import annotations

import datetime as dt

from .errors import RulesError, RulesErrorCode
from .models import Figure, RulebookVersion, RuleTable, StakeLimit, Venue, WinLimit


def rulebook_in_force(rulebook_id: str, on: dt.date) -> RulebookVersion:
    """Return the version of a rulebook that governs the given day.

    That is the loaded version with the latest effective_from on or before
    the day (the highest version on a tie).
    """
    version = (
        RulebookVersion.objects.filter(rulebook_id=rulebook_id, effective_from__lte=on)
        .order_by("-effective_from", "-version")
        .first()
    )
    if version is None:
        raise RulesError(RulesErrorCode.NO_VERSION_IN_FORCE,
                         f"no version of {rulebook_id} is in force on {on.isoformat()}",
                         rulebook_id=rulebook_id, on=on.isoformat())
    return version


def venue(code: str) -> Venue:
    try:
        return Venue.objects.get(code=code)
    except Venue.DoesNotExist:
        raise RulesError(RulesErrorCode.UNKNOWN_VENUE, f"no venue {code!r}", status=404,
                         venue=code) from None


def stake_limit(rulebook: RulebookVersion, game: str, bet_unit: str) -> StakeLimit | None:
    return StakeLimit.objects.filter(rulebook=rulebook, game=game, bet_unit=bet_unit).first()


def win_limit(rulebook: RulebookVersion) -> WinLimit | None:
    return WinLimit.objects.filter(rulebook=rulebook).order_by("win_minor_max").first()


def figure(rulebook: RulebookVersion, key: str, on: dt.date | None = None) -> Figure | None:
    """Return a figure of a rulebook version (None if this version lacks it).

    A figure with its own later effective_from only counts from that day.
    """
    row = Figure.objects.filter(rulebook=rulebook, figure_key=key).first()
    if row is not None and on is not None and row.effective_from and on < row.effective_from:
        return None
    return row


def rule_table(rulebook: RulebookVersion, key: str) -> RuleTable | None:
    """Return a cited table of a rulebook version (None if this version lacks it)."""
    return RuleTable.objects.filter(rulebook=rulebook, table_key=key).first()


def versions_in_force(on: dt.date) -> list[RulebookVersion]:
    """The governing version of every rulebook on a day."""
    latest: dict[str, RulebookVersion] = {}
    for version in RulebookVersion.objects.filter(effective_from__lte=on).order_by(
        "rulebook_id", "effective_from", "version"
    ):
        latest[version.rulebook_id] = version
    return list(latest.values())
