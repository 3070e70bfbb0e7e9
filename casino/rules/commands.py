"""Write side of the rules app: loading rulebooks and registering venues.

Both run through `casino.runner.run`: the load reads the stream's version
first, then the rows; the decision expects that version, so two loaders of
one version, or two registrations of one venue code, cannot both succeed.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from casino.clock import operator_day
from casino.runner import BaseCommand, Call, Decision, run
from ledger import Metadata, NewEvent, RecordedEvent
from ledger.read import stream_version

from .errors import RulesError, RulesErrorCode
from .events import (RULEBOOK_LOADED, VENUE_CHANGED, VENUE_REGISTERED, rulebook_stream,
                     venue_stream)
from .loading import read_rulebook, shipped_rulebook_files
from .models import RulebookVersion, Venue, VenueType
from .queries import venue_day

SOURCE = "casino.rules"
SYSTEM = Metadata(actor="system", source=SOURCE)


def _call(metadata: Metadata, key: str | None, at: dt.datetime | None = None) -> Call:
    return Call(actor=metadata.actor, key=key, at=at, source=metadata.source,
                request_id=metadata.request_id or "",
                correlation_id=metadata.correlation_id or "")


def _version_exists(rulebook_id: str, version: int, why: str = "") -> RulesError:
    message = (f"{rulebook_id} v{version} cannot be loaded: {why}" if why else
               f"{rulebook_id} v{version} is already loaded with other content; "
               "publish the change as a new version")
    return RulesError(RulesErrorCode.VERSION_EXISTS, message,
                      rulebook_id=rulebook_id, version=version)


@dataclass(frozen=True, slots=True)
class RulebookContext:
    rulebook_id: str
    version: int
    stream_version: int
    at: dt.datetime


class LoadRulebook(BaseCommand[RulebookContext, tuple[RulebookVersion, bool]]):
    """Load one rulebook file's content (the command holds the content read)."""

    name = "rules.load_rulebook"
    source = SOURCE

    def __init__(self, content: Mapping[str, Any], sha256: str, source_name: str) -> None:
        self.content, self.sha256, self.source_name = content, sha256, source_name

    def load(self, arguments: Mapping[str, Any], call: Call) -> RulebookContext:
        rulebook_id, version = arguments["rulebook_id"], arguments["version"]
        current = stream_version(rulebook_stream(rulebook_id))
        existing = RulebookVersion.objects.filter(rulebook_id=rulebook_id,
                                                  version=version).first()
        if existing is not None:
            raise _version_exists(rulebook_id, version)
        if current != version - 1:
            # Version n of a rulebook is the stream's n-th event.
            raise _version_exists(rulebook_id, version,
                                  f"the stream holds {current} versions")
        return RulebookContext(rulebook_id=rulebook_id, version=version,
                               stream_version=current, at=call.moment())

    def decide(self, context: RulebookContext) -> Decision:
        stream = rulebook_stream(context.rulebook_id)
        event = NewEvent(stream=stream, type=RULEBOOK_LOADED,
                         payload={"content": self.content, "content_sha256": self.sha256,
                                  "source_name": self.source_name},
                         occurred_at=context.at, gaming_day=operator_day(context.at))
        return Decision([event], {stream: context.stream_version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool
               ) -> tuple[RulebookVersion, bool]:
        header = events[0].payload["content"]["rulebook"]
        return (RulebookVersion.objects.get(rulebook_id=header["id"], version=header["version"]),
                not replayed)


def load_rulebook(path: Path, *, metadata: Metadata = SYSTEM) -> tuple[RulebookVersion, bool]:
    """Load one rulebook file as an event; return (version, newly_loaded).

    Loading the same bytes again writes nothing. Loading different content
    for a version already loaded is refused: versions are never rewritten.
    """
    content, sha256 = read_rulebook(path)
    header = content["rulebook"]
    rulebook_id, version = header["id"], header["version"]
    existing = RulebookVersion.objects.filter(rulebook_id=rulebook_id, version=version).first()
    if existing is not None:
        if existing.content_sha256 != sha256:
            raise _version_exists(rulebook_id, version)
        return existing, False
    return run(LoadRulebook(content, sha256, path.name),
               {"rulebook_id": rulebook_id, "version": version, "content_sha256": sha256},
               _call(metadata, f"rules/load/{rulebook_id}/v{version}/{sha256}"))


def load_shipped_rulebooks(metadata: Metadata = SYSTEM) -> list[tuple[RulebookVersion, bool]]:
    """Load every shipped rulebook file in casino/rules/data, oldest version first."""
    return [load_rulebook(path, metadata=metadata) for path in shipped_rulebook_files()]


@dataclass(frozen=True, slots=True)
class VenueContext:
    arguments: Mapping[str, Any]
    latest: RulebookVersion
    gaming_day_start: dt.time
    at: dt.datetime


class RegisterVenue(BaseCommand[VenueContext, Venue]):
    name = "rules.register_venue"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> VenueContext:
        code, rulebook_id = arguments["code"], arguments["rulebook_id"]
        if stream_version(venue_stream(code)):
            raise RulesError(RulesErrorCode.VENUE_EXISTS, f"venue {code} already exists",
                             venue=code)
        latest = (RulebookVersion.objects.filter(rulebook_id=rulebook_id)
                  .order_by("-version").first())
        if latest is None:
            raise RulesError(RulesErrorCode.UNKNOWN_RULEBOOK, f"no rulebook {rulebook_id!r}",
                             rulebook_id=rulebook_id)
        wanted = arguments.get("venue_type")
        if wanted is not None and wanted != latest.venue_type:
            raise RulesError(RulesErrorCode.VENUE_TYPE_MISMATCH,
                             f"{rulebook_id} is the rulebook of a {latest.venue_type} venue,"
                             f" not of a {wanted}", rulebook_id=rulebook_id,
                             venue_type=wanted, rulebook_venue_type=latest.venue_type)
        _check_adults_only(latest.venue_type, arguments.get("adults_only", False))
        start = arguments["gaming_day_start"]
        if start is None:
            boundary = latest.figures.filter(figure_key="gaming_day.boundary").first()
            start = boundary.value if boundary else "00:00"
        return VenueContext(arguments=arguments, latest=latest,
                            gaming_day_start=dt.time.fromisoformat(start), at=call.moment())

    def decide(self, context: VenueContext) -> Decision:
        a, latest = context.arguments, context.latest
        stream = venue_stream(a["code"])
        place = Venue(code=a["code"], time_zone=latest.time_zone,
                      gaming_day_start=context.gaming_day_start)
        event = NewEvent(
            stream=stream,
            type=VENUE_REGISTERED,
            payload={
                "code": a["code"],
                "name": a["name"],
                "rulebook_id": a["rulebook_id"],
                "currency": latest.currency,
                "time_zone": latest.time_zone,
                "gaming_day_start": context.gaming_day_start.strftime("%H:%M"),
                "venue_type": latest.venue_type,
                "adults_only": bool(a.get("adults_only", False)),
            },
            occurred_at=context.at,
            gaming_day=venue_day(place, context.at),
        )
        return Decision([event], {stream: 0})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Venue:
        return Venue.objects.get(code=events[0].payload["code"])


REGISTER_VENUE = RegisterVenue()


def register_venue(
    *,
    code: str,
    name: str,
    rulebook_id: str,
    gaming_day_start: dt.time | None = None,
    venue_type: str | None = None,
    adults_only: bool = False,
    metadata: Metadata = SYSTEM,
    idempotency_key: str | None = None,
) -> Venue:
    """Register a venue under a rulebook; currency, time zone and type follow it.

    The gaming day starts at the rulebook's `gaming_day.boundary` figure
    where it has one. Decision: elsewhere it is the calendar day (00:00),
    the reading the online rules give "day" (see ray-online's decisions).
    `venue_type` (gaming_hall, partner_premises, casino, online, ...) is the
    rulebook's: naming another is 422 rules.venue_type_mismatch (a venue's
    type is the rulebook it plays under). `adults_only` posts that only
    people aged 18 or over enter: meaningful for partner premises only
    (002:L1401, L3371; a hall and the casino admit adults only anyway, the
    online service has no premises), 400 rules.invalid_venue elsewhere.
    """
    if not code or "/" in code or len(code) > 60:
        raise RulesError(RulesErrorCode.INVALID_VENUE, "venue code must be 1-60 characters "
                         "without '/'")
    if venue_type is not None and venue_type not in VenueType.values:
        raise RulesError(RulesErrorCode.INVALID_VENUE, f"unknown venue type {venue_type!r}",
                         field="venue_type")
    arguments = {"code": code, "name": name, "rulebook_id": rulebook_id,
                 "gaming_day_start": (gaming_day_start.strftime("%H:%M")
                                      if gaming_day_start is not None else None)}
    # Only named when given, so requests recorded before these fields
    # keep their fingerprint.
    if venue_type is not None:
        arguments["venue_type"] = venue_type
    if adults_only:
        arguments["adults_only"] = True
    return run(REGISTER_VENUE, arguments, _call(metadata, idempotency_key))


def _check_adults_only(venue_type: str, adults_only: bool | None) -> None:
    if adults_only and venue_type != VenueType.PARTNER_PREMISES:
        raise RulesError(RulesErrorCode.INVALID_VENUE,
                         "an 18+ entry is posted for partner premises only (a hall and the"
                         " casino admit adults only, online has no premises)",
                         field="adults_only", venue_type=venue_type)


@dataclass(frozen=True, slots=True)
class ChangeContext:
    place: Venue
    venue_type: str
    version: int
    changes: Mapping[str, Any]
    at: dt.datetime


class ChangeVenue(BaseCommand[ChangeContext, Venue]):
    """Change a venue's name or 18+ entry (its rulebook and day start stay)."""

    name = "rules.change_venue"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> ChangeContext:
        code = arguments["code"]
        stream = venue_stream(code)
        version = stream_version(stream)
        place = Venue.objects.filter(code=code).first()
        if not version or place is None:
            raise RulesError(RulesErrorCode.UNKNOWN_VENUE, f"no venue {code!r}", venue=code)
        latest = (RulebookVersion.objects.filter(rulebook_id=place.rulebook_id)
                  .order_by("-version").first())
        _check_adults_only(latest.venue_type, arguments["changes"].get("adults_only"))
        return ChangeContext(place, latest.venue_type, version, arguments["changes"],
                             call.moment())

    def decide(self, context: ChangeContext) -> Decision:
        stream = venue_stream(context.place.code)
        event = NewEvent(stream=stream, type=VENUE_CHANGED,
                         payload={"code": context.place.code, "changes": dict(context.changes),
                                  "venue_type": context.venue_type},
                         occurred_at=context.at, gaming_day=venue_day(context.place, context.at))
        return Decision([event], {stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Venue:
        return Venue.objects.get(code=events[0].payload["code"])


CHANGE_VENUE = ChangeVenue()


def change_venue(*, code: str, name: str | None = None, adults_only: bool | None = None,
                 metadata: Metadata = SYSTEM, idempotency_key: str | None = None) -> Venue:
    """Change a venue: its name, or whether only adults enter.

    404 rules.unknown_venue; 400 rules.invalid_venue for nothing to change
    or an 18+ entry off partner premises. Decision (rules.venue.change,
    not in the seeds): the rulebook (so the type, currency and time zone)
    and the gaming-day start are not changed, since closed days and
    recorded events were dated by them: a venue under other rules is
    another venue.
    """
    changes: dict[str, Any] = {}
    if name is not None:
        if not name.strip() or len(name) > 200:
            raise RulesError(RulesErrorCode.INVALID_VENUE, "name: 1-200 characters",
                             field="name")
        changes["name"] = name
    if adults_only is not None:
        changes["adults_only"] = bool(adults_only)
    if not changes:
        raise RulesError(RulesErrorCode.INVALID_VENUE, "nothing to change")
    return run(CHANGE_VENUE, {"code": code, "changes": changes},
               _call(metadata, idempotency_key))


def venue_zone(venue: Venue) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(venue.time_zone)
