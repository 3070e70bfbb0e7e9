"""Write side of the players app: one function per operation.

Each command loads what it needs, checks, decides the events and appends
them with one `ledger.append`. `at` is the business time of the request
(default: now); API views never pass it, tests do to walk the clock.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import uuid

from django.db import IntegrityError

from casino import clock
from casino.rules import queries as rules
from ledger import Metadata, NewEvent, append
from ledger.store import is_recorded_key

from .errors import PlayerError, PlayerErrorCode
from .events import (
    IDENTITY_VERIFIED,
    LIMIT_SET,
    PLAYER_REGISTERED,
    SELF_EXCLUDED,
    player_stream,
)
from .models import LimitKind, Player, PlayerLimit, VerificationMethod, VerificationStatus

DOCUMENT_TYPES = frozenset({"passport", "id_card", "driving_licence", "national_id"})
NAME_LENGTH_MAX = 100
# Figure keys in the venue's rulebook (ray-online: 002:L3078-L3086).
LIMIT_DELAY_FIGURES = {
    LimitKind.DAILY_SPEND: "online.limits.daily_spend.increase_delay",
    LimitKind.MONTHLY_SPEND: "online.limits.monthly_spend.increase_delay",
    LimitKind.DAILY_TIME: "online.limits.time.increase_delay",
}
SELF_EXCLUSION_MONTHS_FIGURE = "online.self_exclusion.max_months"


def load_player(player_id: str) -> Player:
    try:
        return Player.objects.get(id=player_id)
    except Player.DoesNotExist:
        raise PlayerError(PlayerErrorCode.UNKNOWN_PLAYER, f"no player {player_id!r}",
                          status=404, player=player_id) from None


def identity_key(nationality: str, document_type: str, document_number: str) -> str:
    normalised = re.sub(r"[\s-]", "", document_number).upper()
    return hashlib.sha256(f"{nationality}:{document_type}:{normalised}".encode()).hexdigest()


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
                              status=400, field=field)
    if not re.fullmatch(r"[A-Z]{2}", nationality):
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          "nationality must be an ISO 3166 two-letter code", status=400)
    if document_type not in DOCUMENT_TYPES:
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          f"document_type must be one of {sorted(DOCUMENT_TYPES)}", status=400)
    if not 4 <= len(document_number.strip()) <= 40:
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          "document_number must be 4-40 characters", status=400)
    at = at or clock.now()
    if date_of_birth > at.date():
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER, "date_of_birth is in the future",
                          status=400)
    key = identity_key(nationality, document_type, document_number)
    existing = Player.objects.filter(identity_key=key).first()
    if existing is not None and not is_recorded_key(idempotency_key):
        raise PlayerError(PlayerErrorCode.DUPLICATE_IDENTITY,
                          "a player with this identity document is already registered",
                          status=409, player=existing.id)
    player_id = uuid.uuid4().hex[:16]
    event = NewEvent(
        stream=player_stream(player_id),
        type=PLAYER_REGISTERED,
        payload={"player_id": player_id, "given_name": given_name, "family_name": family_name,
                 "date_of_birth": date_of_birth.isoformat(), "nationality": nationality,
                 "document_type": document_type, "identity_key": key,
                 "document_hint": "…" + document_number.strip()[-3:]},
        occurred_at=at,
    )
    # The request, not the event, identifies a retry: the event carries a
    # fresh random id each time.
    request = {"op": "register_player", "given_name": given_name, "family_name": family_name,
               "date_of_birth": date_of_birth.isoformat(), "identity_key": key}
    try:
        result = append([event], expected_versions={player_stream(player_id): 0},
                        idempotency_key=idempotency_key, request=request,
                        metadata=Metadata(actor=actor, source="casino.players"))
    except IntegrityError:
        # Two registrations of one document raced past the check above; the
        # unique identity_key let exactly one of them in.
        raise PlayerError(PlayerErrorCode.DUPLICATE_IDENTITY,
                          "a player with this identity document is already registered",
                          status=409) from None
    return load_player(result.events[0].payload["player_id"])


def verify_identity(*, player_id: str, method: str, actor: str,
                    idempotency_key: str | None = None, at: dt.datetime | None = None) -> Player:
    """Record that the player's identity was verified, and how."""
    if method not in VerificationMethod.values:
        raise PlayerError(PlayerErrorCode.INVALID_PLAYER,
                          f"method must be one of {VerificationMethod.values}", status=400)
    player = load_player(player_id)
    if (player.verification_status == VerificationStatus.VERIFIED
            and not is_recorded_key(idempotency_key)):
        raise PlayerError(PlayerErrorCode.ALREADY_VERIFIED, "identity is already verified",
                          status=409, player=player_id)
    event = NewEvent(stream=player_stream(player_id), type=IDENTITY_VERIFIED,
                     payload={"player_id": player_id, "method": method},
                     occurred_at=at or clock.now())
    append([event], idempotency_key=idempotency_key,
           request={"player_id": player_id, "method": method, "op": "verify"},
           metadata=Metadata(actor=actor, source="casino.players"))
    return load_player(player_id)


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

    002:L3086: at most 12 months in one go, and it cannot be revoked while it
    runs. Decision: while one runs, a new request is refused rather than
    merged, since extending it could exceed the 12 continuous months.
    """
    at = at or clock.now()
    venue = rules.venue(venue_code)
    rulebook = rules.rulebook_in_force(venue.rulebook_id, at.date())
    maximum = rules.figure(rulebook, SELF_EXCLUSION_MONTHS_FIGURE)
    if maximum is None:
        raise PlayerError(PlayerErrorCode.INVALID_SELF_EXCLUSION,
                          f"rulebook {rulebook.key} has no self-exclusion rule", status=400)
    if type(months) is not int or not 1 <= months <= maximum.value:
        raise PlayerError(PlayerErrorCode.INVALID_SELF_EXCLUSION,
                          f"months must be 1 to {maximum.value} ({maximum.cite})", status=400,
                          months_max=maximum.value, cite=maximum.cite)
    player = load_player(player_id)
    if player.is_self_excluded_at(at) and not is_recorded_key(idempotency_key):
        raise PlayerError(PlayerErrorCode.SELF_EXCLUSION_ACTIVE,
                          f"a self-exclusion runs until {player.self_excluded_until.isoformat()}"
                          " and cannot be changed", status=409, cite=maximum.cite)
    until = _add_months(at, months)
    event = NewEvent(
        stream=player_stream(player_id), type=SELF_EXCLUDED, occurred_at=at,
        payload={"player_id": player_id, "months": months, "from": at.isoformat(),
                 "until": until.isoformat(), "rulebook": rulebook.key, "cite": maximum.cite},
    )
    append([event], idempotency_key=idempotency_key,
           request={"player_id": player_id, "months": months, "venue": venue_code,
                    "op": "self_exclude"},
           metadata=Metadata(actor=actor, source="casino.players"))
    return load_player(player_id)


def set_limit(*, player_id: str, kind: str, value: int, venue_code: str, actor: str,
              idempotency_key: str | None = None, at: dt.datetime | None = None) -> PlayerLimit:
    """Set a player's own limit: lower at once, higher after the cooling-off.

    The delays are the venue rulebook's figures (ray-online: 24 hours for the
    daily and time limits, 7 days for the monthly one; a decision recorded
    there, since 002:L3078-L3086 give none). A new setting replaces a raise
    still waiting.
    """
    if kind not in LimitKind.values:
        raise PlayerError(PlayerErrorCode.INVALID_LIMIT, f"kind must be one of {LimitKind.values}",
                          status=400)
    if type(value) is not int or value <= 0:
        raise PlayerError(PlayerErrorCode.INVALID_LIMIT, "value must be a positive integer",
                          status=400)
    at = at or clock.now()
    player = load_player(player_id)
    venue = rules.venue(venue_code)
    rulebook = rules.rulebook_in_force(venue.rulebook_id, at.date())
    delay_figure = rules.figure(rulebook, LIMIT_DELAY_FIGURES[LimitKind(kind)])
    if delay_figure is None:
        raise PlayerError(PlayerErrorCode.INVALID_LIMIT,
                          f"rulebook {rulebook.key} has no player-set limits", status=400)
    delay = dt.timedelta(**{delay_figure.unit: delay_figure.value})
    current = PlayerLimit.objects.filter(player=player, kind=kind).first()
    in_force = current.value_at(at) if current else None
    raising = in_force is not None and value > in_force
    effective_at = at + delay if raising else at
    event = NewEvent(
        stream=player_stream(player_id), type=LIMIT_SET, occurred_at=at,
        payload={"player_id": player_id, "kind": kind, "value": value,
                 "in_force_before": in_force, "effective_at": effective_at.isoformat(),
                 "rulebook": rulebook.key, "cite": delay_figure.cite},
    )
    append([event], idempotency_key=idempotency_key,
           request={"player_id": player_id, "kind": kind, "value": value, "venue": venue_code,
                    "op": "set_limit"},
           metadata=Metadata(actor=actor, source="casino.players"))
    return PlayerLimit.objects.get(player=player, kind=kind)
