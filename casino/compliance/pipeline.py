"""The one entry point every stake, deposit, withdrawal and buy-in goes through.

`check` answers "would this be allowed, and why" without writing anything
(the dry run). `authorize` does the same and, on a refusal, appends the
rejection event (what was tried, which rule, limit, amount, rulebook version
and citation) and only then raises `AttemptRejected`, so the refusal is on
the record even though nothing else changes. Accepted attempts return the
verdict; the calling command stores `checks_passed` and the rulebook
version in its own event.
"""

from __future__ import annotations

import datetime as dt
import json
import zoneinfo
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from django.db import connection

from casino import clock
from casino.players.errors import PlayerError, PlayerErrorCode
from casino.players.events import player_stream
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from casino.players.models import Player, PlayerLimit, VerificationStatus
from casino.rules import queries as rules
from casino.rules.queries import venue_day  # noqa: F401 - re-exported for the apps
from ledger import InvariantViolation, NewEvent, RecordedEvent

from .checks import (AttemptContext, AttemptKind, CashTotals, Failure, Figure, Verdict,
                     run_checks)
from .errors import AttemptRejected, ComplianceError, ComplianceErrorCode
from .events import ATTEMPT_REJECTED


AMOUNT_MINOR_MAX = 10**12  # EUR 10 billion: anything larger is a typo


@dataclass(frozen=True, slots=True)
class Attempt:
    """What someone is trying to do: the pipeline's input."""

    kind: AttemptKind
    venue: str
    amount_minor: int
    currency: str
    player_id: str | None = None
    game: str | None = None
    bet_unit: str | None = None
    category: str | None = None
    # The player's gaming account when the attempt moves its money (a
    # deposit or withdrawal, chips bought from it or redeemed into it): its
    # ceiling and transfer ban then apply (`_gaming_account_rules`).
    account: str | None = None
    at: dt.datetime | None = None
    # A stake the game's own rules add during the round on top of a capped
    # opening stake (a play bet, a double, a raise): Part IV lets the game's
    # rules take it past the cap where its row says so (raise_rule).
    in_play_raise: bool = False


def load_context(attempt: Attempt) -> AttemptContext:
    """Load the frozen context the checks need (a handful of queries)."""
    if attempt.kind not in {"stake", "deposit", "withdrawal", "buy_in", "chip_purchase",
                            "chip_redemption", "win"}:
        raise ComplianceError(ComplianceErrorCode.INVALID_ATTEMPT,
                              f"unknown attempt kind {attempt.kind!r}")
    if type(attempt.amount_minor) is not int or not 0 < attempt.amount_minor <= AMOUNT_MINOR_MAX:
        raise ComplianceError(ComplianceErrorCode.INVALID_ATTEMPT,
                              "amount_minor must be a positive whole number of cents")
    at = attempt.at or clock.now()
    venue = rules.venue(attempt.venue)
    if attempt.currency != venue.currency:
        raise ComplianceError(ComplianceErrorCode.INVALID_ATTEMPT,
                              f"venue {venue.code} plays in {venue.currency},"
                              f" not {attempt.currency}")
    local = at.astimezone(zoneinfo.ZoneInfo(venue.time_zone))
    day = venue_day(venue, at)
    rulebook = rules.rulebook_in_force(venue.rulebook_id, local.date())
    # The gaming account's rules belong to the account, not to the venue
    # whose rulebook happens to state them (ray-online): they are added
    # below only for an attempt that moves gaming-account money.
    # A value no seed line holds (the Tallinn and Ljubljana minimum ages, from
    # national law) cites its decision row, so a refusal still names a source.
    figures = {
        key: Figure(row.value, row.cite or f"{rulebook.rulebook_id} decision {row.decision}")
        for key, row in rules.figures_in_force(rulebook, local.date()).items()
        if key not in GAMING_ACCOUNT_RULES
    }
    account_local = None
    if attempt.account:
        account_rules, account_local = _gaming_account_rules(at)
        figures.update(account_rules)
    stake_limit, raise_rule = None, None
    if attempt.game and attempt.bet_unit:
        row = rules.stake_limit(rulebook, attempt.game, attempt.bet_unit)
        stake_limit = Figure(row.stake_minor_max, row.cite) if row else None
        raise_rule = row.raise_rule if row else None
    win_row = rules.win_limit(rulebook)
    context = dict(
        kind=attempt.kind, amount_minor=attempt.amount_minor, currency=attempt.currency,
        at=at, venue=venue.code, venue_local=local, venue_day=day, rulebook=rulebook.key,
        game=attempt.game, bet_unit=attempt.bet_unit, category=attempt.category,
        stake_limit=stake_limit, rulebook_has_stake_limits=bool(rules.stake_limits(rulebook)),
        stake_raise_rule=raise_rule, in_play_raise=attempt.in_play_raise,
        win_limit=Figure(win_row.win_minor_max, win_row.cite) if win_row else None,
        figures=figures, account_local=account_local,
        day_start=venue.gaming_day_start.strftime("%H:%M"),
    )
    if attempt.player_id is not None:
        state = _player_state(attempt.player_id, venue.code, day, attempt.account,
                              cash=attempt.kind in CASH_KINDS)
        player = state.player
        context.update(
            player_id=player.id,
            player_version=state.version,
            player_verified=player.verification_status == VerificationStatus.VERIFIED,
            player_age=player.age_on(local.date()),
            self_excluded_until=(player.self_excluded_until
                                 if player.is_self_excluded_at(at) else None),
            account_balance_minor=state.balance_minor,
            player_limits={limit.kind: Figure(limit.value_at(at), limit.cite)
                           for limit in state.limits},
            loss_today_minor=sum(state.loss_today_by_category.values()),
            loss_month_minor=state.loss_month_minor,
            loss_today_by_category=state.loss_today_by_category,
            staked_today_by_category=state.staked_today_by_category,
            cash=state.cash,
        )
    return AttemptContext(**context)


# The kinds of attempt that may be paid in cash: their context carries the
# AML cash totals too (CashTotals), in the same statement.
CASH_KINDS = frozenset({"deposit", "withdrawal", "chip_purchase", "chip_redemption"})
# Structuring is looked for over this and the previous six gaming days, at
# every venue (decision aml.structuring, casino/cage/commands.py).
STRUCTURING_WINDOW_DAYS = 7

PLAYER_STATE_SQL = """
SELECT p.*,
  (SELECT version FROM ledger_stream WHERE name = %(stream)s) AS state_version,
  (SELECT json_agg(json_build_array(l.kind, l.value, l.pending_value, l.pending_effective_at,
                                    l.cite))
   FROM players_playerlimit l WHERE l.player_id = p.id) AS state_limits,
  (SELECT coalesce(json_object_agg(category, json_build_array(net, staked)), '{}'::json) FROM (
     SELECT category, sum(staked_minor) - sum(won_minor) AS net, sum(staked_minor) AS staked
     FROM compliance_playeractivity
     WHERE player_id = p.id AND venue = %(venue)s AND day = %(day)s
     GROUP BY category) today) AS state_today,
  (SELECT coalesce(sum(staked_minor) - sum(won_minor), 0)
   FROM compliance_playeractivity
   WHERE player_id = p.id AND venue = %(venue)s
     AND day >= %(month_start)s AND day < %(month_end)s) AS state_month,
  (SELECT balance_minor FROM ledger_account WHERE code = %(account)s) AS state_balance
  {cash}
FROM players_player p WHERE p.id = %(player)s
"""

CASH_SQL = """,
  (SELECT json_build_array(total_minor, transactions) FROM compliance_cashactivity
   WHERE player_id = p.id AND venue = %(venue)s AND gaming_day = %(day)s) AS cash_today,
  (SELECT coalesce(sum(near_threshold), 0) FROM compliance_cashactivity
   WHERE player_id = p.id AND gaming_day <= %(day)s AND gaming_day > %(window_start)s)
   AS cash_near,
  EXISTS (SELECT 1 FROM compliance_alert
          WHERE kind = 'aml_structuring' AND player_id = p.id AND venue = %(venue)s
            AND details -> 'gaming_day' = to_jsonb(%(day_text)s::text)) AS cash_structuring
"""


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player's state for a check, read in one statement (see `_player_state`)."""

    player: Player
    version: int                           # the player's stream version
    limits: list[PlayerLimit]
    loss_today_by_category: dict[str, int]
    loss_month_minor: int
    staked_today_by_category: dict[str, int]   # the stakes alone (a loss basis of "stakes")
    balance_minor: int | None              # None: the attempt moves no account money
    cash: CashTotals | None                # None: not an attempt that may be in cash


def _player_state(player_id: str, venue_code: str, day: dt.date, account: str | None, *,
                  cash: bool) -> PlayerState:
    """Read everything a check needs about a player in one statement.

    The player row, the player's stream version, the limits, the day's net
    loss by category, the month's net loss, the gaming account's balance
    and, for a cash kind, the AML cash totals. One statement is one
    snapshot, so the version and the state agree: any change after it makes
    the append stale (L6) instead of deciding on old totals. Raises
    PlayerError unknown_player.
    """
    month_start = day.replace(day=1)
    month_end = (month_start + dt.timedelta(days=32)).replace(day=1)
    params = {"player": player_id, "stream": player_stream(player_id), "venue": venue_code,
              "day": day, "month_start": month_start, "month_end": month_end,
              "account": account, "day_text": day.isoformat(),
              "window_start": day - dt.timedelta(days=STRUCTURING_WINDOW_DAYS)}
    rows = list(Player.objects.raw(PLAYER_STATE_SQL.replace("{cash}", CASH_SQL if cash else ""),
                                   params))
    if not rows:
        raise PlayerError(PlayerErrorCode.UNKNOWN_PLAYER, f"no player {player_id!r}",
                          player=player_id)
    player = rows[0]
    version, limit_rows, today, month, balance = (
        player.state_version, player.state_limits, player.state_today, player.state_month,
        player.state_balance)
    limits = [PlayerLimit(player_id=player.id, kind=kind, value=value, pending_value=pending,
                          pending_effective_at=(dt.datetime.fromisoformat(effective)
                                                if effective else None), cite=cite)
              for kind, value, pending, effective, cite in _json(limit_rows) or []]
    totals = None
    if cash:
        today_cash, near, structuring = player.cash_today, player.cash_near, player.cash_structuring
        total, transactions = _json(today_cash) or (0, 0)
        totals = CashTotals(total_before_minor=int(total), transactions_before=int(transactions),
                            near_in_window_before=int(near), structuring_raised=bool(structuring))
    return PlayerState(
        player=player, version=version or 0, limits=limits,
        loss_today_by_category={category: int(net)
                                for category, (net, _) in _json(today).items()},
        staked_today_by_category={category: int(staked)
                                  for category, (_, staked) in _json(today).items()},
        loss_month_minor=int(month), balance_minor=(balance or 0) if account else None,
        cash=totals)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


GAMING_ACCOUNT_RULES = (
    "online.account.balance_max",
    "online.account.transfer_blackout.start",
    "online.account.transfer_blackout.end",
)


def _gaming_account_rules(at: dt.datetime) -> tuple[dict[str, Figure], dt.datetime | None]:
    """Return the gaming account's own rules and `at` in their rulebook's zone.

    Decision (online.account.scope, ray-online rulebook): the gaming account
    is the RAY online service's (002 Part III, 7.4: 002:L3062-3072), one per
    person (002:L3064). Its ceiling (002:L3070) and its 00:00-06:00 transfer
    ban (002:L3072) are rules of that account, so they apply to every
    movement of its money, wherever it is asked for (online, or a land cage
    paying into or out of it, chips bought from it or redeemed into it),
    and never to money that does not touch it (chips for cash at a land
    cage). The ban's clock is the stating rulebook's time zone
    (Europe/Helsinki), not the venue's: a Ljubljana cage at 23:30 its time is
    already in the Helsinki ban. The rules come from the rulebook in force
    that states the lowest ceiling (ray-online today), ban and ceiling from
    that same rulebook so that its zone reads its clock times.
    """
    candidates = []
    for version in rules.versions_in_force(at.astimezone(dt.timezone.utc).date()):
        local_day = at.astimezone(zoneinfo.ZoneInfo(version.time_zone)).date()
        version = rules.rulebook_in_force(version.rulebook_id, local_day)
        ceiling = rules.figure(version, GAMING_ACCOUNT_RULES[0], on=local_day)
        if ceiling is not None:
            candidates.append((ceiling.value, version.rulebook_id, version, local_day))
    if not candidates:
        return {}, None
    _, _, version, local_day = min(candidates, key=lambda c: (c[0], c[1]))
    found = {key: Figure(row.value, row.cite) for key in GAMING_ACCOUNT_RULES
             if (row := rules.figure(version, key, on=local_day)) is not None}
    return found, at.astimezone(zoneinfo.ZoneInfo(version.time_zone))


def check(attempt: Attempt) -> Verdict:
    """Dry run: would the attempt be allowed, and why (writes nothing)."""
    return run_checks(load_context(attempt))


def raise_recorded_rejection(events) -> None:
    """Re-raise the refusal a replayed request recorded, if that is what it was."""
    if len(events) == 1 and events[0].type == ATTEMPT_REJECTED:
        p = events[0].payload
        failure = Failure(code=p["rule"], message=p["message"],
                          amount_minor=p["attempt"]["amount_minor"], limit_minor=p["limit_minor"],
                          rulebook=p["rulebook"], cite=p["cite"], hint=p["hint"])
        raise AttemptRejected(failure, events[0].position)


def authorize(attempt: Attempt, *, actor: str, idempotency_key: str | None = None) -> Verdict:
    """Run the checks; record and raise a refusal, or return the verdict.

    A refusal is recorded through the command runner under the caller's
    idempotency key, so a retry of a refused request returns the same
    refusal without a second record. The apps' own commands check inside
    their `load`/`check` instead; this is for a refusal with no other write.
    """
    arguments = {**asdict(attempt), "at": attempt.at.isoformat() if attempt.at else None}
    try:
        run(AUTHORIZE, arguments, Call(actor=actor, key=idempotency_key, at=attempt.at,
                                       source="casino.compliance"))
    except _Allowed as allowed:
        return allowed.verdict
    raise InvariantViolation("an authorization either refuses or returns its verdict")


class _Allowed(Exception):
    """The attempt passed every check: nothing to record."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__("allowed")
        self.verdict = verdict


class AuthorizeCommand(BaseCommand[tuple, Verdict]):
    """Record a refused attempt (runner: refusal under the key, replays)."""

    name = "compliance.authorize"
    source = "casino.compliance"

    def load(self, arguments: Mapping[str, Any], call: Call) -> tuple:
        at = arguments.get("at")
        attempt = Attempt(**{**arguments, "at": dt.datetime.fromisoformat(at) if at else None})
        context = load_context(attempt)
        verdict = run_checks(context)
        if verdict.allowed:
            raise _Allowed(verdict)
        return attempt, context, verdict

    def check(self, loaded: tuple) -> Rejection | None:
        return rejection(*loaded)

    def decide(self, loaded: tuple) -> Decision:
        raise InvariantViolation("a refused attempt is recorded by its check, never decided")

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Verdict:
        raise_recorded_rejection(events)
        raise InvariantViolation("only a refusal is ever recorded under an authorization")


AUTHORIZE = AuthorizeCommand()


def rejection(attempt: Attempt, context: AttemptContext, verdict: Verdict) -> Rejection:
    """Return the refusal of a failed verdict: its event and its error (pure).

    The command runner appends the event under the request's key and then
    raises the error, so the refusal is on the record first.
    """
    failure = verdict.failure
    subject = f"player/{context.player_id}" if context.player_id else f"venue/{context.venue}"
    event = NewEvent(
        stream=subject,
        type=ATTEMPT_REJECTED,
        occurred_at=context.at,
        gaming_day=context.venue_day,
        payload={
            "attempt": {
                "kind": attempt.kind, "venue": attempt.venue,
                "amount_minor": attempt.amount_minor, "currency": attempt.currency,
                "player_id": attempt.player_id, "game": attempt.game,
                "bet_unit": attempt.bet_unit, "category": attempt.category,
            },
            "rule": failure.code,
            "message": failure.message,
            "limit_minor": failure.limit_minor,
            "rulebook": failure.rulebook,
            "cite": failure.cite,
            "hint": failure.hint,
            "checks_passed": list(verdict.checks_passed),
        },
    )
    return Rejection(event, lambda position: AttemptRejected(failure, position))


def verdict_record(verdict: Verdict) -> dict:
    """What an accepted attempt's event stores about its checks."""
    return {"rulebook": verdict.rulebook, "checks_passed": list(verdict.checks_passed)}


def failure_dict(verdict: Verdict) -> dict | None:
    return asdict(verdict.failure) if verdict.failure else None
