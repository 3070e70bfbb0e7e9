"""Rake, time charges and jackpot drops, as data built from the rulebooks.

Each rule is a frozen dataclass built from a rulebook's figures (`figures`
is the `key -> value` map of one `casino/rules/data/*.toml`) plus, where the
seed leaves an amount to the table, the table's configuration:

- `BlockRake`: a fixed amount per full block of the pots laid end to end.
  Veikkaus room: EUR 1 per full EUR 20 (5 %) or per full EUR 10 (10 %), an
  optional cap per hand, a flat EUR 1 when the hand ends before the flop
  (000:L430-461). Tallinn: EUR 0.50 per full EUR 10, nothing under EUR 10,
  at most EUR 10, no flop no drop (003:L139, L143).
- `PercentRake`: a percentage of the pots with a cap. Veikkaus online: the
  rake table's percentage and cap per stake, the cap halved for a hand
  started by two or three players, no flop no drop, at least 1 cent, rounded
  to the nearest cent (001:L721-743). RAY: a preset percentage of the chips
  wagered in the round with an optional cap (002:L283-285, L1734-1736).
- `TimeCharge`: a charge per period instead of a pot rake (000:L464-465;
  002:L287-289, L1738-1740; Tallinn's time rake, 003:L140).
- `DropRule`: a fixed jackpot drop per hand: Veikkaus bad beat EUR 1 with 5+
  players dealt reaching the second betting round (000:L2869-2872, L461);
  Tallinn EUR 1 from the main pot with 6+ players, not before the flop or the
  second upcard (003:L141-143); RAY, an amount posted in the room with 6+
  players reaching the second round (002:L1804).

`rake_for` and `drop_for` say what is taken from which pot, in the order the
pots formed, so the ledger can post each amount against its pot. Money is in
minor units throughout; percentages are integer basis points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Union

from .errors import BettingErrorCode, IllegalAction, InvariantViolation
from .pots import Pot

BASIS_POINTS = 10_000


class Rounding(StrEnum):
    HALF_UP = "half_up"  # nearest cent, exact halves up
    DOWN = "down"        # whole cents, never more than the percentage


class TimeChargeBasis(StrEnum):
    PER_CUSTOMER = "per_customer"        # each player pays the amount per period
    PER_TABLE_SPLIT = "per_table_split"  # the table's amount, split equally


@dataclass(frozen=True, slots=True)
class BlockRake:
    """`per_block_minor` for every full `block_minor` of all pots together.

    Each unit is taken from the pot in which its block begins when the pots
    are laid end to end in the order they formed (000:L434-448). A unit that
    begins in a pot too small to pay it takes the rest from the next pots in
    that order. `cap_minor` is the most one hand pays (000:L432);
    `no_flop_flat_minor` is the flat rake of a hand that ends before the flop
    (000:L459-461), `no_flop_no_drop` takes nothing then (003:L143).
    """

    name: str
    block_minor: int
    per_block_minor: int
    cap_minor: int | None
    no_flop_flat_minor: int | None
    no_flop_no_drop: bool
    cite: str

    def __post_init__(self) -> None:
        _positive(self, "block_minor", "per_block_minor")
        _optional_positive(self, "cap_minor", "no_flop_flat_minor")
        if self.per_block_minor > self.block_minor:
            raise ValueError("a rake unit may not exceed its block")
        if self.no_flop_flat_minor and self.no_flop_no_drop:
            raise ValueError("before the flop: a flat rake or nothing, not both")


@dataclass(frozen=True, slots=True)
class PercentRake:
    """`percent_basis_points` of all pots, rounded, at least `rake_minor_min`, capped.

    The cap is `short_handed_cap_minor` when at most
    `short_handed_players_max` players were dealt in (001:L743).
    """

    name: str
    percent_basis_points: int
    cap_minor: int | None
    rake_minor_min: int
    rounding: Rounding
    no_flop_no_drop: bool
    cite: str
    short_handed_players_max: int = 0
    short_handed_cap_minor: int | None = None

    def __post_init__(self) -> None:
        _positive(self, "percent_basis_points")
        _optional_positive(self, "cap_minor", "short_handed_cap_minor")
        if self.percent_basis_points > BASIS_POINTS:
            raise ValueError("a rake percentage is at most 100 %")
        if self.rake_minor_min < 0:
            raise ValueError("rake_minor_min must not be negative")


@dataclass(frozen=True, slots=True)
class TimeCharge:
    """`amount_minor` per `period_minutes`, per customer or split by the table.

    A time-charged table pays no pot rake (000:L464-465, decision
    rake.time_charge). `players_max` limits who may choose it (Tallinn: three
    or fewer players, 003:L140).
    """

    name: str
    amount_minor: int
    period_minutes: int
    basis: TimeChargeBasis
    cite: str
    players_max: int | None = None

    def __post_init__(self) -> None:
        _positive(self, "amount_minor", "period_minutes")


RakeRule = Union[BlockRake, PercentRake, TimeCharge]


@dataclass(frozen=True, slots=True)
class DropRule:
    """A jackpot drop of `amount_minor` per hand, from the main pot.

    Taken when at least `players_min` players were dealt in and the hand
    reached betting round `betting_rounds_min` (2: past the flop or second
    upcard).
    """

    name: str
    amount_minor: int
    players_min: int
    betting_rounds_min: int
    cite: str

    def __post_init__(self) -> None:
        _positive(self, "amount_minor", "players_min", "betting_rounds_min")


@dataclass(frozen=True, slots=True)
class RakeResult:
    """What the rake takes from each pot (aligned with the pots), and why."""

    per_pot_minor: tuple[int, ...]
    total_minor: int
    reason: str
    cite: str


@dataclass(frozen=True, slots=True)
class DropResult:
    per_pot_minor: tuple[int, ...]
    total_minor: int
    reason: str
    cite: str


@dataclass(frozen=True, slots=True)
class TimeChargeResult:
    """What each seat pays for one period."""

    per_seat_minor: tuple[tuple[int, int], ...]
    total_minor: int
    period_minutes: int
    cite: str


# ---------------------------------------------------------------------------
# Builders from rulebook figures
# ---------------------------------------------------------------------------


def veikkaus_room_rake(
    figures: Mapping[str, Any],
    *,
    alternative: bool = False,
    cap_minor: int | None = None,
) -> BlockRake:
    """The Veikkaus room rake: EUR 1 per full EUR 20 (5 %), or per full EUR 10 (10 %).

    `alternative` picks the 10 % rate (000:L451-452); `cap_minor` is the
    table's per-hand maximum, which the seed allows but does not fix
    (000:L432, decision rake.cap). A hand that does not get past the initial
    deal pays EUR 1 flat (000:L459-461).
    """
    prefix = "rake.alt." if alternative else "rake."
    # Each unit is taken from the pot in which its block starts (000:L436-439);
    # this builder knows that allocation only.
    if _figure(figures, "rake.allocation") != "pot_where_block_starts":
        raise ValueError("this builder takes each rake unit from the pot where its block"
                         " starts (000:L436-439) only")
    return BlockRake(
        name="veikkaus_room_10_percent" if alternative else "veikkaus_room_5_percent",
        block_minor=_figure(figures, prefix + "block"),
        per_block_minor=_figure(figures, prefix + "per_block"),
        cap_minor=cap_minor,
        no_flop_flat_minor=_figure(figures, "rake.no_flop.flat"),
        no_flop_no_drop=False,
        cite="000:L430-461",
    )


def veikkaus_room_time_charge(
    figures: Mapping[str, Any], *, amount_minor: int, period_minutes: int,
) -> TimeCharge:
    """The Veikkaus room's time charge: each player pays by time played.

    000:L464-465; the rate and interval are table configuration (decision
    rake.time_charge).
    """
    if _figure(figures, "rake.time_charge.allowed") is not True:
        raise ValueError("this rulebook does not allow a time charge")
    return TimeCharge("veikkaus_room_time_charge", amount_minor, period_minutes,
                      TimeChargeBasis.PER_CUSTOMER, "000:L464-465")


def online_rake(figures: Mapping[str, Any], *, game: str, stake: str) -> PercentRake:
    """The Veikkaus online rake for one row of the rake table (001:L721-743).

    `game` is `nl_holdem`, `pl_omaha` or `banzai_holdem` (also
    `banzai_omaha`, raked as Banzai Hold'em at the same stake, decision
    banzai.omaha_rake); `stake` the row id (`nl100`, `pl25`, `nl1`...). The
    short-handed cap follows the big blind as the seed states it: 0.02/0.04
    EUR 0.50, 0.05/0.10 EUR 1.00, 0.10/0.25 or higher EUR 1.50 (001:L743,
    decision rake.banzai_short_handed).
    """
    if game == "banzai_omaha":
        # Banzai Omaha has no rake rows of its own (001:L735-739).
        game = _figure(figures, "banzai.omaha.rake_table")
    if _figure(figures, "rake.rounding") != "nearest_cent_half_up":
        raise ValueError("this builder knows the nearest-cent, half-up rounding only")
    if _figure(figures, "rake.basis") != "percent_of_total_pot":
        raise ValueError("this builder rakes a percentage of the whole pot (001:L721) only")
    big_blind = _figure(figures, f"stake.{game}.{stake}.big_blind")
    if big_blind <= 4:
        short_key = "rake.short_handed.cap.blinds_2_4"
    elif big_blind <= 10:
        short_key = "rake.short_handed.cap.blinds_5_10"
    else:
        short_key = "rake.short_handed.cap.blinds_10_25_or_higher"
    cap = _figure(figures, f"rake.{game}.{stake}.cap")
    return PercentRake(
        name=f"veikkaus_online_{game}_{stake}",
        percent_basis_points=_figure(figures, f"rake.{game}.{stake}.percent"),
        cap_minor=cap,
        rake_minor_min=_figure(figures, "rake.min"),
        # Decision (rake.rounding): exact half cents round up, the everyday
        # reading of "nearest" (001:L741).
        rounding=Rounding.HALF_UP,
        no_flop_no_drop=_figure(figures, "rake.no_flop_no_drop") is True,
        cite="001:L721-743",
        short_handed_players_max=_figure(figures, "rake.short_handed.max_players"),
        # The short-handed cap never raises a row's own cap.
        short_handed_cap_minor=min(cap, _figure(figures, short_key)),
    )


def tallinn_rake(figures: Mapping[str, Any]) -> BlockRake:
    """Olympic Tallinn: EUR 0.50 per full EUR 10, under EUR 10 nothing, cap EUR 10.

    003:L139: the pot of EUR 30 pays EUR 1.50 and the rake stops growing at
    EUR 200. Decision rake.pot_scope: the main and side pots are added
    together, and (as in the Veikkaus room) the units are taken pot by pot
    in the order the pots formed. No flop, no drop (003:L143).
    """
    rule = BlockRake(
        name="olympic_tallinn",
        block_minor=_figure(figures, "rake.block"),
        per_block_minor=_figure(figures, "rake.per_block"),
        cap_minor=_figure(figures, "rake.cap"),
        no_flop_flat_minor=None,
        no_flop_no_drop=_figure(figures, "rake.no_flop_no_drop") is True,
        cite="003:L139, L143",
    )
    if _figure(figures, "rake.min_pot") != rule.block_minor:
        raise ValueError("Tallinn: the unraked pot size is assumed to be one block")
    return rule


def tallinn_time_rake(figures: Mapping[str, Any]) -> TimeCharge:
    """Olympic Tallinn time rake: EUR 30 per 30 minutes, shared, 3 players or fewer.

    003:L140; decision time_rake.basis: the EUR 30 is per table.
    """
    return TimeCharge(
        name="olympic_tallinn_time_rake",
        amount_minor=_figure(figures, "time_rake.amount"),
        period_minutes=_figure(figures, "time_rake.period"),
        basis=TimeChargeBasis.PER_TABLE_SPLIT,
        cite="003:L140",
        players_max=_figure(figures, "time_rake.max_players"),
    )


def ray_house_fee(
    figures: Mapping[str, Any],
    *,
    percent_basis_points: int,
    cap_minor: int | None = None,
    rounding: Rounding = Rounding.DOWN,
    no_flop_no_drop: bool = False,
) -> PercentRake:
    """RAY's percentage house fee for player-vs-player poker.

    A preset percentage of the chips wagered in the round, with an optional
    cap per round (002:L283-285, L1734-1736). The rate and cap are announced
    at the table (decision house_fee.rates). Decision: the seed gives no
    rounding and no no-flop rule, so by default the fee is rounded down to
    the cent (never above the announced percentage) and taken whatever the
    street; the table may configure otherwise. The base is the pots after
    the uncalled bet went back: that part was wagered against no one.
    """
    if _figure(figures, "house_fee.percentage.basis") != "chips_wagered_in_round":
        raise ValueError("this rulebook has no percentage house fee")
    cap_allowed = _figure(figures, "house_fee.percentage.cap_per_round_allowed")
    if cap_minor is not None and cap_allowed is not True:
        raise ValueError("this rulebook allows no cap per round")
    return PercentRake(
        name="ray_house_fee",
        percent_basis_points=percent_basis_points,
        cap_minor=cap_minor,
        rake_minor_min=0,
        rounding=Rounding(rounding),
        no_flop_no_drop=no_flop_no_drop,
        cite="002:L283-285, L1734-1736",
    )


def ray_online_rake(
    figures: Mapping[str, Any],
    *,
    percent_basis_points: int,
    cap_minor: int | None = None,
) -> PercentRake:
    """RAY's online cash-game rake: a percentage of the round's stakes (002:L3179).

    "The compensation is charged in cash games as a percentage (rake) of the
    value of the stakes made in the game round; the amount and any money cap
    (rake cap) are announced in the internet games' instructions" (002:L3179).
    The rulebook fixes the basis (`online.rake.poker.basis`, which this
    computes: the pot, all stakes of the hand) and whether a cap may be
    posted (`online.rake.cap_allowed`); the rate and the cap are the table's
    posted terms (decision online.rake.rates). Rounded down to the cent and
    taken whatever the street, as RAY's house fee (the seed gives neither).
    """
    if _figure(figures, "online.rake.poker.basis") != "percent_of_round_stakes":
        raise ValueError("this rulebook has no online rake on the round's stakes")
    if cap_minor is not None and _figure(figures, "online.rake.cap_allowed") is not True:
        raise ValueError("this rulebook allows no rake cap")
    return PercentRake(
        name="ray_online_rake",
        percent_basis_points=percent_basis_points,
        cap_minor=cap_minor,
        rake_minor_min=0,
        rounding=Rounding.DOWN,
        no_flop_no_drop=False,
        cite="002:L3179",
    )


def ray_time_charge(
    figures: Mapping[str, Any], *, amount_minor: int, period_minutes: int,
) -> TimeCharge:
    """RAY's time charge: each customer pays per period (002:L287-289, L1738-1740)."""
    if _figure(figures, "house_fee.time_charge.basis") != "per_customer":
        raise ValueError("this rulebook has no per-customer time charge")
    return TimeCharge("ray_time_charge", amount_minor, period_minutes,
                      TimeChargeBasis.PER_CUSTOMER, "002:L287-289, L1738-1740")


def veikkaus_bad_beat_drop(figures: Mapping[str, Any]) -> DropRule:
    """Veikkaus bad-beat jackpot: EUR 1 per hand with 5+ players reaching round two.

    000:L2869-2872; never from a hand that ends before the flop (000:L461).
    Decision: the seed does not say which pot pays it; the main pot does, as
    in Tallinn (003:L142), since every player in the hand has a share of it.
    """
    rounds = _figure(figures, "jackpot.bad_beat.drop.min_betting_round")
    if _figure(figures, "rake.no_flop.jackpot_drop") is False:
        rounds = max(rounds, 2)   # never from a hand that ends before the flop (000:L461)
    return DropRule(
        name="veikkaus_bad_beat",
        amount_minor=_figure(figures, "jackpot.bad_beat.drop"),
        players_min=_figure(figures, "jackpot.bad_beat.drop.min_players"),
        betting_rounds_min=rounds,
        cite="000:L2869-2872, L461",
    )


def tallinn_jackpot_drop(figures: Mapping[str, Any]) -> DropRule:
    """Olympic Poker Jackpot: EUR 1 from the main pot, 6+ players, not before the flop.

    003:L141-143: none when the hand ends in the first betting round, before
    the flop or the second upcard.
    """
    if _figure(figures, "jackpot.drop.source_pot") != "main_pot":
        raise ValueError("Tallinn's drop is taken from the main pot")
    return DropRule(
        name="olympic_tallinn_jackpot",
        amount_minor=_figure(figures, "jackpot.drop"),
        players_min=_figure(figures, "jackpot.drop.min_players"),
        betting_rounds_min=2,
        cite="003:L141-143",
    )


def ray_bad_beat_drop(figures: Mapping[str, Any], *, amount_minor: int) -> DropRule:
    """RAY bad-beat jackpot: the posted amount per round, 6+ players, round two reached.

    002:L1804; the amount is posted in the gaming area (decision
    jackpot.bad_beat.amounts).
    """
    return DropRule(
        name="ray_bad_beat",
        amount_minor=amount_minor,
        players_min=_figure(figures, "jackpot.bad_beat.contribution.min_players"),
        betting_rounds_min=_figure(
            figures, "jackpot.bad_beat.contribution.min_betting_round"
        ),
        cite="002:L1804",
    )


# ---------------------------------------------------------------------------
# Applying the rules
# ---------------------------------------------------------------------------


def rake_for(
    rule: RakeRule, pots: Sequence[Pot], *, reached_flop: bool, players_dealt: int,
) -> RakeResult:
    """Return the rake taken from each pot of a settled hand.

    `pots` are the pots after the uncalled bet went back (`pots.settle`),
    main pot first. `reached_flop` says whether the hand got past its first
    betting round (the flop, the second upcard, the draw;
    `HandState.reached_flop`); `players_dealt` is how many were dealt in.
    The rake never takes more than a pot holds.
    """
    amounts = [pot.amount_minor for pot in pots]
    zero = tuple(0 for _ in amounts)
    total = sum(amounts)
    if isinstance(rule, TimeCharge):
        return RakeResult(zero, 0, "time_charge", rule.cite)
    if not reached_flop:
        if isinstance(rule, BlockRake) and rule.no_flop_flat_minor:
            # Decision (rake.no_flop): the flat fee applies whatever the pot
            # size; it is cut to the cap and to what the pots hold.
            flat = min(rule.no_flop_flat_minor, total, _cap(rule.cap_minor, total))
            return _result(amounts, [(0, flat)], "no_flop_flat", "000:L459-461")
        if rule.no_flop_no_drop:
            return RakeResult(zero, 0, "no_flop_no_drop", rule.cite)
    if isinstance(rule, BlockRake):
        return _block_rake(rule, amounts)
    return _percent_rake(rule, amounts, players_dealt)


def drop_for(
    rule: DropRule,
    pots: Sequence[Pot],
    *,
    players_dealt: int,
    betting_rounds_reached: int,
    rake: RakeResult | None = None,
) -> DropResult:
    """Return the jackpot drop taken from the main pot, or nothing.

    Decision (Tallinn rake.jackpot_order): rake and drop are both figured on
    the pots as played; the drop comes from the main pot, after the rake
    taken from it. Decision: when the main pot holds less than the drop
    after its rake, the drop is what is left; the seeds name the main pot
    and never take the drop from a side pot (003:L142).
    """
    amounts = [pot.amount_minor for pot in pots]
    zero = tuple(0 for _ in amounts)
    if players_dealt < rule.players_min:
        return DropResult(zero, 0, "too_few_players", rule.cite)
    if betting_rounds_reached < rule.betting_rounds_min:
        return DropResult(zero, 0, "before_second_betting_round", rule.cite)
    if not amounts:
        return DropResult(zero, 0, "no_pot", rule.cite)
    raked = rake.per_pot_minor[0] if rake is not None else 0
    amount = min(rule.amount_minor, amounts[0] - raked)
    per_pot = (amount,) + zero[1:]
    return DropResult(per_pot, amount, "dropped", rule.cite)


def time_charge_for(rule: TimeCharge, seats: Sequence[int]) -> TimeChargeResult:
    """Return what each seated player pays for one period of a time charge.

    Per customer: each pays the amount (000:L464-465; 002:L287-289). Split by
    the table: the amount is shared equally (003:L140). Decision: each share
    is rounded down to the cent and the house forgoes the odd cents, since
    charging some players a cent more would not be equal.

    Raises IllegalAction (`poker.time_charge_not_allowed`) when more players
    sit than the rule allows.
    """
    seats = sorted(set(seats))
    if not seats:
        raise ValueError("a time charge needs at least one player")
    if rule.players_max is not None and len(seats) > rule.players_max:
        raise IllegalAction(
            BettingErrorCode.TIME_CHARGE_NOT_ALLOWED,
            f"A time charge needs {rule.players_max} players or fewer.",
            players=len(seats), limit=rule.players_max, cite=rule.cite,
        )
    if rule.basis is TimeChargeBasis.PER_CUSTOMER:
        share = rule.amount_minor
    else:
        share = rule.amount_minor // len(seats)
    per_seat = tuple((seat, share) for seat in seats)
    total = share * len(seats)
    return TimeChargeResult(per_seat, total, rule.period_minutes, rule.cite)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _block_rake(rule: BlockRake, amounts: list[int]) -> RakeResult:
    total = sum(amounts)
    units = total // rule.block_minor
    budget = _cap(rule.cap_minor, total)
    takes: list[tuple[int, int]] = []
    bounds = _cumulative(amounts)
    for k in range(units):
        if budget <= 0:
            break
        amount = min(rule.per_block_minor, budget)
        # The pot in which this block begins. Decision (rake.block_boundary):
        # a block starting exactly where a pot ends begins in the next pot.
        start = k * rule.block_minor
        index = next(i for i, (lo, hi) in enumerate(bounds) if lo <= start < hi)
        takes.append((index, amount))
        budget -= amount
    reason = "blocks" if units else "under_one_block"
    return _result(amounts, takes, reason, rule.cite)


def _percent_rake(
    rule: PercentRake, amounts: list[int], players_dealt: int,
) -> RakeResult:
    total = sum(amounts)
    if total == 0:
        return RakeResult(tuple(0 for _ in amounts), 0, "empty_pot", rule.cite)
    cap = rule.cap_minor
    short_handed = players_dealt <= rule.short_handed_players_max
    if rule.short_handed_cap_minor is not None and short_handed:
        cap = rule.short_handed_cap_minor
    rake = max(_percent(total, rule), rule.rake_minor_min)
    rake = min(rake, _cap(cap, total), total)
    # Laid end to end in formation order, each pot pays the rake that
    # accrues over its stretch, until the capped total is reached.
    takes = []
    for i, (lo, hi) in enumerate(_cumulative(amounts)):
        takes.append((i, min(rake, _percent(hi, rule)) - min(rake, _percent(lo, rule))))
    taken = sum(amount for _, amount in takes)
    if taken < rake:
        takes.append((0, rake - taken))  # the 1-cent minimum: from the main pot
    return _result(amounts, takes, "percent", rule.cite)


def _percent(amount_minor: int, rule: PercentRake) -> int:
    scaled = amount_minor * rule.percent_basis_points
    if rule.rounding is Rounding.HALF_UP:
        return (scaled + BASIS_POINTS // 2) // BASIS_POINTS
    return scaled // BASIS_POINTS


def _result(
    amounts: list[int], takes: list[tuple[int, int]], reason: str, cite: str,
) -> RakeResult:
    """Charge each (pot index, amount), spilling to the next pots that have room."""
    taken = [0] * len(amounts)
    for index, amount in takes:
        order = list(range(index, len(amounts))) + list(range(0, index))
        for i in order:
            if amount == 0:
                break
            part = min(amount, amounts[i] - taken[i])
            taken[i] += part
            amount -= part
        if amount:
            raise InvariantViolation("a rake larger than the pots")
    return RakeResult(tuple(taken), sum(taken), reason, cite)


def _cumulative(amounts: list[int]) -> list[tuple[int, int]]:
    bounds, lo = [], 0
    for amount in amounts:
        bounds.append((lo, lo + amount))
        lo += amount
    return bounds


def _cap(cap_minor: int | None, total: int) -> int:
    return total if cap_minor is None else cap_minor


def _figure(figures: Mapping[str, Any], key: str) -> Any:
    try:
        return figures[key]
    except KeyError:
        raise ValueError(f"the rulebook has no figure {key!r}") from None


def _positive(rule: object, *names: str) -> None:
    for name in names:
        value = getattr(rule, name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(
                f"{type(rule).__name__}.{name} must be a positive int, got {value!r}"
            )


def _optional_positive(rule: object, *names: str) -> None:
    for name in names:
        if getattr(rule, name) is not None:
            _positive(rule, name)
