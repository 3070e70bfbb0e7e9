"""The compliance checks, in precedence order: the first failure wins.

Each check is a pure function of an `AttemptContext` (what is tried, by whom,
where, under which rulebook version, with the player's state already
loaded). It returns None when the attempt passes, or a `Failure` naming the
rule, the limit, the amount and the citation. A check that does not apply to
the attempt (a deposit has no maximum stake) also returns None, and is not
listed among the checks passed.

The gaming account's two rules (ceiling and blackout) look at the attempt
only when it moves money into or out of the player's gaming account, which
the loader marks by `account_local` (the moment in the zone of the rulebook
that states those rules, ray-online's Europe/Helsinki); see
casino/compliance/pipeline.py `_gaming_account_rules` for the decision.

Codes, in precedence order (docs list them in this order too):

  compliance.identity_unverified   002:L3031 and the online registration rules
  compliance.underage              age.min of the rulebook; when the rulebook in
                                   force has none the check fails closed as
                                   compliance.age_limit_missing
  compliance.self_excluded         002:L3086
  compliance.transfer_blackout     002:L3072, gaming-account transfers only
  compliance.account_ceiling       002:L3070, money into the gaming account only
  compliance.game_not_offered      Part IV lists no cap for this game and unit
  compliance.max_stake             Part IV (002:L3333-L3487)
  compliance.limits_required       002:L3078, L3084
  compliance.daily_spend_limit     002:L3078
  compliance.monthly_spend_limit   002:L3078
  compliance.loss_cap              002:L3082
  compliance.max_win               002:L3489-L3499
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Callable, Literal

AttemptKind = Literal["stake", "deposit", "withdrawal", "buy_in", "chip_purchase",
                      "chip_redemption", "win"]
# Attempts by which money goes into play or into the operator's hands; the
# player rules (age, verification, self-exclusion) guard these.
MONEY_IN: frozenset[str] = frozenset({"stake", "deposit", "buy_in", "chip_purchase"})


@dataclass(frozen=True, slots=True)
class Figure:
    value: int | str | bool
    cite: str


@dataclass(frozen=True, slots=True)
class AttemptContext:
    """Everything the checks may look at, loaded once before they run."""

    kind: AttemptKind
    amount_minor: int
    currency: str
    at: dt.datetime
    venue: str
    venue_local: dt.datetime          # `at` in the venue's time zone
    venue_day: dt.date                # the venue's day for limits
    rulebook: str                     # "<id>@<version>"
    game: str | None = None
    bet_unit: str | None = None
    category: str | None = None       # slots | casino_vs_house | pvp
    player_id: str | None = None
    player_verified: bool = False
    player_age: int | None = None
    self_excluded_until: dt.datetime | None = None
    account_balance_minor: int | None = None
    # `at` in the zone of the rulebook that states the gaming account's rules
    # (ceiling, blackout); None when the attempt moves no gaming-account money.
    account_local: dt.datetime | None = None
    stake_limit: Figure | None = None
    stake_raise_rule: str | None = None  # the Part IV row's raise_rule
    in_play_raise: bool = False
    rulebook_has_stake_limits: bool = False
    win_limit: Figure | None = None
    figures: dict[str, Figure] = field(default_factory=dict)
    player_limits: dict[str, Figure] = field(default_factory=dict)  # kind -> limit in force
    loss_today_minor: int = 0           # all categories, venue day
    loss_month_minor: int = 0
    loss_today_by_category: dict[str, int] = field(default_factory=dict)
    # The day's stakes alone by category, for a loss basis of "stakes".
    staked_today_by_category: dict[str, int] = field(default_factory=dict)
    # When the venue's day starts ("HH:MM"): the day its activity is kept by.
    day_start: str | None = None
    # The player's stream version, read in the same statement as the state
    # above: a command passes it as the append's expected version.
    player_version: int | None = None
    # For an attempt that may be in cash: the AML totals so far (CashTotals).
    cash: "CashTotals | None" = None


@dataclass(frozen=True, slots=True)
class CashTotals:
    """The player's cash so far, as the AML rules read it (compliance_cashactivity)."""

    total_before_minor: int             # this player, venue and gaming day
    transactions_before: int
    near_in_window_before: int          # any venue, this and the previous 6 days
    structuring_raised: bool            # this player, venue and gaming day


@dataclass(frozen=True, slots=True)
class Failure:
    code: str
    message: str
    amount_minor: int
    limit_minor: int | None
    rulebook: str
    cite: str
    hint: str


def _fail(ctx: AttemptContext, code: str, message: str, cite: str, hint: str,
          limit_minor: int | None = None) -> Failure:
    return Failure(code=code, message=message, amount_minor=ctx.amount_minor,
                   limit_minor=limit_minor, rulebook=ctx.rulebook, cite=cite, hint=hint)


def _euros(minor: int) -> str:
    return f"EUR {minor // 100:,}.{minor % 100:02d}"


def identity_verified(ctx: AttemptContext) -> Failure | None:
    if ctx.kind not in MONEY_IN or ctx.player_id is None:
        return None
    if not ctx.player_verified:
        return _fail(ctx, "compliance.identity_unverified",
                     "the player's identity is not verified",
                     "002:L3031", "Verify the player's identity before play or deposits.")
    return None


def of_age(ctx: AttemptContext) -> Failure | None:
    """Refuse a player under the rulebook's `age.min`, or any player where it has none.

    Decision (fail closed, issue 14 item 5): a rulebook in force without a
    minimum age admits nobody (`compliance.age_limit_missing`): a missing
    figure is a gap in the data, never permission to admit minors.
    """
    if ctx.kind not in MONEY_IN or ctx.player_id is None:
        return None
    minimum = ctx.figures.get("age.min")
    if minimum is None:
        return _fail(ctx, "compliance.age_limit_missing",
                     f"{ctx.rulebook} states no minimum age, so no player can be admitted",
                     "", "Add the venue's legal minimum age (age.min) to its rulebook.")
    if ctx.player_age is None or ctx.player_age < minimum.value:
        return _fail(ctx, "compliance.underage",
                     f"the player is {ctx.player_age}, under the minimum age {minimum.value}",
                     minimum.cite, "Players under the minimum age may not play or deposit.")
    return None


def not_self_excluded(ctx: AttemptContext) -> Failure | None:
    if ctx.kind not in MONEY_IN or ctx.self_excluded_until is None:
        return None
    if ctx.at < ctx.self_excluded_until:
        return _fail(ctx, "compliance.self_excluded",
                     f"the player is self-excluded until {ctx.self_excluded_until.isoformat()}",
                     "002:L3086", "A self-exclusion cannot be lifted before it ends.")
    return None


# A poker buy-in paid from the gaming account at a land table buys chips
# from it (casino/poker passes the account only there): it is a transfer.
GAMING_ACCOUNT_TRANSFERS: frozenset[str] = frozenset(
    {"deposit", "withdrawal", "chip_purchase", "chip_redemption", "buy_in"})
# Money into the gaming account: a deposit, or chips redeemed into it.
INTO_GAMING_ACCOUNT: frozenset[str] = frozenset({"deposit", "chip_redemption"})


def outside_transfer_blackout(ctx: AttemptContext) -> Failure | None:
    """No money into or out of the gaming account from 00:00 to 06:00 (002:L3072).

    Read in the zone of the rulebook that states the ban (ray-online:
    Europe/Helsinki), wherever the transfer is asked for; chips bought from
    or redeemed into the account count, as they move its money too.
    """
    if ctx.kind not in GAMING_ACCOUNT_TRANSFERS or ctx.account_local is None:
        return None
    start = ctx.figures.get("online.account.transfer_blackout.start")
    end = ctx.figures.get("online.account.transfer_blackout.end")
    if start is None or end is None:
        return None
    local = ctx.account_local.time()
    begins, ends = dt.time.fromisoformat(start.value), dt.time.fromisoformat(end.value)
    if begins <= local < ends:
        return _fail(ctx, "compliance.transfer_blackout",
                     f"no transfers to or from the gaming account between {start.value}"
                     f" and {end.value} {ctx.account_local.tzinfo} time", start.cite,
                     "Transfers are possible again from the end of the blackout.")
    return None


def within_account_ceiling(ctx: AttemptContext) -> Failure | None:
    """The gaming account holds at most `online.account.balance_max` (002:L3070).

    Money the player brings in (a deposit, chips redeemed into the account)
    is refused over it; wins are split at it elsewhere (casino/wallet.py).
    """
    ceiling = ctx.figures.get("online.account.balance_max")
    if (ctx.kind not in INTO_GAMING_ACCOUNT or ceiling is None or ctx.account_local is None
            or ctx.account_balance_minor is None):
        return None
    if ctx.account_balance_minor + ctx.amount_minor > ceiling.value:
        what = "deposit" if ctx.kind == "deposit" else "redemption"
        return _fail(ctx, "compliance.account_ceiling",
                     f"the {what} would take the gaming account over {_euros(ceiling.value)}",
                     ceiling.cite, "Pay in at most the room left under the ceiling.",
                     limit_minor=ceiling.value)
    return None


def game_offered(ctx: AttemptContext) -> Failure | None:
    if ctx.kind != "stake" or not ctx.rulebook_has_stake_limits or ctx.stake_limit is not None:
        return None
    return _fail(ctx, "compliance.game_not_offered",
                 f"{ctx.rulebook} sets no maximum stake for {ctx.game}/{ctx.bet_unit}",
                 "002:L3333", "Only games and bet units with a Part IV maximum may be offered.")


def within_max_stake(ctx: AttemptContext) -> Failure | None:
    """The Part IV cap per bet unit (002:L3333-L3487).

    A raise the game's rules add during the round is bounded by those rules
    (the caller checks them) where the cap's row allows it: `per_game_rules`
    (the game may take the stake past the cap) and `at_most_double` (Red Dog
    and Bulldog: raised to at most twice the cap, the raise being at most
    the capped opening stake).
    """
    if ctx.kind != "stake" or ctx.stake_limit is None:
        return None
    if ctx.in_play_raise and ctx.stake_raise_rule in ("per_game_rules", "at_most_double"):
        return None
    if ctx.amount_minor > ctx.stake_limit.value:
        return _fail(ctx, "compliance.max_stake",
                     f"{_euros(ctx.amount_minor)} is over the maximum stake"
                     f" {_euros(ctx.stake_limit.value)} for {ctx.game}/{ctx.bet_unit}",
                     ctx.stake_limit.cite, "Lower the stake to the venue's maximum.",
                     limit_minor=ctx.stake_limit.value)
    return None


def limits_in_place(ctx: AttemptContext) -> Failure | None:
    if ctx.kind != "stake" or ctx.player_id is None:
        return None
    required = ctx.figures.get("online.limits.daily_spend.mandatory")
    if required is None or not required.value:
        return None
    missing = [kind for kind in ("daily_spend", "monthly_spend") if kind not in ctx.player_limits]
    if missing:
        return _fail(ctx, "compliance.limits_required",
                     f"the player must set {' and '.join(missing)} limits before playing",
                     required.cite, "Ask the player to set daily and monthly spending limits.")
    return None


def _within_spend(ctx: AttemptContext, kind: str, spent: int, code: str) -> Failure | None:
    limit = ctx.player_limits.get(kind)
    if ctx.kind != "stake" or limit is None:
        return None
    # Decision (online.limits.spend_basis): spending is the loss so far plus
    # this stake, as if it were lost.
    if spent + ctx.amount_minor > limit.value:
        return _fail(ctx, code,
                     f"the stake would take the {kind.replace('_', ' ')} to"
                     f" {_euros(spent + ctx.amount_minor)}, over the player's limit"
                     f" {_euros(limit.value)}", limit.cite,
                     "The player's own limit; raising it takes the cooling-off period.",
                     limit_minor=limit.value)
    return None


def within_daily_spend_limit(ctx: AttemptContext) -> Failure | None:
    return _within_spend(ctx, "daily_spend", ctx.loss_today_minor, "compliance.daily_spend_limit")


def within_monthly_spend_limit(ctx: AttemptContext) -> Failure | None:
    return _within_spend(ctx, "monthly_spend", ctx.loss_month_minor,
                         "compliance.monthly_spend_limit")


LOSS_CAP_FIGURES = {
    "slots": "online.loss_cap.slots.daily_max",
    "casino_vs_house": "online.loss_cap.casino_vs_house.daily_max",
    "pvp": "online.loss_cap.casino_pvp.daily_max",
}
# Whether a category has a fixed daily cap at all: online casino games
# against other players have none (002:L3082). A rulebook that switches it
# on must state the cap too, or the stake is refused (fail closed).
LOSS_CAP_APPLIES = {"pvp": "online.loss_cap.casino_pvp.applies"}
LOSS_CAP_DAY_START = "online.loss_cap.day_start"
LOSS_CAP_BASIS = "online.loss_cap.loss_basis"
# What a day's loss is counted as, by the rulebook's `online.loss_cap.loss_basis`.
LOSS_BASES = {
    "stakes_minus_wins": lambda ctx, category: ctx.loss_today_by_category.get(category, 0),
    "stakes": lambda ctx, category: ctx.staked_today_by_category.get(category, 0),
}


def within_loss_cap(ctx: AttemptContext) -> Failure | None:
    """The fixed daily loss caps (002:L3082), as the rulebook states them.

    The category's switch (`online.loss_cap.casino_pvp.applies`), the loss
    basis (`online.loss_cap.loss_basis`) and the day's start
    (`online.loss_cap.day_start`) are read from the rulebook. The player's
    activity is kept by the venue's day, so a cap day that starts at another
    time than the venue's cannot be counted from it: the stake is refused
    (fail closed) rather than counted over the wrong day. An unknown basis
    is refused the same way.
    """
    if ctx.kind != "stake" or ctx.category not in LOSS_CAP_FIGURES:
        return None
    switch = ctx.figures.get(LOSS_CAP_APPLIES.get(ctx.category, ""))
    if switch is not None and not switch.value:
        return None
    cap = ctx.figures.get(LOSS_CAP_FIGURES[ctx.category])
    if cap is None:
        if switch is None:
            return None
        return _fail(ctx, "compliance.loss_cap",
                     f"{ctx.rulebook} puts a daily loss cap on {ctx.category} games but states"
                     " none", switch.cite or "", "Add the category's daily cap to the rulebook.")
    day_start = ctx.figures.get(LOSS_CAP_DAY_START)
    if day_start is not None and ctx.day_start is not None and day_start.value != ctx.day_start:
        return _fail(ctx, "compliance.loss_cap",
                     f"the loss-cap day starts at {day_start.value}, the venue's day at"
                     f" {ctx.day_start}: the day's loss cannot be counted",
                     day_start.cite, "Register the venue with the loss-cap day's start.",
                     limit_minor=cap.value)
    basis = ctx.figures.get(LOSS_CAP_BASIS)
    count = LOSS_BASES.get(basis.value if basis else "stakes_minus_wins")
    if count is None:
        return _fail(ctx, "compliance.loss_cap",
                     f"{ctx.rulebook} counts losses as {basis.value!r}, which is not known",
                     basis.cite, "Use a known loss basis in the rulebook.",
                     limit_minor=cap.value)
    loss = count(ctx, ctx.category)
    if loss + ctx.amount_minor > cap.value:
        return _fail(ctx, "compliance.loss_cap",
                     f"the stake could take today's {ctx.category} loss to"
                     f" {_euros(loss + ctx.amount_minor)}, over the fixed cap {_euros(cap.value)}",
                     cap.cite, "The fixed daily loss cap resets at the start of the venue's day.",
                     limit_minor=cap.value)
    return None


def within_max_win(ctx: AttemptContext) -> Failure | None:
    if ctx.kind != "win" or ctx.win_limit is None:
        return None
    if ctx.amount_minor > ctx.win_limit.value:
        return _fail(ctx, "compliance.max_win",
                     f"the win {_euros(ctx.amount_minor)} is over the venue's maximum"
                     f" {_euros(ctx.win_limit.value)}", ctx.win_limit.cite,
                     "Pay at most the venue's maximum win.", limit_minor=ctx.win_limit.value)
    return None


CHECKS: tuple[tuple[str, Callable[[AttemptContext], Failure | None]], ...] = (
    ("compliance.identity_unverified", identity_verified),
    ("compliance.underage", of_age),
    ("compliance.self_excluded", not_self_excluded),
    ("compliance.transfer_blackout", outside_transfer_blackout),
    ("compliance.account_ceiling", within_account_ceiling),
    ("compliance.game_not_offered", game_offered),
    ("compliance.max_stake", within_max_stake),
    ("compliance.limits_required", limits_in_place),
    ("compliance.daily_spend_limit", within_daily_spend_limit),
    ("compliance.monthly_spend_limit", within_monthly_spend_limit),
    ("compliance.loss_cap", within_loss_cap),
    ("compliance.max_win", within_max_win),
)


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    checks_passed: tuple[str, ...]
    failure: Failure | None
    rulebook: str


def run_checks(ctx: AttemptContext) -> Verdict:
    """Run every check in order; stop at the first failure."""
    passed = []
    for code, check in CHECKS:
        failure = check(ctx)
        if failure is not None:
            return Verdict(False, tuple(passed), failure, ctx.rulebook)
        passed.append(code)
    return Verdict(True, tuple(passed), None, ctx.rulebook)
