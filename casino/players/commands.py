"""Write side of the players app: one command per operation, run by casino.runner.

Each public function validates its arguments and hands them to
`casino.runner.run`, which replays a recorded key, loads (the player
stream's version first, then the player and the venue's rulebook), decides
the event (pure) and appends it expecting that version. `at` is the business
time of the request (default: now); API views never pass it, tests do to
walk the clock.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.db import IntegrityError

from casino import clock
from casino.rules import queries as rules
from casino.rules.models import RulebookVersion, Venue
from casino.clock import operator_day
from casino.privacy.crypto import SEALED_FIELD, seal
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from ledger import NewEvent, RecordedEvent
from ledger.read import stream_version

from .errors import PlayerError, PlayerErrorCode
from .events import (
    IDENTITY_VERIFIED,
    LIMIT_SET,
    PLAYER_REGISTERED,
    SELF_EXCLUDED,
    player_stream,
)
from .models import LimitKind, Player, PlayerLimit, VerificationMethod, VerificationStatus

SOURCE = "casino.players"
DOCUMENT_TYPES = frozenset({"passport", "id_card", "driving_licence", "national_id"})
NAME_LENGTH_MAX = 100
# Figure keys in the venue's rulebook (ray-online: 002:L3078-L3086).
LIMIT_DELAY_FIGURES = {
    LimitKind.DAILY_SPEND: "online.limits.daily_spend.increase_delay",
    LimitKind.MONTHLY_SPEND: "online.limits.monthly_spend.increase_delay",
    LimitKind.DAILY_TIME: "online.limits.time.increase_delay",
}
# The rule each limit kind is set under; its line is what a limit event cites
# (the delays themselves are decisions, not seed figures).
LIMIT_RULE_FIGURES = {
    LimitKind.DAILY_SPEND: "online.limits.daily_spend.mandatory",      # 002:L3078
    LimitKind.MONTHLY_SPEND: "online.limits.monthly_spend.mandatory",  # 002:L3078
    LimitKind.DAILY_TIME: "online.limits.time.mandatory",              # 002:L3080
}
SELF_EXCLUSION_MONTHS_FIGURE = "online.self_exclusion.max_months"
# A refused lengthening of a running self-exclusion, on `player/<id>/rejections`.
SELF_EXCLUSION_REJECTED = "players.self_exclusion_rejected"
SELF_EXCLUSION_REVOCABLE_FIGURE = "online.self_exclusion.revocable"
# How soon a lowered limit takes effect (ray-online: 0 hours, at once).
LIMIT_DECREASE_FIGURE = "online.limits.decrease_delay"
# Gaming accounts one person may hold with the operator (002:L3064).
ACCOUNTS_PER_PERSON_FIGURE = "online.account.max_per_person"
# A refused registration, on REGISTRATION_REJECTIONS (no personal data).
REGISTRATION_REJECTED = "players.registration_rejected"
REGISTRATION_REJECTIONS = "players/registrations/rejections"


def load_player(player_id: str) -> Player:
    try:
        return Player.objects.get(id=player_id)
    except Player.DoesNotExist:
        raise PlayerError(PlayerErrorCode.UNKNOWN_PLAYER, f"no player {player_id!r}",
                          player=player_id) from None


def identity_key(nationality: str, document_type: str, document_number: str) -> str:
    normalised = re.sub(r"[\s-]", "", document_number).upper()
    return hashlib.sha256(f"{nationality}:{document_type}:{normalised}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class PlayerContext:
    """What a player command read: the stream's version first, then the state."""

    arguments: Mapping[str, Any]
    at: dt.datetime
    player_id: str
    version: int
    player: Player | None = None
    venue: Venue | None = None
    rulebook: RulebookVersion | None = None
    figure: Any = None
    limit: PlayerLimit | None = None
    # A limit's decrease delay (online.limits.decrease_delay), when stated.
    decrease_figure: Any = None
    # A registration's personal data, sealed under the player's own key
    # (casino.privacy, issue 18 item 8).
    sealed: Mapping[str, Any] | None = None


def _limit_cite(context: "PlayerContext") -> str:
    """The seed line of the rule a limit is set under (002:L3078 money, L3080 time)."""
    rule = rules.figure(context.rulebook,
                        LIMIT_RULE_FIGURES[LimitKind(context.arguments["kind"])])
    return rule.cite if rule is not None else context.figure.cite


def _venue_day(venue: Venue, at: dt.datetime) -> dt.date:
    return rules.venue_day(venue, at)


# The registration's fields that are personal data: sealed in the event.
PERSONAL_FIELDS = ("given_name", "family_name", "date_of_birth", "nationality",
                   "document_type", "identity_key", "document_hint")
REGISTERED_SCHEMA_VERSION = 2


class RegisterPlayer(BaseCommand[PlayerContext, Player]):
    name = "players.register_player"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> PlayerContext:
        at = call.moment()
        existing = Player.objects.filter(identity_key=arguments["identity_key"]).first()
        allowed = _accounts_per_person(at)
        held = 0 if existing is None else 1
        if allowed is not None and held >= allowed.value or allowed is None and held:
            return PlayerContext(arguments=arguments, at=at, player_id=existing.id if existing
                                 else "", version=0, figure=allowed)
        # A fresh id each attempt: the request, not the event, identifies a retry.
        player_id = uuid.uuid4().hex[:16]
        # Issue 18 item 8: the personal data enter the log sealed under the
        # player's own key (a key left by an attempt that does not commit
        # seals nothing and is never used).
        sealed = seal(player_id, {name: arguments[name] for name in PERSONAL_FIELDS})
        return PlayerContext(arguments=arguments, at=at,
                             player_id=player_id, version=0, sealed=sealed)

    def check(self, context: PlayerContext) -> Rejection | None:
        """One gaming account per person (002:L3064), as the rulebook states it.

        Refused with `players.duplicate_identity` and recorded on
        REGISTRATION_REJECTIONS with the rule's figure and citation (the
        person's existing player id, no personal data).
        """
        if context.sealed is not None:
            return None
        figure = context.figure
        limit = figure.value if figure is not None else 1
        message = ("a player with this identity document is already registered"
                   if context.player_id else
                   f"no gaming account may be opened: at most {limit} per person")
        details = {"player": context.player_id or None, "accounts_max": limit,
                   "cite": figure.cite if figure is not None else "",
                   "rulebook": figure.rulebook_id if figure is not None else None}
        event = NewEvent(stream=REGISTRATION_REJECTIONS, type=REGISTRATION_REJECTED,
                         occurred_at=context.at, gaming_day=operator_day(context.at),
                         payload={"rule": str(PlayerErrorCode.DUPLICATE_IDENTITY),
                                  "message": message, "details": details})

        def error(position: int) -> PlayerError:
            return PlayerError(PlayerErrorCode.DUPLICATE_IDENTITY, message,
                               rejection_position=position, **details)

        return Rejection(event, error)

    def decide(self, context: PlayerContext) -> Decision:
        player_id = context.player_id
        # Schema 2: the personal data sealed (casino.privacy); schema 1 events
        # from before carry them in clear and are read as they are.
        event = NewEvent(
            stream=player_stream(player_id),
            type=PLAYER_REGISTERED,
            payload={"player_id": player_id, SEALED_FIELD: dict(context.sealed)},
            schema_version=REGISTERED_SCHEMA_VERSION,
            occurred_at=context.at, gaming_day=operator_day(context.at),
        )
        return Decision([event], {player_stream(player_id): 0})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Player:
        if events[0].type == REGISTRATION_REJECTED:
            p = events[0].payload
            raise PlayerError(p["rule"], p["message"], rejection_position=events[0].position,
                              **p["details"])
        return load_player(events[0].payload["player_id"])


def _accounts_per_person(at: dt.datetime):
    """The fewest gaming accounts per person a rulebook in force allows (None: none says).

    The player register is the operator's, not a venue's, so the strictest
    rulebook in force that states `online.account.max_per_person` governs
    (ray-online: 1, 002:L3064). The register's unique identity key holds
    one player per document whatever a rulebook says, so a figure above 1
    cannot open a second account; a figure of 0 refuses every registration.
    """
    found = []
    for version in rules.versions_in_force(operator_day(at)):
        row = rules.figure(version, ACCOUNTS_PER_PERSON_FIGURE, on=operator_day(at))
        if row is not None:
            found.append((row.value, version.rulebook_id, row))
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None


class VerifyIdentity(BaseCommand[PlayerContext, Player]):
    name = "players.verify_identity"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> PlayerContext:
        player_id = arguments["player_id"]
        version = stream_version(player_stream(player_id))
        player = load_player(player_id)
        if player.verification_status == VerificationStatus.VERIFIED:
            raise PlayerError(PlayerErrorCode.ALREADY_VERIFIED, "identity is already verified",
                              player=player_id)
        return PlayerContext(arguments=arguments, at=call.moment(), player_id=player_id,
                             version=version, player=player)

    def decide(self, context: PlayerContext) -> Decision:
        stream = player_stream(context.player_id)
        event = NewEvent(stream=stream, type=IDENTITY_VERIFIED,
                         payload={"player_id": context.player_id,
                                  "method": context.arguments["method"]},
                         occurred_at=context.at, gaming_day=operator_day(context.at))
        return Decision([event], {stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Player:
        return load_player(events[0].payload["player_id"])


@dataclass(frozen=True, slots=True)
class SelfExclusionContext:
    """What a self-exclusion decides from: the term asked and the one running."""

    arguments: Mapping[str, Any]
    at: dt.datetime
    player_id: str
    version: int
    venue: Venue
    rulebook: RulebookVersion
    figure: Any                      # online.self_exclusion.max_months (002:L3086)
    start: dt.datetime               # the continuous exclusion's first moment
    until: dt.datetime               # the end asked for: `at` + months
    until_max: dt.datetime           # `start` + the maximum
    running_until: dt.datetime | None = None   # the end of the one running
    revocable: Any = None            # online.self_exclusion.revocable (002:L3086)


class SelfExclude(BaseCommand[SelfExclusionContext, Player]):
    """Exclude a player, or lengthen the exclusion running (002:L3086).

    002:L3086: an exclusion lasts at most 12 months continuously and cannot
    be revoked while it runs. Decision online.self_exclusion.term (the
    rulebook's own): lengthening starts a new term from the request within
    the same continuous maximum, counted from the running exclusion's
    start. A request while one runs that ends no later than it (it would
    shorten or not change it: reason `not_later`) or ends after that
    maximum (reason `beyond_max`) is refused with
    `players.self_exclusion_active` and the refusal recorded.
    """

    name = "players.self_exclude"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> SelfExclusionContext:
        at = call.moment()
        player_id, months = arguments["player_id"], arguments["months"]
        version = stream_version(player_stream(player_id))
        venue = rules.venue(arguments["venue"])
        rulebook = rules.rulebook_in_force(venue.rulebook_id, at.date())
        maximum = rules.figure(rulebook, SELF_EXCLUSION_MONTHS_FIGURE)
        if maximum is None:
            raise PlayerError(PlayerErrorCode.INVALID_SELF_EXCLUSION,
                              f"rulebook {rulebook.key} has no self-exclusion rule")
        if type(months) is not int or not 1 <= months <= maximum.value:
            raise PlayerError(PlayerErrorCode.INVALID_SELF_EXCLUSION,
                              f"months must be 1 to {maximum.value} ({maximum.cite})",
                              months_max=maximum.value, cite=maximum.cite)
        player = load_player(player_id)
        running = player.is_self_excluded_at(at)
        start = player.self_excluded_from if running else at
        return SelfExclusionContext(
            arguments=arguments, at=at, player_id=player_id, version=version, venue=venue,
            rulebook=rulebook, figure=maximum, start=start, until=_add_months(at, months),
            until_max=_add_months(start, maximum.value),
            running_until=player.self_excluded_until if running else None,
            revocable=rules.figure(rulebook, SELF_EXCLUSION_REVOCABLE_FIGURE))

    def check(self, context: SelfExclusionContext) -> Rejection | None:
        running_until = context.running_until
        if running_until is None:
            return None
        # 002:L3086: it cannot be revoked (nor shortened) while it runs,
        # unless the rulebook makes it revocable (a missing switch: not).
        revocable = context.revocable is not None and context.revocable.value is True
        if context.until <= running_until and not revocable:
            return _self_exclusion_rejection(
                context, PlayerErrorCode.SELF_EXCLUSION_ACTIVE, "not_later",
                f"a self-exclusion runs until {running_until.isoformat()} and cannot be"
                " shortened; a new term must end after it")
        if context.until > context.until_max:
            # 002:L3086: at most 12 months continuously.
            return _self_exclusion_rejection(
                context, PlayerErrorCode.SELF_EXCLUSION_ACTIVE, "beyond_max",
                f"lengthened, the exclusion running since {context.start.isoformat()}"
                f" would last beyond {context.figure.value} months"
                f" ({context.until_max.isoformat()})")
        return None

    def decide(self, context: SelfExclusionContext) -> Decision:
        at, stream = context.at, player_stream(context.player_id)
        payload = {"player_id": context.player_id, "months": context.arguments["months"],
                   "from": context.start.isoformat(), "until": context.until.isoformat(),
                   "rulebook": context.rulebook.key, "cite": context.figure.cite}
        if context.running_until is not None:
            payload["lengthens_until"] = context.running_until.isoformat()
        event = NewEvent(stream=stream, type=SELF_EXCLUDED, occurred_at=at,
                         gaming_day=_venue_day(context.venue, at), payload=payload)
        return Decision([event], {stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Player:
        first = events[0]
        if first.type == SELF_EXCLUSION_REJECTED:
            p = first.payload
            raise PlayerError(p["rule"], p["message"], **p["details"])
        return load_player(first.payload["player_id"])


def _self_exclusion_rejection(context: SelfExclusionContext, code: PlayerErrorCode,
                              reason: str, message: str) -> Rejection:
    """The refused self-exclusion request, recorded on the player's rejections (pure)."""
    details = {"reason": reason, "running_until": context.running_until.isoformat(),
               "until_asked": context.until.isoformat(),
               "until_max": context.until_max.isoformat(),
               "months_max": context.figure.value, "cite": context.figure.cite}
    event = NewEvent(
        stream=f"{player_stream(context.player_id)}/rejections",
        type=SELF_EXCLUSION_REJECTED, occurred_at=context.at,
        gaming_day=_venue_day(context.venue, context.at),
        payload={"player_id": context.player_id, "months": context.arguments["months"],
                 "rule": str(code), "message": message, "details": details,
                 "rulebook": context.rulebook.key})

    def error(position: int) -> PlayerError:
        return PlayerError(code, message, rejection_position=position, **details)

    return Rejection(event, error)


class SetLimit(BaseCommand[PlayerContext, PlayerLimit]):
    name = "players.set_limit"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> PlayerContext:
        at = call.moment()
        player_id, kind = arguments["player_id"], arguments["kind"]
        version = stream_version(player_stream(player_id))
        player = load_player(player_id)
        venue = rules.venue(arguments["venue"])
        rulebook = rules.rulebook_in_force(venue.rulebook_id, at.date())
        delay_figure = rules.figure(rulebook, LIMIT_DELAY_FIGURES[LimitKind(kind)])
        if delay_figure is None:
            raise PlayerError(PlayerErrorCode.INVALID_LIMIT,
                              f"rulebook {rulebook.key} has no player-set limits")
        current = PlayerLimit.objects.filter(player=player, kind=kind).first()
        return PlayerContext(arguments=arguments, at=at, player_id=player_id, version=version,
                             player=player, venue=venue, rulebook=rulebook,
                             figure=delay_figure, limit=current,
                             decrease_figure=rules.figure(rulebook, LIMIT_DECREASE_FIGURE))

    def decide(self, context: PlayerContext) -> Decision:
        at, stream = context.at, player_stream(context.player_id)
        kind, value = context.arguments["kind"], context.arguments["value"]
        delay = dt.timedelta(**{context.figure.unit: context.figure.value})
        in_force = context.limit.value_at(at) if context.limit else None
        raising = in_force is not None and value > in_force
        # A lower (or first) limit waits the rulebook's decrease delay
        # (ray-online: 0 hours, at once; none stated: at once).
        lowering = context.decrease_figure
        lower_delay = (dt.timedelta(**{lowering.unit: lowering.value})
                       if lowering is not None and in_force is not None and value < in_force
                       else dt.timedelta(0))
        effective_at = at + delay if raising else at + lower_delay
        event = NewEvent(
            stream=stream, type=LIMIT_SET, occurred_at=at,
            gaming_day=_venue_day(context.venue, at),
            payload={"player_id": context.player_id, "kind": kind, "value": value,
                     "in_force_before": in_force, "effective_at": effective_at.isoformat(),
                     "rulebook": context.rulebook.key, "cite": _limit_cite(context)},
        )
        return Decision([event], {stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> PlayerLimit:
        payload = events[0].payload
        return PlayerLimit.objects.get(player_id=payload["player_id"], kind=payload["kind"])


COMMANDS = {command.name: command for command in (
    RegisterPlayer(), VerifyIdentity(), SelfExclude(), SetLimit())}


def _call(actor: str, idempotency_key: str | None, at: dt.datetime | None) -> Call:
    return Call(actor=actor, key=idempotency_key, at=at, source=SOURCE)


def register_player(
    *,
    given_name: str,
    family_name: str,
    date_of_birth: dt.date,
    nationality: str,
    document_type: str,
    document_number: str,
    actor: str,
    idempotency_key: str | None = None,
    at: dt.datetime | None = None,
) -> Player:
    """Register a person; a second registration of one document is refused.

    One gaming account per person per operator (002:L3064): the identity
    document is the person's key. Age and verification are checked when the
    player stakes or deposits, not here.
    """
    for field, value in (("given_name", given_name), ("family_name", family_name)):
        if not value.strip() or len(value) > NAME_LENGTH_MAX:
            raise PlayerError(PlayerErrorCode.INVALID_PLAYER, f"{field} must be 1-100 characters",
                              field=field)
    if not re.fullmatch(r"[A-Z]{2}", nationality):
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          "nationality must be an ISO 3166 two-letter code")
    if document_type not in DOCUMENT_TYPES:
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          f"document_type must be one of {sorted(DOCUMENT_TYPES)}")
    if not 4 <= len(document_number.strip()) <= 40:
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          "document_number must be 4-40 characters")
    moment = at or clock.now()
    if date_of_birth > moment.date():
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER, "date_of_birth is in the future")
    # The identity key, not the document number, is part of the request.
    arguments = {"given_name": given_name, "family_name": family_name,
                 "date_of_birth": date_of_birth.isoformat(), "nationality": nationality,
                 "document_type": document_type,
                 "identity_key": identity_key(nationality, document_type, document_number),
                 "document_hint": "…" + document_number.strip()[-3:]}
    try:
        return run(COMMANDS["players.register_player"], arguments,
                   _call(actor, idempotency_key, moment))
    except IntegrityError:
        # Two registrations of one document raced past the load; the unique
        # identity_key let exactly one of them in.
        raise PlayerError(PlayerErrorCode.DUPLICATE_IDENTITY,
                          "a player with this identity document is already registered") from None


def verify_identity(*, player_id: str, method: str, actor: str,
                    idempotency_key: str | None = None, at: dt.datetime | None = None) -> Player:
    """Record that the player's identity was verified, and how."""
    if method not in VerificationMethod.values:
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          f"method must be one of {VerificationMethod.values}")
    return run(COMMANDS["players.verify_identity"], {"player_id": player_id, "method": method},
               _call(actor, idempotency_key, at))


def _add_months(moment: dt.datetime, months: int) -> dt.datetime:
    month_index = moment.month - 1 + months
    year, month = moment.year + month_index // 12, month_index % 12 + 1
    # Clamp to the month's last day (31 Jan + 1 month = 28/29 Feb).
    next_month = dt.date(year + month // 12, month % 12 + 1, 1)
    day = min(moment.day, (next_month - dt.timedelta(days=1)).day)
    return moment.replace(year=year, month=month, day=day)


def self_exclude(*, player_id: str, months: int, venue_code: str, actor: str,
                 idempotency_key: str | None = None, at: dt.datetime | None = None) -> Player:
    """Exclude the player from all play, at once, for 1 to 12 months.

    002:L3086: at most 12 months continuously, and it cannot be revoked
    while it runs. While one runs, a new request lengthens it: the new term
    runs `months` from now, must end after the running one and within 12
    months of its start (decision online.self_exclusion.term; SelfExclude).
    Raises PlayerError (`players.self_exclusion_active`, recorded, its
    `reason` `not_later` or `beyond_max`).
    """
    return run(COMMANDS["players.self_exclude"],
               {"player_id": player_id, "months": months, "venue": venue_code},
               _call(actor, idempotency_key, at))


def set_limit(*, player_id: str, kind: str, value: int, venue_code: str, actor: str,
              idempotency_key: str | None = None, at: dt.datetime | None = None) -> PlayerLimit:
    """Set a player's own limit: lower at once, higher after the cooling-off.

    The delays are the venue rulebook's figures (ray-online: 24 hours for the
    daily and time limits, 7 days for the monthly one; a decision recorded
    there, since 002:L3078-L3086 give none). A new setting replaces a raise
    still waiting.
    """
    if kind not in LimitKind.values:
        raise PlayerError(PlayerErrorCode.INVALID_LIMIT, f"kind must be one of {LimitKind.values}")
    if type(value) is not int or value <= 0:
        raise PlayerError(PlayerErrorCode.INVALID_LIMIT, "value must be a positive integer")
    return run(COMMANDS["players.set_limit"],
               {"player_id": player_id, "kind": kind, "value": value, "venue": venue_code},
               _call(actor, idempotency_key, at))
