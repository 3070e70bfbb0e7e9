"""Write side of the rules app: loading rulebooks and registering venues."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from pathlib import Path

from ledger import Metadata, NewEvent, append
from ledger.errors import IdempotencyConflict, StaleVersion

from .errors import RulesError, RulesErrorCode
from .events import RULEBOOK_LOADED, VENUE_REGISTERED, rulebook_stream, venue_stream
from .loading import read_rulebook, shipped_rulebook_files
from .models import RulebookVersion, Venue

SYSTEM = Metadata(actor="system", source="casino.rules")


def load_rulebook(path: Path, *, metadata: Metadata = SYSTEM) -> tuple[RulebookVersion, bool]:
    """Load one rulebook file as an event; return (version, newly_loaded).

    Loading the same bytes again writes nothing. Loading different content
    for a version already loaded is refused: versions are never rewritten.
    """
    content, sha256 = read_rulebook(path)
    header = content["rulebook"]
    rulebook_id, version = header["id"], header["version"]
    existing = RulebookVersion.objects.filter(rulebook_id=rulebook_id, version=version).first()
    if existing is not None and existing.content_sha256 != sha256:
        raise RulesError(
            RulesErrorCode.VERSION_EXISTS,
            f"{rulebook_id} v{version} is already loaded with other content; "
            "publish the change as a new version",
            status=409, rulebook_id=rulebook_id, version=version,
        )
    event = NewEvent(
        stream=rulebook_stream(rulebook_id),
        type=RULEBOOK_LOADED,
        payload={"content": content, "content_sha256": sha256, "source_name": path.name},
    )
    try:
        result = append(
            [event],
            # Version n of a rulebook is the stream's n-th event, so two
            # loaders racing on one version cannot both succeed.
            expected_versions={rulebook_stream(rulebook_id): version - 1},
            idempotency_key=f"rules/load/{rulebook_id}/v{version}/{sha256}",
            metadata=metadata,
        )
    except (StaleVersion, IdempotencyConflict) as error:
        raise RulesError(
            RulesErrorCode.VERSION_EXISTS,
            f"{rulebook_id} v{version} cannot be loaded: {error}", status=409,
        ) from None
    return RulebookVersion.objects.get(rulebook_id=rulebook_id, version=version), not result.replayed


def load_shipped_rulebooks(metadata: Metadata = SYSTEM) -> list[tuple[RulebookVersion, bool]]:
    """Load every rulebook file shipped in casino/rules/data, oldest version first."""
    return [load_rulebook(path, metadata=metadata) for path in shipped_rulebook_files()]


def register_venue(
    *,
    code: str,
    name: str,
    rulebook_id: str,
    gaming_day_start: dt.time | None = None,
    metadata: Metadata = SYSTEM,
    idempotency_key: str | None = None,
) -> Venue:
    """Register a venue under a rulebook; currency and time zone follow it.

    The gaming day starts at the rulebook's `gaming_day.boundary` figure
    where it has one. Decision: elsewhere it is the calendar day (00:00),
    the reading the online rules give "day" (see ray-online's decisions).
    """
    if not code or "/" in code or len(code) > 60:
        raise RulesError(RulesErrorCode.INVALID_VENUE, "venue code must be 1-60 characters "
                         "without '/'", status=400)
    latest = RulebookVersion.objects.filter(rulebook_id=rulebook_id).order_by("-version").first()
    if latest is None:
        raise RulesError(RulesErrorCode.UNKNOWN_RULEBOOK, f"no rulebook {rulebook_id!r}",
                         status=404, rulebook_id=rulebook_id)
    if gaming_day_start is None:
        boundary = latest.figures.filter(figure_key="gaming_day.boundary").first()
        gaming_day_start = dt.time.fromisoformat(boundary.value) if boundary else dt.time(0, 0)
    event = NewEvent(
        stream=venue_stream(code),
        type=VENUE_REGISTERED,
        payload={
            "code": code,
            "name": name,
            "rulebook_id": rulebook_id,
            "currency": latest.currency,
            "time_zone": latest.time_zone,
            "gaming_day_start": gaming_day_start.strftime("%H:%M"),
        },
    )
    try:
        append([event], expected_versions={venue_stream(code): 0},
               idempotency_key=idempotency_key, metadata=metadata)
    except StaleVersion:
        raise RulesError(RulesErrorCode.VENUE_EXISTS, f"venue {code} already exists",
                         status=409, venue=code) from None
    return Venue.objects.get(code=code)


def venue_zone(venue: Venue) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(venue.time_zone)
