"""Write side of poker cash games: tables, buy-ins, cash-outs and hands.

Every write is a command run by casino.runner (`run`): the runner answers a
request whose idempotency key is recorded (its result, or its recorded
refusal; the key with another request is 409 `idempotency_key_reused`);
the command's `load` reads the versions of the streams it depends on, then
the table or hand; `check` returns a refusal by a rule, which the runner
appends as `poker.buy_in_rejected`, `poker.action_rejected`,
`poker.hand_history_rejected` or `poker.time_charge_rejected` under the
request's key before raising it; `decide` returns the events and postings;
the runner appends them expecting the versions read and on a stale version
starts again from `load`. The betting rules are the engine's
(casino/poker/engine): the commands replay a hand's accepted actions
through `engine.apply` and append what it returns, never amounts or pots
sent by a client. Every event carries the venue's gaming day
(`casino.rules.queries.venue_day`).

Money. All chips on a table are one ledger account, `table/<id>/stacks`
(liability: the operator owes the players the chips in front of them); the
split by seat is the Seat projection. Postings, debit positive, for an
amount A:

    buy_in      means +A             table/<id>/stacks -A
    cash_out    table/<id>/stacks +A means -A
    settle      table/<id>/stacks +(rake + drop)
                house/<venue>/rake -rake           (revenue)
                jackpot/<venue>/bad_beat/pending -drop (liability)

where "means" is the player's gaming account `player/<id>/account` (paid
with or to the account) or the cage's cash `cage/<venue>/cash`. Chips that
change hands within a hand (bets, pots, an uncalled bet returned) stay on the
table and move no ledger account: only the house's takes leave it, at
settlement. So every posting balances, and the table account's balance is
always the sum of the seats' stacks (Seat.stack_minor), which change only at
hand boundaries.

Streams and the race between buy-ins and hands: a buy-in or cash-out reads
the table's last hand number n and appends expecting `hand/<t>/<n>` at its
version and `hand/<t>/<n+1>` still empty; `start_hand` appends expecting the
table stream's version and `hand/<t>/<n+1>` empty. Whichever commits second
is stale and, retried, sees the other: no chips are added or removed once a
hand has started (000:L281), and a hand starts from the stacks it read.

A hand ends settled (pots awarded: by a verified showdown, or to the last
player in without cards, 000:L192-195; a hand mucked at the showdown is dead
and wins nothing, `engine.muck`, 000:L245-248), voided (stacks back to the start of
the hand; no posting, as nothing left the table), or disputed: the claimed
showdown result differs from `native_eval.showdown`'s, a compliance alert
(showdown_mismatch) records both, and nothing settles until a decision.
A disputed hand ends only by a compliance officer's `decide_dispute`:
settle with the verified awards (the same postings as any settlement), or
void. Decision: the table controller's `void_hand` refuses a disputed hand,
since the controller's own claim is what is in dispute and the issue gives
the resolution to "a compliance officer ... with a recorded decision".
"""

from __future__ import annotations

import datetime as dt
import uuid
import zoneinfo
from dataclasses import asdict, dataclass, replace
from typing import Any, Mapping, Sequence

import native_eval
from django.contrib.auth import get_user_model

from casino.cage.commands import account_ceiling
from casino.cage.credits import PlayerCredit, accounts_to_open, credit_players
from casino.cage.events import OVERFLOW_KEY, cage_cash, gaming_account
from casino.compliance.checks import AttemptContext, Verdict, run_checks
from casino.compliance.events import ALERT_RAISED
from casino.compliance.models import AlertKind
from casino.compliance.pipeline import Attempt, load_context, rejection, verdict_record
from casino.jackpots.engine import VARIANT_CRITERIA
from casino.roles import Role, has_role
from casino.rules import queries as rules
from casino.rules.models import Figure, RulebookVersion, Venue
from casino.rules.queries import venue_day
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from ledger import InvariantViolation, NewEvent, Posting, RecordedEvent
from ledger.errors import BalanceMaxExceeded, InsufficientFunds, LedgerError
from ledger.models import Account, AccountType, Event, Stream

from . import engine, evening, signals
from .errors import PokerError, PokerErrorCode as Code
from .events import (
    ACTION_REJECTED,
    ACTION_TAKEN,
    BUY_IN_REJECTED,
    DISPUTE_DECIDED,
    HAND_DISPUTED,
    HAND_HISTORY_REJECTED,
    HAND_SETTLED,
    HAND_STARTED,
    HAND_VOIDED,
    MUCK,
    OPEN_STREET,
    PLAYER_BOUGHT_IN,
    PLAYER_CASHED_OUT,
    SCHEMA_VERSION,
    TABLE_OPENED,
    TIME_CHARGE_REJECTED,
    TIME_CHARGED,
    hand_id_of,
    hand_stream,
    house_rake,
    jackpot_pending,
    parse_hand_id,
    table_stacks,
    table_stream,
)
from .models import PlayerBanzaiMove, PlayerEvening, Seat, Table

SOURCE = "casino.poker"
MEANS = ("account", "cash")
PVP_GAME = "poker_pvp"
DECISIONS = ("settle_verified", "void")


def _call(actor: str, idempotency_key: str | None, at: dt.datetime | None) -> Call:
    return Call(actor=actor, key=idempotency_key, at=at, source=SOURCE)


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableResult:
    table_id: str
    venue: str
    currency: str
    rulebook: str
    variant: str
    structure: str
    stakes: Mapping[str, int]
    seats_max: int
    buy_in_minor_min: int
    buy_in_minor_max: int
    rake: Mapping[str, Any]
    drop: Mapping[str, Any] | None
    jackpot: str | None
    position: int
    banzai: bool = False
    jackpot_time_fee: Mapping[str, Any] | None = None
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class SeatResult:
    """A buy-in or cash-out: the seat's stack after it."""

    event_type: str
    table_id: str
    seat: int
    player_id: str
    amount_minor: int
    method: str
    stack_minor: int
    position: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class HandResult:
    """Where a hand stands after a command; stacks are live (or final)."""

    hand_id: str
    table_id: str
    number: int
    state: str
    phase: str
    to_act: int | None
    pot_minor: int
    stacks_minor: Mapping[int, int]
    rake_minor: int
    drop_minor: int
    awards_verified: Mapping[int, int] | None
    awards_claimed: Mapping[int, int] | None
    positions: tuple[int, ...]
    replayed: bool = False


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

def open_table(*, venue: str, variant: str, structure: str, small_blind_minor: int,
               big_blind_minor: int, ante_minor: int = 0, seats_max: int,
               buy_in_minor_min: int, buy_in_minor_max: int, bring_in_minor: int = 0,
               small_bet_minor: int = 0, big_bet_minor: int = 0,
               big_blind_ante_minor: int = 0, rake: str = "standard",
               rake_cap_minor: int | None = None,
               rake_percent_basis_points: int | None = None, jackpot: bool = False,
               jackpot_drop_minor: int | None = None, banzai: bool = False,
               time_charge_minor: int | None = None,
               time_charge_period_minutes: int | None = None,
               jackpot_fee: str = "per_hand", actor: str,
               idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> TableResult:
    """Open a cash-game table with its stakes, seats, buy-in range and rake rule.

    `banzai`: the online shallow-stack format (001:L219-223): its own rake
    rows, and a maximum buy-in of at most 10 big blinds. `rake` may be a
    time charge instead of a pot rake (`time_charge` with its amount and
    period where the table sets them, 000:L464-465, 002:L287-289;
    `time_rake` in Tallinn, 003:L140), charged by `charge_time`. A Veikkaus
    jackpot table may take its jackpot fee by time (`jackpot_fee` `time_60`
    or `time_15`, 000:L2876-2879) instead of EUR 1 a hand.

    The rake and jackpot drop are built from the venue's rulebook in force
    (`_house_rules`) and frozen into the table's event, so a later rulebook
    version changes the tables opened under it only. Raises PokerError
    (bad configuration: 400; a rule the rulebook lacks: 422), RulesError
    (unknown venue: 404).
    """
    arguments = dict(
        venue=venue, variant=variant, structure=structure,
        small_blind_minor=small_blind_minor, big_blind_minor=big_blind_minor,
        ante_minor=ante_minor, seats_max=seats_max, buy_in_minor_min=buy_in_minor_min,
        buy_in_minor_max=buy_in_minor_max, bring_in_minor=bring_in_minor,
        small_bet_minor=small_bet_minor, big_bet_minor=big_bet_minor,
        big_blind_ante_minor=big_blind_ante_minor, rake=rake, rake_cap_minor=rake_cap_minor,
        rake_percent_basis_points=rake_percent_basis_points, jackpot=jackpot,
        jackpot_drop_minor=jackpot_drop_minor, banzai=banzai,
        time_charge_minor=time_charge_minor,
        time_charge_period_minutes=time_charge_period_minutes, jackpot_fee=jackpot_fee)
    return run(OPEN_TABLE, arguments, _call(actor, idempotency_key, at))


CONFIG_FIELDS = ("variant", "structure", "small_blind_minor", "big_blind_minor", "ante_minor",
                 "seats_max", "buy_in_minor_min", "buy_in_minor_max", "bring_in_minor",
                 "small_bet_minor", "big_bet_minor", "big_blind_ante_minor")


@dataclass(frozen=True, slots=True)
class NewTable:
    """A table about to open: its venue, game and the house's rules, frozen."""

    place: Venue
    at: dt.datetime
    table_id: str
    rulebook: str
    config: Mapping[str, Any]
    rake_rule: Any
    drop_rule: Any
    jackpot_time_fee: Any


class OpenTable(BaseCommand[NewTable, TableResult]):
    name = "poker.open_table"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> NewTable:
        a = arguments
        place = rules.venue(a["venue"])
        at = call.moment()
        rulebook = _rulebook(place, at)
        figures = _figures(rulebook, _local_date(place, at))
        config = _table_config(**{name: a[name] for name in CONFIG_FIELDS})
        jackpot = a["jackpot"]
        if a["banzai"]:
            _check_banzai(figures, config)
            config["banzai"] = True
        seats_allowed = _seats_allowed(figures, jackpot=jackpot)
        if seats_allowed is not None and a["seats_max"] > seats_allowed[0]:
            raise PokerError(Code.TOO_MANY_SEATS,
                             f"{rulebook.key} allows at most {seats_allowed[0]} players at"
                             f" {'a jackpot' if jackpot else 'a'} table",
                             limit=seats_allowed[0], seats_max=a["seats_max"],
                             cite=seats_allowed[1])
        rake_rule, drop_rule = _house_rules(
            rulebook, figures, config, rake=a["rake"], rake_cap_minor=a["rake_cap_minor"],
            rake_percent_basis_points=a["rake_percent_basis_points"], jackpot=jackpot,
            jackpot_drop_minor=a["jackpot_drop_minor"],
            time_charge_minor=a["time_charge_minor"],
            time_charge_period_minutes=a["time_charge_period_minutes"])
        if jackpot and rulebook.rulebook_id == "veikkaus-poker-room" \
                and a["variant"] not in JACKPOT_VARIANTS:
            raise PokerError(Code.RAKE_RULE_NOT_OFFERED,
                             f"{a['variant']} has no bad-beat criteria: the jackpot neither"
                             " pays nor is charged there (000:L2910, L2937-2938)",
                             variant=a["variant"], cite="000:L2910, L2937-2938")
        jackpot_time_fee = _jackpot_time_fee(figures, a["jackpot_fee"], jackpot=jackpot)
        if jackpot_time_fee is not None:
            drop_rule = None  # the fee by time replaces the EUR 1 a hand
        return NewTable(place=place, at=at, table_id=f"tbl-{uuid.uuid4().hex[:12]}",
                        rulebook=rulebook.key, config=config, rake_rule=rake_rule,
                        drop_rule=drop_rule, jackpot_time_fee=jackpot_time_fee)

    def decide(self, context: NewTable) -> Decision:
        place, table_id = context.place, context.table_id
        fee, drop = context.jackpot_time_fee, context.drop_rule
        payload = {
            "table_id": table_id, "venue": place.code, "currency": place.currency,
            "rulebook": context.rulebook, **context.config,
            "rake": _rule_record(context.rake_rule),
            "drop": _rule_record(drop) if drop else None,
            "jackpot": jackpot_pending(place.code) if drop or fee else None,
            "jackpot_time_fee": _rule_record(fee) if fee else None,
        }
        event = NewEvent(stream=table_stream(table_id), type=TABLE_OPENED, payload=payload,
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(place, context.at))
        accounts = [table_stacks(table_id), house_rake(place.code)]
        if payload["jackpot"]:
            accounts.append(jackpot_pending(place.code))
        return Decision([event], {event.stream: 0},
                        accounts=[_account_terms(code, venue=place, table_id=table_id)
                                  for code in accounts])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TableResult:
        return _table_result(events[0], replayed=replayed)


OPEN_TABLE = OpenTable()


def _table_config(*, variant: str, structure: str, small_blind_minor: int,
                  big_blind_minor: int, ante_minor: int, seats_max: int,
                  buy_in_minor_min: int, buy_in_minor_max: int, bring_in_minor: int = 0,
                  small_bet_minor: int = 0, big_bet_minor: int = 0,
                  big_blind_ante_minor: int = 0) -> dict[str, Any]:
    """Validate a table's game configuration; return its event fields.

    Board and draw games open with blinds; stud games with a bring-in (or
    blinds, 000:L952-954) and the dealer names who acts first on each street
    (`start_hand(first_seat=...)`, the `open_street` step).
    """
    if variant not in engine.VARIANTS or variant not in native_eval.VARIANTS:
        raise PokerError(Code.INVALID_REQUEST, f"unknown poker variant {variant!r}",
                         status=400, field="variant")
    try:
        structure = engine.BettingStructure(structure).value
        stakes = engine.Stakes(small_blind_minor=small_blind_minor,
                               big_blind_minor=big_blind_minor, ante_minor=ante_minor,
                               big_blind_ante_minor=big_blind_ante_minor,
                               bring_in_minor=bring_in_minor, small_bet_minor=small_bet_minor,
                               big_bet_minor=big_bet_minor)
    except ValueError as error:
        raise PokerError(Code.INVALID_REQUEST, str(error), status=400) from None
    family = engine.family_of(variant)
    if family is not engine.Family.STUD and big_blind_minor <= 0:
        raise PokerError(Code.INVALID_REQUEST, f"a {family.value} game table needs a big"
                         " blind", status=400, field="big_blind")
    if family is engine.Family.STUD and not (bring_in_minor or big_blind_minor):
        raise PokerError(Code.INVALID_REQUEST, "a stud table needs a bring-in or blinds"
                         " (000:L952-954)", status=400, field="bring_in")
    if engine.BettingStructure(structure).is_limit and not stakes.small_unit_minor:
        raise PokerError(Code.INVALID_REQUEST, "a limit table needs its betting units",
                         status=400, field="small_bet")
    if not 2 <= seats_max <= engine.betting.SEATS_MAX:
        raise PokerError(Code.INVALID_REQUEST,
                         f"seats_max must be 2 to {engine.betting.SEATS_MAX} (000:L495)",
                         status=400, field="seats_max")
    if not 0 < buy_in_minor_min <= buy_in_minor_max:
        raise PokerError(Code.INVALID_REQUEST,
                         "the buy-in range needs 0 < minimum <= maximum", status=400,
                         field="buy_in_min")
    names = ("small_blind_minor", "big_blind_minor", "ante_minor", "big_blind_ante_minor",
             "bring_in_minor", "small_bet_minor", "big_bet_minor")
    return {"variant": variant, "structure": structure,
            "stakes": {k: getattr(stakes, k) for k in names
                       if getattr(stakes, k) or k in names[:3]},
            "seats_max": seats_max, "buy_in_minor_min": buy_in_minor_min,
            "buy_in_minor_max": buy_in_minor_max}


def _check_banzai(figures: Mapping[str, tuple[Any, str]], config: Mapping[str, Any]) -> None:
    if "banzai.stack_max_big_blinds" not in figures:
        raise PokerError(Code.RAKE_RULE_NOT_OFFERED, "this venue's rulebook has no Banzai"
                         " tables", field="banzai")
    cap = figures["banzai.stack_max_big_blinds"][0] * config["stakes"]["big_blind_minor"]
    if config["buy_in_minor_max"] > cap:
        raise PokerError(Code.INVALID_REQUEST, f"a Banzai table's maximum buy-in is at most"
                         f" 10 big blinds ({cap})", status=400, field="buy_in_max",
                         limit_minor=cap, cite="001:L221")


def _seats_allowed(figures: Mapping[str, Any], *, jackpot: bool) -> tuple[int, str] | None:
    """The rulebook's maximum players at a table (a jackpot table's, if stricter)."""
    for key in (("table.players.max_jackpot_table",) if jackpot else ()) + (
            "table.players.max", "table.max_seats"):
        if key in figures:
            return figures[key]
    return None


def _house_rules(rulebook: RulebookVersion, figures: Mapping[str, Any],
                 config: Mapping[str, Any], *, rake: str,
                 rake_cap_minor: int | None, rake_percent_basis_points: int | None,
                 jackpot: bool, jackpot_drop_minor: int | None,
                 time_charge_minor: int | None = None,
                 time_charge_period_minutes: int | None = None,
                 ) -> tuple[engine.RakeRule, engine.DropRule | None]:
    """Build the table's rake and jackpot drop from the venue's rulebook figures.

    veikkaus-poker-room: rake `standard` (EUR 1 per full EUR 20) or
    `alternative` (per full EUR 10), optional cap (000:L430-461); jackpot:
    the bad-beat drop (000:L2869-2872). olympic-tallinn: `standard`
    (003:L139, L143); jackpot drop 003:L141-143. RAY venues: `house_fee`, a
    percentage the table announces (002:L283-285); jackpot: the posted
    bad-beat amount (002:L1804). veikkaus-online-poker: `standard`, the rake
    table's row for the table's game and blinds (`_online_rake_row`,
    001:L721-743); no jackpot. Anything else: `poker.rake_rule_not_offered`.
    """
    values = {key: value for key, (value, _) in figures.items()}
    book = rulebook.rulebook_id
    try:
        if book == "veikkaus-online-poker" and rake == "standard" and not jackpot:
            game, stake = _online_rake_row(values, config)
            return engine.online_rake(values, game=game, stake=stake), None
        if rake == "time_charge" and book == "veikkaus-poker-room":
            rake_rule = engine.veikkaus_room_time_charge(
                values, amount_minor=time_charge_minor or 0,
                period_minutes=time_charge_period_minutes or 0)
            drop = engine.veikkaus_bad_beat_drop(values) if jackpot else None
        elif rake == "time_charge" and book.startswith("ray-"):
            rake_rule = engine.ray_time_charge(
                values, amount_minor=time_charge_minor or 0,
                period_minutes=time_charge_period_minutes or 0)
            drop = (engine.ray_bad_beat_drop(values, amount_minor=jackpot_drop_minor or 0)
                    if jackpot else None)
        elif book == "olympic-tallinn" and rake == "time_rake":
            rake_rule = engine.tallinn_time_rake(values)
            drop = engine.tallinn_jackpot_drop(values) if jackpot else None
        elif book == "veikkaus-poker-room" and rake in ("standard", "alternative"):
            rake_rule: engine.RakeRule = engine.veikkaus_room_rake(
                values, alternative=rake == "alternative", cap_minor=rake_cap_minor)
            drop = engine.veikkaus_bad_beat_drop(values) if jackpot else None
        elif book == "olympic-tallinn" and rake == "standard":
            rake_rule = engine.tallinn_rake(values)
            drop = engine.tallinn_jackpot_drop(values) if jackpot else None
        elif book.startswith("ray-") and rake == "house_fee" and rake_percent_basis_points:
            rake_rule = engine.ray_house_fee(values,
                                             percent_basis_points=rake_percent_basis_points,
                                             cap_minor=rake_cap_minor)
            drop = (engine.ray_bad_beat_drop(values, amount_minor=jackpot_drop_minor or 0)
                    if jackpot else None)
        else:
            raise ValueError(f"no rake rule {rake!r} under {rulebook.key}")
    except ValueError as error:
        raise PokerError(Code.RAKE_RULE_NOT_OFFERED, str(error), rulebook=rulebook.key,
                         rake=rake, jackpot=jackpot) from None
    return rake_rule, drop


# The online rake table's games by (variant, structure) (001:L725-739).
ONLINE_RAKE_GAMES = {("holdem", "no_limit"): "nl_holdem", ("omaha", "pot_limit"): "pl_omaha"}
# Banzai is raked by its own rows, Omaha with Hold'em's (decision banzai.omaha_rake).
BANZAI_RAKE_GAMES = {("holdem", "no_limit"): "banzai_holdem",
                     ("omaha", "pot_limit"): "banzai_omaha"}


# The variants the Veikkaus bad-beat jackpot lists (000:L2880-2937); any
# other game at a jackpot table would pay a drop it can never win back.
JACKPOT_VARIANTS = frozenset(VARIANT_CRITERIA)

JACKPOT_TIME_FEES = {"time_60": "jackpot.bad_beat.time_charge.per_60_minutes",
                     "time_15": "jackpot.bad_beat.time_charge.per_15_minutes"}


def _jackpot_time_fee(figures: Mapping[str, tuple[Any, str]], jackpot_fee: str, *,
                      jackpot: bool) -> engine.TimeCharge | None:
    """The jackpot fee by time, per table and split among the players (000:L2876-2879).

    The table's amount per started period, shared equally (each share
    rounded down, as for Tallinn's time rake); collected by `charge_time`.
    """
    if jackpot_fee == "per_hand":
        return None
    key = JACKPOT_TIME_FEES.get(jackpot_fee)
    if key is None or not jackpot or key not in figures:
        raise PokerError(Code.RAKE_RULE_NOT_OFFERED,
                         f"no jackpot fee {jackpot_fee!r} at this table's venue",
                         jackpot_fee=jackpot_fee, jackpot=jackpot)
    amount, cite = figures[key]
    return engine.TimeCharge("veikkaus_bad_beat_time_fee", amount,
                             60 if jackpot_fee == "time_60" else 15,
                             engine.TimeChargeBasis.PER_TABLE_SPLIT, cite)


def _online_rake_row(values: Mapping[str, Any], config: Mapping[str, Any]
                     ) -> tuple[str, str]:
    """The online rake table's (game, stake) row for a table's game and blinds (pure).

    The row is the one whose small and big blind are the table's
    (`stake.<game>.<row>.small_blind`, `.big_blind`; 001:L725, L731);
    ValueError when the table's game or blinds have no row.
    """
    games = BANZAI_RAKE_GAMES if config.get("banzai") else ONLINE_RAKE_GAMES
    game = games.get((config["variant"], config["structure"]))
    if game is None:
        raise ValueError(f"the online rake table has no {config['structure']}"
                         f" {config['variant']} row (001:L721-739)")
    stakes = config["stakes"]
    prefix = f"stake.{game.replace('banzai_omaha', 'banzai_holdem')}."
    for key, value in sorted(values.items()):
        if not (key.startswith(prefix) and key.endswith(".big_blind")):
            continue
        stake = key[len(prefix):-len(".big_blind")]
        if (value == stakes["big_blind_minor"]
                and values.get(f"{prefix}{stake}.small_blind") == stakes["small_blind_minor"]):
            return game, stake
    raise ValueError(f"the online rake table has no {game} row for the blinds"
                     f" {stakes['small_blind_minor']}/{stakes['big_blind_minor']}"
                     " (001:L725-739)")


def _rule_record(rule: engine.RakeRule | engine.DropRule) -> dict[str, Any]:
    kind = {engine.BlockRake: "block", engine.PercentRake: "percent",
            engine.TimeCharge: "time", engine.DropRule: "drop"}[type(rule)]
    return {"kind": kind, **{k: (str(v) if isinstance(v, str) else v)
                             for k, v in asdict(rule).items()}}


def _rule_from(record: Mapping[str, Any]) -> Any:
    fields = {k: v for k, v in record.items() if k != "kind"}
    if record["kind"] == "block":
        return engine.BlockRake(**fields)
    if record["kind"] == "percent":
        return engine.PercentRake(**{**fields, "rounding": engine.Rounding(fields["rounding"])})
    if record["kind"] == "time":
        return engine.TimeCharge(**{**fields, "basis": engine.TimeChargeBasis(fields["basis"])})
    return engine.DropRule(**fields)


# ---------------------------------------------------------------------------
# Buy-in and cash-out
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableContext:
    """A table between commands: its seats, last hand and stream versions."""

    table: Table
    seats: dict[int, Seat]
    last_hand: int
    last_hand_running: bool
    versions: dict[str, int]



def buy_in(*, table_id: str, seat: int, player_id: str, amount_minor: int,
           paid_with: str = "account", actor: str, idempotency_key: str | None = None,
           at: dt.datetime | None = None) -> SeatResult:
    """Move money from the player's gaming account (or cash) onto a seat's stack.

    A first buy-in is between the table's minimum and maximum; a top-up
    between hands may not take the stack over the maximum (000:L545-546), and
    a stack under one big blind must be topped up by at least the minimum
    (000:L541-543). Refused while a hand runs (000:L281). A refusal by these
    rules is recorded (`poker.buy_in_rejected`) and raised as PokerError; the
    compliance pipeline's (identity, age, self-exclusion) as AttemptRejected.
    Not enough in the gaming account: `poker.insufficient_funds`, nothing
    written.
    """
    arguments = {"table_id": table_id, "seat": seat, "player_id": player_id,
                 "amount_minor": amount_minor, "paid_with": paid_with}
    return run(BUY_IN, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class BuyInContext:
    """A buy-in: the table, the refusal by a poker or compliance rule, the means."""

    table: TableContext
    place: Venue
    at: dt.datetime
    day: dt.date
    seat: int
    player_id: str
    amount_minor: int
    paid_with: str
    means: str
    means_missing: bool
    failure: PokerError | None
    short: bool
    attempt: Attempt | None
    compliance: AttemptContext | None
    verdict: Verdict | None


class BuyIn(BaseCommand[BuyInContext, SeatResult]):
    name = "poker.buy_in"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> BuyInContext:
        seat, player_id = arguments["seat"], arguments["player_id"]
        amount_minor, paid_with = arguments["amount_minor"], arguments["paid_with"]
        _check_means(paid_with, "paid_with")
        _check_amount(amount_minor)
        at = call.moment()
        ctx = load_table(arguments["table_id"])
        table = ctx.table
        _check_seat_number(table, seat)
        place = rules.venue(table.venue)
        day = venue_day(place, at)
        failure, short = _buy_in_refusal(ctx, seat=seat, player_id=player_id,
                                         amount_minor=amount_minor, at=at, day=day)
        attempt = compliance = verdict = None
        if failure is None:
            attempt = Attempt(kind="buy_in", venue=table.venue, amount_minor=amount_minor,
                              currency=table.currency, player_id=player_id, game=PVP_GAME,
                              category="pvp", at=at)
            compliance = load_context(attempt)
            verdict = run_checks(compliance)
        means = _means_account(paid_with, player_id, table.venue)
        means_missing = (paid_with == "account"
                         and not Account.objects.filter(code=means).exists())
        return BuyInContext(table=ctx, place=place, at=at, day=day, seat=seat,
                            player_id=player_id, amount_minor=amount_minor,
                            paid_with=paid_with, means=means, means_missing=means_missing,
                            failure=failure, short=short, attempt=attempt,
                            compliance=compliance, verdict=verdict)

    def check(self, context: BuyInContext) -> Rejection | None:
        if context.failure is not None:
            return _rejection(BUY_IN_REJECTED, table_stream(context.table.table.id),
                              context.failure,
                              {"table_id": context.table.table.id, "seat": context.seat,
                               "player_id": context.player_id,
                               "amount_minor": context.amount_minor},
                              place=context.place, at=context.at)
        if not context.verdict.allowed:
            return rejection(context.attempt, context.compliance, context.verdict)
        return None

    def decide(self, context: BuyInContext) -> Decision:
        if context.means_missing:
            raise _insufficient(context.means, 0, context.amount_minor)
        ctx, amount = context.table, context.amount_minor
        table = ctx.table
        event = NewEvent(
            stream=table_stream(table.id), type=PLAYER_BOUGHT_IN,
            payload={"table_id": table.id, "seat": context.seat,
                     "player_id": context.player_id, "amount_minor": amount,
                     "paid_with": context.paid_with,
                     "stack_minor_after": ctx.seats[context.seat].stack_minor + amount,
                     "short": context.short, "verdict": verdict_record(context.verdict)},
            postings=(Posting(context.means, amount, table.currency),
                      Posting(table_stacks(table.id), -amount, table.currency)),
            schema_version=SCHEMA_VERSION, occurred_at=context.at, gaming_day=context.day)
        return Decision([event], ctx.versions,
                        accounts=[_account_terms(context.means, venue=context.place,
                                                 table_id=table.id, at=context.at)])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> SeatResult:
        if events[0].type == BUY_IN_REJECTED:
            _raise_recorded_refusal(events[0])
        return _seat_result(events[0], replayed=replayed)

    def refusal(self, context: BuyInContext, error: LedgerError) -> Exception | None:
        if isinstance(error, InsufficientFunds):
            return _insufficient(context.means, error.details.get("balance_minor", 0),
                                 context.amount_minor)
        return None


BUY_IN = BuyIn()


def _buy_in_refusal(ctx: TableContext, *, seat: int, player_id: str, amount_minor: int,
                    at: dt.datetime, day: dt.date) -> tuple[PokerError | None, bool]:
    """Why this buy-in is refused, or (None, whether it is a short buy-in).

    The seat rules first (a hand running, the seat taken, the player at
    another seat), then the buy-in range and the evening's rules
    (casino/poker/evening.py) with the summary of the player's earlier moves,
    read by key from the projection, and only the parts the rulebook's rules
    need: the cost does not grow with the player's moves.
    """
    table = ctx.table
    if ctx.last_hand_running:
        return _hand_running(table.id, ctx.last_hand), False
    sitting = ctx.seats[seat]
    if sitting.player_id and sitting.player_id != player_id:
        return PokerError(Code.SEAT_TAKEN, f"seat {seat} is taken", status=409,
                          seat=seat), False
    elsewhere = [n for n, s in ctx.seats.items() if s.player_id == player_id and n != seat]
    if elsewhere:
        return PokerError(Code.NOT_SEATED_HERE,
                          f"the player sits at seat {elsewhere[0]} of this table",
                          status=409, seat=elsewhere[0]), False
    rulebook = RulebookVersion.objects.get(key=table.rulebook)
    rules_tonight = evening.EveningRules.from_figures(_figures(rulebook, day))
    terms = evening.TableTerms(
        table_id=table.id, structure=table.structure,
        small_blind_minor=table.stakes["small_blind_minor"],
        big_blind_minor=evening.opening_unit(table.stakes),
        buy_in_minor_min=table.buy_in_minor_min, buy_in_minor_max=table.buy_in_minor_max,
        banzai=table.banzai, rulebook=table.rulebook)
    tonight, banzai_now = evening.Evening(), 0
    if rules_tonight.one_stack is not None or rules_tonight.short is not None:
        row = PlayerEvening.objects.filter(
            key=PlayerEvening.key_of(player_id, table.venue, day)).first()
        if row is not None:
            tonight = evening.Evening(row.buy_ins, row.short_buy_ins,
                                      {s: evening.move_from(m)
                                       for s, m in row.last_moves.items()})
    if table.banzai and rules_tonight.banzai is not None:
        last = PlayerBanzaiMove.objects.filter(
            key=PlayerBanzaiMove.key_of(player_id, table.venue)).first()
        if last is not None:
            tonight = replace(tonight, last_banzai=evening.move_from(last.move))
        banzai_now = Seat.objects.filter(
            player_id=player_id, table__banzai=True, table__venue=table.venue,
            table__stakes=table.stakes).exclude(table=table).count()
    try:
        verdict = evening.check_buy_in(
            rules_tonight, terms, amount_minor=amount_minor,
            stack_minor=sitting.stack_minor if sitting.player_id else 0,
            sitting_down=not sitting.player_id, evening=tonight,
            banzai_tables_now=banzai_now, at=at)
    except PokerError as refusal:
        return refusal, False
    return None, verdict.short



def cash_out(*, table_id: str, seat: int, player_id: str, paid_to: str = "account",
             actor: str, idempotency_key: str | None = None,
             at: dt.datetime | None = None) -> SeatResult:
    """Take a seat's whole stack off the table into the gaming account (or cash).

    The player leaves the seat. Refused while a hand runs (000:L281): 409,
    nothing written. Into the account, the stack is credited up to the
    account's ceiling and the rest goes to `bank/<venue>/payouts_due`, owed
    to the player's bank account, with an `overflow` block in the payload
    (ray-online decision online.account.balance_overflow, 002:L3068-3070).
    """
    arguments = {"table_id": table_id, "seat": seat, "player_id": player_id,
                 "paid_to": paid_to}
    return run(CASH_OUT, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class CashOutContext:
    """A cash-out: the table, the seat's stack and how it is credited."""

    table: TableContext
    place: Venue
    at: dt.datetime
    seat: int
    player_id: str
    paid_to: str
    amount_minor: int
    means: str
    credit: PlayerCredit | None
    accounts: Sequence[Mapping[str, Any]]


class CashOut(BaseCommand[CashOutContext, SeatResult]):
    name = "poker.cash_out"
    source = SOURCE
    # A deposit committed after the ceiling split was read
    # (casino/cage/credits.py): split again from a new read.
    retry_on = (BalanceMaxExceeded,)

    def load(self, arguments: Mapping[str, Any], call: Call) -> CashOutContext:
        seat, player_id, paid_to = arguments["seat"], arguments["player_id"], arguments["paid_to"]
        _check_means(paid_to, "paid_to")
        at = call.moment()
        ctx = load_table(arguments["table_id"])
        table = ctx.table
        _check_seat_number(table, seat)
        place = rules.venue(table.venue)
        if ctx.last_hand_running:
            raise _hand_running(table.id, ctx.last_hand)
        sitting = ctx.seats[seat]
        if not sitting.player_id:
            raise PokerError(Code.SEAT_EMPTY, f"seat {seat} is empty", status=409, seat=seat)
        if sitting.player_id != player_id:
            raise PokerError(Code.NOT_SEATED_HERE, f"seat {seat} is not this player's",
                             status=409, seat=seat)
        amount = sitting.stack_minor
        means = _means_account(paid_to, player_id, table.venue)
        credit = None
        if amount and paid_to == "account":
            # Up to the ceiling into the account, the rest owed to the bank
            # account (decision online.account.balance_overflow, 002:L3068-3070).
            credit = credit_players({player_id: amount}, currency=table.currency,
                                    venue=table.venue, on=_local_date(place, at),
                                    open_payouts_due=False)[player_id]
        accounts: list[Mapping[str, Any]] = []
        if amount:
            accounts.append(_account_terms(means, venue=place, table_id=table.id, at=at))
        if credit is not None:
            accounts += accounts_to_open([credit])
        return CashOutContext(table=ctx, place=place, at=at, seat=seat, player_id=player_id,
                              paid_to=paid_to, amount_minor=amount, means=means,
                              credit=credit, accounts=accounts)

    def decide(self, context: CashOutContext) -> Decision:
        table, amount = context.table.table, context.amount_minor
        payload: dict[str, Any] = {"table_id": table.id, "seat": context.seat,
                                   "player_id": context.player_id, "amount_minor": amount,
                                   "paid_to": context.paid_to}
        credits: tuple[Posting, ...] = ((Posting(context.means, -amount, table.currency),)
                                        if amount else ())
        if context.credit is not None:
            credits = context.credit.postings
            if context.credit.overflow is not None:
                payload[OVERFLOW_KEY] = [context.credit.overflow]
        postings = ((Posting(table_stacks(table.id), amount, table.currency), *credits)
                    if amount else ())
        event = NewEvent(
            stream=table_stream(table.id), type=PLAYER_CASHED_OUT, payload=payload,
            postings=postings, schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=venue_day(context.place, context.at))
        return Decision([event], context.table.versions, accounts=context.accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> SeatResult:
        return _seat_result(events[0], replayed=replayed)


CASH_OUT = CashOut()


def charge_time(*, table_id: str, consenting_players: Sequence[str] = (), actor: str,
                idempotency_key: str | None = None,
                at: dt.datetime | None = None) -> TimeChargeResult:
    """Charge one period of the table's time charge, before the period starts.

    Between hands, from each seated player's stack: the time rake to the
    house (000:L464-465; 002:L287-289; Tallinn's EUR 30 a half hour shared,
    three players or fewer, 003:L140) and the jackpot fee by time to the
    jackpot (000:L2876-2878). Where the rules want the players' agreement
    (every player, for the jackpot fee, 000:L2876; Tallinn's time rake,
    003:L140) `consenting_players` must name every seated player. A paid
    period stays paid if players leave during it (000:L2878-2879).

    Refusals: no time charge at this table, a hand running, a stack smaller
    than its share (409, nothing written); too many players or a missing
    consent (422, recorded as `poker.time_charge_rejected`).
    """
    arguments = {"table_id": table_id, "consenting_players": sorted(consenting_players)}
    return run(CHARGE_TIME, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class TimeChargeContext:
    """A period's charge: the seated players' shares, or why it is refused."""

    table: TableContext
    place: Venue
    at: dt.datetime
    consenting_players: Sequence[str]
    seated: Mapping[int, Seat]
    rake: engine.TimeChargeResult | None
    fee: engine.TimeChargeResult | None
    refusal: PokerError | None


class ChargeTime(BaseCommand[TimeChargeContext, "TimeChargeResult"]):
    name = "poker.charge_time"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> TimeChargeContext:
        at = call.moment()
        consenting_players = arguments["consenting_players"]
        ctx = load_table(arguments["table_id"])
        table = ctx.table
        place = rules.venue(table.venue)
        rake_rule = _rule_from(table.rake)
        by_time = isinstance(rake_rule, engine.TimeCharge)
        jackpot_fee = _rule_from(table.jackpot_time_fee) if table.jackpot_time_fee else None
        if not by_time and jackpot_fee is None:
            raise PokerError(Code.NO_TIME_CHARGE, "this table charges no time",
                             status=409, table_id=table.id)
        if ctx.last_hand_running:
            raise _hand_running(table.id, ctx.last_hand)
        seated = {n: s for n, s in ctx.seats.items() if s.player_id}
        if not seated:
            raise PokerError(Code.NO_TIME_CHARGE, "nobody is seated", status=409)
        rake = fee = refusal = None
        try:
            rake = engine.time_charge_for(rake_rule, list(seated)) if by_time else None
            fee = engine.time_charge_for(jackpot_fee, list(seated)) if jackpot_fee else None
            missing = sorted({s.player_id for s in seated.values()} - set(consenting_players))
            if missing and (jackpot_fee is not None or rake_rule.players_max is not None):
                refusal = PokerError(
                    Code.TIME_CHARGE_CONSENT_MISSING,
                    "every player at the table must agree to the time charge",
                    missing=missing, cite=jackpot_fee.cite if jackpot_fee else rake_rule.cite)
        except engine.IllegalAction as illegal:
            refusal = PokerError(illegal.code, illegal.message, **illegal.details)
        return TimeChargeContext(table=ctx, place=place, at=at,
                                 consenting_players=consenting_players, seated=seated,
                                 rake=rake, fee=fee, refusal=refusal)

    def check(self, context: TimeChargeContext) -> Rejection | None:
        if context.refusal is None:
            return None
        table_id = context.table.table.id
        return _rejection(TIME_CHARGE_REJECTED, table_stream(table_id), context.refusal,
                          {"table_id": table_id,
                           "consenting_players": list(context.consenting_players)},
                          place=context.place, at=context.at)

    def decide(self, context: TimeChargeContext) -> Decision:
        table, seated = context.table.table, context.seated
        rake, fee = context.rake, context.fee
        per_seat = {n: {"rake_minor": 0, "jackpot_minor": 0} for n in seated}
        for result, part in ((rake, "rake_minor"), (fee, "jackpot_minor")):
            for seat, amount in (result.per_seat_minor if result else ()):
                per_seat[seat][part] += amount
        for seat, parts in per_seat.items():
            if sum(parts.values()) > seated[seat].stack_minor:
                raise PokerError(Code.STACK_BELOW_TIME_CHARGE,
                                 f"seat {seat} has {seated[seat].stack_minor}, less than its"
                                 f" time charge {sum(parts.values())}: top up or leave",
                                 status=409, seat=seat)
        rake_total = rake.total_minor if rake else 0
        fee_total = fee.total_minor if fee else 0
        postings = [Posting(table_stacks(table.id), rake_total + fee_total, table.currency)]
        if rake_total:
            postings.append(Posting(house_rake(table.venue), -rake_total, table.currency))
        if fee_total:
            postings.append(Posting(table.jackpot, -fee_total, table.currency))
        payload = {
            "table_id": table.id,
            "per_seat": {str(n): parts for n, parts in per_seat.items()},
            "players": {str(n): s.player_id for n, s in seated.items()},
            "rake_minor": rake_total, "jackpot_minor": fee_total,
            "period_minutes": (rake or fee).period_minutes,
            "cite": ", ".join(r.cite for r in (rake, fee) if r),
            "consenting_players": sorted(context.consenting_players),
            "stacks_minor_after": {str(n): s.stack_minor - sum(per_seat[n].values())
                                   for n, s in seated.items()},
        }
        event = NewEvent(stream=table_stream(table.id), type=TIME_CHARGED, payload=payload,
                         postings=tuple(postings), schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=venue_day(context.place, context.at))
        return Decision([event], context.table.versions)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TimeChargeResult:
        if events[0].type == TIME_CHARGE_REJECTED:
            _raise_recorded_refusal(events[0])
        return _time_charge_result(events[0], replayed=replayed)


CHARGE_TIME = ChargeTime()


@dataclass(frozen=True, slots=True)
class TimeChargeResult:
    table_id: str
    rake_minor: int
    jackpot_minor: int
    period_minutes: int
    stacks_minor: Mapping[int, int]
    position: int
    replayed: bool = False


def _time_charge_result(event: RecordedEvent, *, replayed: bool) -> TimeChargeResult:
    p = event.payload
    return TimeChargeResult(p["table_id"], p["rake_minor"], p["jackpot_minor"],
                            p["period_minutes"],
                            {int(k): v for k, v in p["stacks_minor_after"].items()},
                            event.position, replayed)


def load_table(table_id: str) -> TableContext:
    """Load a table, its seats, its last hand and the versions a write expects.

    The versions are read first, so anything read after them is at least as
    new and any later change makes the append stale. The next hand's stream
    is expected empty whatever was read: a hand started since the table's
    row was read makes the append stale, and the runner loads again.
    """
    table = Table.objects.filter(id=table_id).first()
    if table is None:
        raise PokerError(Code.UNKNOWN_TABLE, f"no table {table_id!r}", status=404,
                         table_id=table_id)
    last = table.hands_started
    streams = [table_stream(table_id)] + ([hand_stream(table_id, last)] if last else [])
    versions = {**_versions(streams), hand_stream(table_id, last + 1): 0}
    seats = {s.number: s for s in Seat.objects.filter(table=table)}
    running = False
    if last:
        running = not _hand_final(_hand_events(table_id, last))
    return TableContext(table, seats, last, running, versions)


# ---------------------------------------------------------------------------
# Hands
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandContext:
    """A hand rebuilt from its events: the engine state and where it stands."""

    table: Table
    number: int
    started: Mapping[str, Any]
    state: engine.HandState
    status: str            # "running" | "settled" | "disputed" | "voided"
    version: int

    @property
    def stream(self) -> str:
        return hand_stream(self.table.id, self.number)

    @property
    def hand_id(self) -> str:
        return hand_id_of(self.table.id, self.number)


@dataclass(frozen=True, slots=True)
class Deal:
    """How a hand is dealt: the button and the forced bets' special cases.

    `blind_seats` (small or None, big) overrides the seats after the button
    when the blinds move irregularly (000:L1036-1070); `straddles` counts the
    live straddles (000:L975-985); `first_seat` names who brings in on the
    first street of a stud game without blinds (000:L2170-2186);
    `missed_blinds` maps a returning player's seat to the blinds they missed
    and post to play at once, "big" or "small" (000:L1133-1167).
    """

    button: int
    blind_seats: tuple[int | None, int] | None = None
    straddles: int = 0
    first_seat: int | None = None
    missed_blinds: Mapping[int, str] | None = None

    def record(self) -> dict[str, Any]:
        record = {"button": self.button,
                  "blind_seats": list(self.blind_seats) if self.blind_seats else None,
                  "straddles": self.straddles, "first_seat": self.first_seat}
        if self.missed_blinds:
            # Only when given, so hands without them record what they always did.
            record["missed_blinds"] = {str(seat): str(missed) for seat, missed
                                       in sorted(self.missed_blinds.items())}
        return record



class _HandCommand(BaseCommand[Any, HandResult]):
    """A write to a hand: answers where the hand stands, and tells who listens.

    A settling append is announced after it commits, and again when a
    client repeats the request under its key (casino/poker/signals.py).
    """

    source = SOURCE
    rejected: str | None = None     # the type of this command's recorded refusal

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> HandResult:
        if self.rejected is not None and events[0].type == self.rejected:
            _raise_recorded_refusal(events[0])
        _announce_settlement(events)
        return _hand_result(events, replayed=replayed)


def start_hand(*, table_id: str, button: int, actor: str,
               blind_seats: tuple[int | None, int] | None = None, straddles: int = 0,
               first_seat: int | None = None,
               missed_blinds: Mapping[int, str] | None = None,
               idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> HandResult:
    """Deal a hand to every seated player with chips; post the forced bets.

    The previous hand must be settled or voided; two players with chips are
    needed (000:L495). Refusals are 409s and write nothing.
    """
    deal = Deal(button, blind_seats, straddles, first_seat, missed_blinds)
    return run(START_HAND, {"table_id": table_id, **deal.record()},
               _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class DealContext:
    """A table about to deal: the table, the deal, the venue and the time."""

    table: TableContext
    deal: Deal
    place: Venue
    at: dt.datetime


class StartHand(_HandCommand):
    name = "poker.start_hand"

    def load(self, arguments: Mapping[str, Any], call: Call) -> DealContext:
        ctx = load_table(arguments["table_id"])
        return DealContext(ctx, _deal_from(arguments), rules.venue(ctx.table.venue),
                           call.moment())

    def decide(self, context: DealContext) -> Decision:
        _, event = _deal(context.table, context.deal, context.place, context.at)
        return Decision([event], context.table.versions)


START_HAND = StartHand()


def _deal_from(record: Mapping[str, Any]) -> Deal:
    """The Deal a request recorded (`Deal.record`)."""
    blinds = record.get("blind_seats")
    missed = record.get("missed_blinds")
    return Deal(record["button"], tuple(blinds) if blinds else None,
                record.get("straddles", 0), record.get("first_seat"),
                {int(seat): value for seat, value in missed.items()} if missed else None)


def _deal(ctx: TableContext, deal: Deal, place: Venue, at: dt.datetime
          ) -> tuple[HandContext, NewEvent]:
    """The next hand of a table and its `hand_started` event (pure; raises PokerError)."""
    table = ctx.table
    _check_seat_number(table, deal.button, field="button")
    if ctx.last_hand_running:
        raise _hand_running(table.id, ctx.last_hand)
    stacks = {n: s.stack_minor for n, s in ctx.seats.items()
              if s.player_id and s.stack_minor > 0}
    if len(stacks) < 2:
        raise PokerError(Code.TOO_FEW_PLAYERS, "a hand needs two players with chips",
                         status=409, players=len(stacks), cite="000:L495")
    number = ctx.last_hand + 1
    started = {
        "hand_id": hand_id_of(table.id, number), "table_id": table.id, "number": number,
        "venue": table.venue, "currency": table.currency, "variant": table.variant,
        "structure": table.structure, "stakes": dict(table.stakes),
        **deal.record(),
        "stacks_minor": {str(n): v for n, v in stacks.items()},
        "players": {str(n): ctx.seats[n].player_id for n in stacks},
    }
    try:
        state = _start_state(started)
    except (engine.IllegalAction, ValueError) as error:
        raise PokerError(getattr(error, "code", Code.INVALID_REQUEST), str(error),
                         status=400) from None
    payload = {**started, **_live(state)}
    event = NewEvent(stream=hand_stream(table.id, number), type=HAND_STARTED,
                     payload=payload, schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=venue_day(place, at))
    return HandContext(table, number, started, state, "running", 0), event


def act(*, hand_id: str, seat: int, kind: str, amount_minor: int | None = None,
        open_pair: bool = False, actor: str, idempotency_key: str | None = None,
        at: dt.datetime | None = None) -> HandResult:
    """Apply one player action; the engine decides whether it is legal.

    An illegal action is appended as `poker.action_rejected` (code, reason,
    limit) and raised as PokerError 422; nothing else changes. When every
    other player has folded, the same append settles the hand without a
    showdown: the uncalled bet goes back, rake and drop are taken, and the
    last player wins the pots, no cards needed (000:L192-195, L1824-1832).
    """
    arguments = {"hand_id": hand_id, "seat": seat, "kind": str(kind),
                 "amount_minor": amount_minor, "open_pair": open_pair}
    return run(ACT, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class ActContext:
    """One action on a running hand: its events, or the engine's refusal."""

    hand: HandContext
    place: Venue
    at: dt.datetime
    request: Mapping[str, Any]
    events: Sequence[NewEvent]
    refusal: PokerError | None


class Act(_HandCommand):
    name = "poker.act"
    rejected = ACTION_REJECTED

    def load(self, arguments: Mapping[str, Any], call: Call) -> ActContext:
        at = call.moment()
        ctx = load_hand(arguments["hand_id"])
        _check_running(ctx)
        place = rules.venue(ctx.table.venue)
        action = Step(arguments["seat"], arguments["kind"], arguments["amount_minor"],
                      arguments["open_pair"])
        request = {"hand_id": ctx.hand_id, "seat": action.seat, "kind": action.kind,
                   "amount_minor": action.amount_minor}
        try:
            _, events = _step(ctx, ctx.state, action, at=at, day=venue_day(place, at))
        except engine.IllegalAction as illegal:
            refusal = PokerError(illegal.code, illegal.message, status=illegal.status,
                                 **illegal.details)
            return ActContext(ctx, place, at, request, (), refusal)
        return ActContext(ctx, place, at, request, events, None)

    def check(self, context: ActContext) -> Rejection | None:
        if context.refusal is None:
            return None
        return _rejection(ACTION_REJECTED, context.hand.stream, context.refusal,
                          context.request, place=context.place, at=context.at)

    def decide(self, context: ActContext) -> Decision:
        return Decision(context.events, {context.hand.stream: context.hand.version})


ACT = Act()


def showdown(*, hand_id: str, board: str | Sequence[str], hands: Mapping[int, Any],
             claimed_awards: Mapping[int, int], actor: str,
             idempotency_key: str | None = None, at: dt.datetime | None = None
             ) -> HandResult:
    """Verify the controller's showdown result with native_eval; settle or dispute.

    The pots are the engine's, from the contributions (never the client's),
    after the uncalled bet went back and the rake and drop were taken.
    `native_eval.showdown` awards them from the cards. When the claimed
    awards (seat -> amount) equal the verified ones the hand settles: the
    rake and drop are posted and the stacks paid. When they differ the hand
    is disputed: `poker.hand_disputed` and a `compliance.alert_raised`
    (showdown_mismatch) hold both results, and no money moves.

    Raises PokerError: the betting is not over (409), the hand is finished
    or disputed (409), cards the evaluator refuses (400; nothing written).
    """
    arguments = {"hand_id": hand_id, **_showdown_record(board, hands, claimed_awards)}
    return run(SHOWDOWN, arguments, _call(actor, idempotency_key, at))


def _showdown_record(board: str | Sequence[str], hands: Mapping[int, Any],
                     claimed_awards: Mapping[int, int]) -> dict[str, Any]:
    """A showdown as a request records it: JSON, seats as strings, no zero awards."""
    return {"board": board if isinstance(board, str) else list(board),
            "hands": {str(seat): (c if isinstance(c, str) else list(c))
                      for seat, c in hands.items()},
            "claimed": {str(int(seat)): int(amount)
                        for seat, amount in claimed_awards.items() if amount}}


def _claimed(record: Mapping[str, int]) -> dict[int, int]:
    return {int(seat): amount for seat, amount in record.items()}


@dataclass(frozen=True, slots=True)
class HandStep:
    """A write to a running hand: the hand, the venue, the time and the request."""

    hand: HandContext
    place: Venue
    at: dt.datetime
    arguments: Mapping[str, Any]

    @property
    def day(self) -> dt.date:
        return venue_day(self.place, self.at)


class ShowDown(_HandCommand):
    name = "poker.showdown"

    def load(self, arguments: Mapping[str, Any], call: Call) -> HandStep:
        ctx = load_hand(arguments["hand_id"])
        _check_running(ctx)
        if ctx.state.phase is not engine.Phase.SHOWDOWN:
            raise PokerError(Code.HAND_NOT_AT_SHOWDOWN,
                             "the betting is not over: no showdown yet", status=409,
                             phase=str(ctx.state.phase))
        return HandStep(ctx, rules.venue(ctx.table.venue), call.moment(), arguments)

    def decide(self, context: HandStep) -> Decision:
        ctx, a = context.hand, context.arguments
        events, _, _ = _showdown_events(ctx, ctx.state, a["board"], a["hands"],
                                        _claimed(a["claimed"]), at=context.at,
                                        day=context.day)
        return Decision(events, {ctx.stream: ctx.version})


SHOWDOWN = ShowDown()


@dataclass(frozen=True, slots=True)
class Showdown:
    board: str | Sequence[str]
    hands: Mapping[int, Any]
    claimed_awards: Mapping[int, int]


def record_hand(*, table_id: str, deal: Deal, steps: Sequence[Step],
                showdown: Showdown | None = None, void_reason: str | None = None,
                actor: str, idempotency_key: str | None = None,
                at: dt.datetime | None = None) -> HandResult:
    """Record a complete hand in one request (an electronic table's history).

    Every step goes through the same engine and the same event builders as
    `start_hand`, `act` and `showdown`, in memory first; only a history that
    is legal to the end is appended, all of it at once. So a history with an
    illegal step writes no hand and moves no money: the refusal alone is
    recorded (`poker.hand_history_rejected` on the table's stream, with the
    step's index, code and reason) and raised as a 422. The history must end
    the hand: every other player folded, or a showdown (verified, so it may
    end disputed), or a void (a misdeal, 000:L1093-1110).
    """
    arguments = {"table_id": table_id, **deal.record(),
                 "steps": [asdict(step) for step in steps],
                 "showdown": (None if showdown is None else _showdown_record(
                     showdown.board, showdown.hands, showdown.claimed_awards)),
                 "void_reason": void_reason}
    return run(RECORD_HAND, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class HistoryContext:
    """A complete history played in memory: its events, or the step refused."""

    table: TableContext
    place: Venue
    at: dt.datetime
    events: Sequence[NewEvent]
    refusal: PokerError | None
    refused: Mapping[str, Any] | None     # the refused step, as recorded


class RecordHand(_HandCommand):
    name = "poker.record_hand"
    rejected = HAND_HISTORY_REJECTED

    def load(self, arguments: Mapping[str, Any], call: Call) -> HistoryContext:
        at = call.moment()
        table_ctx = load_table(arguments["table_id"])
        place = rules.venue(table_ctx.table.venue)
        day = venue_day(place, at)
        ctx, started = _deal(table_ctx, _deal_from(arguments), place, at)
        events, state = [started], ctx.state
        for index, record in enumerate(arguments["steps"]):
            step = Step(**record)
            try:
                # After the betting only a muck may follow (engine.muck).
                if state.is_over and step.kind != MUCK:
                    raise engine.IllegalAction(engine.BettingErrorCode.HAND_OVER,
                                               "The hand is already over.")
                state, step_events = _step(ctx, state, step, at=at, day=day)
            except engine.IllegalAction as illegal:
                refusal = PokerError(illegal.code, f"step {index}: {illegal.message}",
                                     status=illegal.status, step=index, **illegal.details)
                refused = {"table_id": table_ctx.table.id, "step": index, "seat": step.seat,
                           "kind": step.kind, "amount_minor": step.amount_minor}
                return HistoryContext(table_ctx, place, at, (), refusal, refused)
            events.extend(step_events)
        shown = arguments["showdown"]
        events.extend(_history_end(
            ctx, state, None if shown is None else Showdown(
                shown["board"], shown["hands"], _claimed(shown["claimed"])),
            arguments["void_reason"], at=at, day=day))
        return HistoryContext(table_ctx, place, at, events, None, None)

    def check(self, context: HistoryContext) -> Rejection | None:
        if context.refusal is None:
            return None
        return _rejection(HAND_HISTORY_REJECTED, table_stream(context.table.table.id),
                          context.refusal, context.refused, place=context.place,
                          at=context.at)

    def decide(self, context: HistoryContext) -> Decision:
        return Decision(context.events, context.table.versions)


RECORD_HAND = RecordHand()


def _history_end(ctx: HandContext, state: engine.HandState, showdown: Showdown | None,
                 void_reason: str | None, *, at: dt.datetime, day: dt.date) -> list[NewEvent]:
    """The events that close a recorded history, or a 400 if it does not end."""
    if void_reason is not None:
        if state.phase is engine.Phase.COMPLETE:
            raise PokerError(Code.INVALID_REQUEST, "a hand that ended cannot be voided",
                             status=400)
        return [_voided_event(ctx, void_reason, at=at, day=day)]
    if state.phase is engine.Phase.COMPLETE:
        if showdown is not None:
            raise PokerError(Code.INVALID_REQUEST, "the hand ended without a showdown:"
                             " every other player folded or mucked", status=400)
        return []
    if state.phase is not engine.Phase.SHOWDOWN or showdown is None:
        raise PokerError(Code.INCOMPLETE_HISTORY,
                         "the history must end the hand: the betting is not over"
                         if state.phase is not engine.Phase.SHOWDOWN
                         else "the betting is over: give the showdown",
                         status=400, phase=str(state.phase), to_act=state.to_act)
    claimed = {int(seat): int(amount) for seat, amount in showdown.claimed_awards.items()
               if amount}
    events, _, _ = _showdown_events(ctx, state, showdown.board, showdown.hands, claimed,
                                    at=at, day=day)
    return events



def void_hand(*, hand_id: str, reason: str, actor: str,
              idempotency_key: str | None = None,
              at: dt.datetime | None = None) -> HandResult:
    """Void a running hand: every bet returned, stacks as at its start.

    No posting: the chips never left the table account. A settled or voided
    hand cannot be voided (409 `poker.hand_finished`), nor a disputed one
    (409 `poker.hand_disputed`: an officer decides it, `decide_dispute`).
    """
    return run(VOID_HAND, {"hand_id": hand_id, "reason": reason},
               _call(actor, idempotency_key, at))


class VoidHand(_HandCommand):
    name = "poker.void_hand"

    def load(self, arguments: Mapping[str, Any], call: Call) -> HandStep:
        reason = arguments["reason"]
        if not reason or not reason.strip():
            raise PokerError(Code.INVALID_REQUEST, "give the reason for voiding the hand",
                             status=400, field="reason")
        ctx = load_hand(arguments["hand_id"])
        _check_running(ctx)
        return HandStep(ctx, rules.venue(ctx.table.venue), call.moment(), arguments)

    def decide(self, context: HandStep) -> Decision:
        ctx = context.hand
        event = _voided_event(ctx, context.arguments["reason"], at=context.at,
                              day=context.day)
        return Decision([event], {ctx.stream: ctx.version})


VOID_HAND = VoidHand()


def _voided_event(ctx: HandContext, reason: str, *, at: dt.datetime,
                  day: dt.date) -> NewEvent:
    """Every bet returned: the stacks as at the start (no posting: the chips
    never left the table account)."""
    payload = {"hand_id": ctx.hand_id, "table_id": ctx.table.id, "reason": reason,
               "stacks_minor_after": dict(ctx.started["stacks_minor"]), "pot_minor": 0}
    return NewEvent(stream=ctx.stream, type=HAND_VOIDED, payload=payload,
                    schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day)


def decide_dispute(*, hand_id: str, decision: str, note: str, actor: str,
                   idempotency_key: str | None = None,
                   at: dt.datetime | None = None) -> HandResult:
    """Record a compliance officer's decision on a disputed hand and carry it out.

    `settle_verified` settles the hand with the awards `native_eval`
    verified at the showdown, with the same postings as any settlement;
    `void` voids it (stacks back to the start of the hand). One append holds
    `poker.dispute_decided` (who, why, both results) and the settlement or
    void. Raises PokerError: a bad decision or an empty note (400), an actor
    who is not a compliance officer (403, nothing written), a hand that is
    not disputed (409 `poker.hand_not_disputed`) or already decided (409
    `poker.hand_finished`).
    """
    return run(DECIDE_DISPUTE, {"hand_id": hand_id, "decision": decision, "note": note},
               _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class DisputeContext:
    """A disputed hand, its recorded dispute and the officer's decision."""

    hand: HandContext
    place: Venue
    at: dt.datetime
    decision: str
    note: str
    actor: str
    disputed: Mapping[str, Any]


class DecideDispute(_HandCommand):
    name = "poker.decide_dispute"

    def load(self, arguments: Mapping[str, Any], call: Call) -> DisputeContext:
        decision, note = arguments["decision"], arguments["note"]
        if decision not in DECISIONS:
            raise PokerError(Code.INVALID_REQUEST,
                             f"decision must be one of {', '.join(DECISIONS)}", status=400,
                             field="decision")
        if not note or not note.strip():
            raise PokerError(Code.INVALID_REQUEST, "give the reason for the decision",
                             status=400, field="note")
        user = get_user_model().objects.filter(username=call.actor).first()
        if not has_role(user, Role.COMPLIANCE_OFFICER):
            raise PokerError(Code.NOT_COMPLIANCE_OFFICER,
                             "only a compliance officer may decide a disputed hand",
                             status=403, actor=call.actor)
        ctx = load_hand(arguments["hand_id"])
        if ctx.status in ("settled", "voided"):
            raise _finished(ctx)
        if ctx.status != "disputed":
            raise PokerError(Code.HAND_NOT_DISPUTED,
                             f"hand {ctx.hand_id} is not disputed: nothing to decide",
                             status=409, hand_id=ctx.hand_id, state=ctx.status)
        disputed = (Event.objects.filter(stream=ctx.stream, type=HAND_DISPUTED)
                    .values_list("payload", flat=True).get())
        return DisputeContext(ctx, rules.venue(ctx.table.venue), call.moment(), decision,
                              note, call.actor, disputed)

    def decide(self, context: DisputeContext) -> Decision:
        ctx, disputed, at = context.hand, context.disputed, context.at
        day = venue_day(context.place, at)
        decided_payload = {
            "hand_id": ctx.hand_id, "table_id": ctx.table.id, "decision": context.decision,
            "note": context.note, "decided_by": context.actor,
            "awards_verified": disputed["awards_verified"],
            "awards_claimed": disputed["awards_claimed"],
        }
        events = [NewEvent(stream=ctx.stream, type=DISPUTE_DECIDED, payload=decided_payload,
                           schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day)]
        if context.decision == "settle_verified":
            verified = {int(k): v for k, v in disputed["awards_verified"].items()}
            claimed = {int(k): v for k, v in disputed["awards_claimed"].items()}
            events.append(_settled_event(ctx, ctx.state, _decide_settlement(ctx, ctx.state),
                                         verified, claimed=claimed, board=disputed["board"],
                                         hands=disputed["hands"], at=at, day=day))
        else:
            events.append(_voided_event(ctx, f"compliance decision: {context.note}", at=at,
                                        day=day))
        return Decision(events, {ctx.stream: ctx.version})


DECIDE_DISPUTE = DecideDispute()


def _announce_settlement(events: Sequence[RecordedEvent]) -> None:
    """Tell listeners (the jackpot hit check) that a hand has settled."""
    for event in events:
        if event.type == HAND_SETTLED:
            signals.hand_settled.send(sender=None, hand_id=event.payload["hand_id"],
                                      event=event)


def load_hand(hand_id: str) -> HandContext:
    """Rebuild a hand from its stream: replay its accepted actions through the engine."""
    parsed = parse_hand_id(hand_id)
    table = Table.objects.filter(id=parsed[0]).first() if parsed else None
    if table is None:
        raise PokerError(Code.UNKNOWN_HAND, f"no hand {hand_id!r}", status=404,
                         hand_id=hand_id)
    number = parsed[1]
    stream = hand_stream(table.id, number)
    version = _versions([stream])[stream]
    events = _hand_events(table.id, number)
    if not events:
        raise PokerError(Code.UNKNOWN_HAND, f"no hand {hand_id!r}", status=404,
                         hand_id=hand_id)
    started = events[0].payload
    state = _start_state(started)
    status = "running"
    for event in events[1:]:
        p = event.payload
        if event.type == ACTION_TAKEN:
            state = _advance(state, Step(p["seat"], p["kind"], p["amount_minor"],
                                         p.get("open_pair", False)))
        elif event.type == HAND_SETTLED:
            status = "settled"
        elif event.type == HAND_VOIDED:
            status = "voided"
        elif event.type == HAND_DISPUTED:
            status = "disputed"
    return HandContext(table, number, started, state, status, version)


def _start_state(started: Mapping[str, Any]) -> engine.HandState:
    blinds = started.get("blind_seats")
    missed = {int(n): v for n, v in (started.get("missed_blinds") or {}).items()}
    return engine.start_hand(started["variant"], started["structure"],
                             engine.Stakes(**started["stakes"]),
                             {int(n): v for n, v in started["stacks_minor"].items()},
                             started["button"],
                             blind_seats=tuple(blinds) if blinds else None,
                             straddles=started.get("straddles", 0),
                             first_seat=started.get("first_seat"),
                             missed_blinds=missed or None)


@dataclass(frozen=True, slots=True)
class Step:
    """One entry of a hand's history: a player action, or opening a stud street."""

    seat: int
    kind: str
    amount_minor: int | None = None
    open_pair: bool = False


def _advance(state: engine.HandState, step: Step) -> engine.HandState:
    if step.kind == OPEN_STREET:
        return engine.open_street(state, first_seat=step.seat, open_pair=step.open_pair)
    if step.kind == MUCK:
        return engine.muck(state, step.seat)
    return engine.apply(state, engine.Action(step.seat, step.kind, step.amount_minor))


def _step(ctx: HandContext, state: engine.HandState, step: Step, *, at: dt.datetime,
          day: dt.date) -> tuple[engine.HandState, list[NewEvent]]:
    """Apply one step; return the new state and its events (not yet appended).

    When the step ends the hand without a showdown (everyone else folded,
    or mucked at the showdown), the events include the settlement: the
    uncalled bet goes back, rake and drop are taken, and the last player
    holding cards wins the pots they are in, no cards needed (000:L192-195,
    L1824-1832); a side pot of players who all mucked goes to the last of
    them to muck (`engine.claimants`). Raises engine.IllegalAction.
    """
    state = _advance(state, step)
    payload = {"hand_id": ctx.hand_id, "seat": step.seat, "kind": step.kind,
               "amount_minor": step.amount_minor, "record": asdict(state.log[-1]),
               **_live(state)}
    if step.open_pair:
        payload["open_pair"] = True
    events = [NewEvent(stream=ctx.stream, type=ACTION_TAKEN, payload=payload,
                       schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day)]
    if state.phase is engine.Phase.COMPLETE:
        decided = _decide_settlement(ctx, state)
        awards = engine.award_uncontested(engine.claimants(decided.pots_net,
                                                           state.mucked))
        events.append(_settled_event(ctx, state, decided, awards, claimed=None, board=None,
                                     hands=None, at=at, day=day))
    return state, events


def _showdown_events(ctx: HandContext, state: engine.HandState, board: str | Sequence[str],
                     hands: Mapping[int, Any], claimed: Mapping[int, int], *,
                     at: dt.datetime, day: dt.date) -> tuple[list[NewEvent], Any, Any]:
    """Verify a showdown with native_eval: the settlement, or the dispute and its alert.

    The cards are those of every player still holding cards; a player who
    mucked (`engine.muck`, recorded before the showdown) has a dead hand
    whose cards are not read, and the pots go to the best hands shown
    (000:L245-248, L192-195; `engine.claimants`).

    Returns (events, board as recorded, cards as recorded). Raises
    PokerError 400 for cards the evaluator refuses or a wrong set of hands.
    """
    decided = _decide_settlement(ctx, state)
    pots = engine.claimants(decided.pots_net, state.mucked)
    contested = [pot for pot in pots if len(pot.eligible_seats) > 1]
    must_show = {seat for pot in contested for seat in pot.eligible_seats}
    shown = {int(seat): cards for seat, cards in hands.items()}
    if set(shown) & set(state.mucked):
        raise PokerError(Code.INVALID_SHOWDOWN,
                         "a mucked hand is dead: its cards are not read", status=400,
                         mucked=list(state.mucked), seats_given=sorted(shown),
                         cite="000:L245-248")
    if not must_show <= set(shown) <= set(state.holding_seats):
        raise PokerError(Code.INVALID_SHOWDOWN,
                         "give the cards of every player still holding cards, and only"
                         " theirs (a player who does not show mucks)", status=400,
                         holding_seats=list(state.holding_seats),
                         seats_given=sorted(shown), cite="000:L192-195")
    awarded = engine.award_uncontested([p for p in pots if len(p.eligible_seats) == 1])
    if contested:
        try:
            verified_result = native_eval.showdown(
                state.variant, board, shown,
                [(pot.amount_minor, pot.eligible_seats) for pot in contested],
                state.button)
        except ValueError as error:
            raise PokerError(Code.INVALID_SHOWDOWN, str(error), status=400) from None
        for seat, amount in verified_result.awards.items():
            awarded[seat] = awarded.get(seat, 0) + amount
    verified = {seat: amount for seat, amount in sorted(awarded.items()) if amount}
    board_record = board if isinstance(board, str) else list(board)
    cards_record = {str(seat): (c if isinstance(c, str) else list(c))
                    for seat, c in shown.items()}
    if claimed == verified:
        events = [_settled_event(ctx, state, decided, verified, claimed=claimed,
                                 board=board_record, hands=cards_record, at=at, day=day)]
    else:
        events = _disputed_events(ctx, state, decided, verified, claimed, board_record,
                                  cards_record, at=at, day=day)
    return events, board_record, cards_record


def _live(state: engine.HandState) -> dict[str, Any]:
    """What an event records of the engine state after it (for the projection)."""
    return {"phase": str(state.phase), "to_act": state.to_act, "pot_minor": state.pot_minor,
            "street": state.street.name,
            "stacks_minor_live": {str(p.seat): p.stack_minor for p in state.players}}


@dataclass(frozen=True, slots=True)
class Decided:
    """A finished hand's money: returned bet, pots, takes and the pots to award."""

    settlement: engine.Settlement
    rake: engine.RakeResult
    drop: engine.DropResult
    pots_net: tuple[engine.Pot, ...]
    winner: int | None


def _decide_settlement(ctx: HandContext, state: engine.HandState) -> Decided:
    """Return the uncalled bet, the pots, rake and drop of a finished hand (pure)."""
    settlement = engine.settle_hand(state)
    rake_rule = _rule_from(ctx.table.rake)
    rake = engine.rake_for(rake_rule, settlement.pots, reached_flop=state.reached_flop,
                           players_dealt=len(state.players))
    if ctx.table.drop:
        drop = engine.drop_for(_rule_from(ctx.table.drop), settlement.pots,
                               players_dealt=len(state.players),
                               betting_rounds_reached=state.betting_rounds_reached, rake=rake)
    else:
        zero = tuple(0 for _ in settlement.pots)
        drop = engine.DropResult(zero, 0, "no_jackpot", "")
    pots_net = engine.net_pots(settlement.pots, rake.per_pot_minor, drop.per_pot_minor)
    return Decided(settlement, rake, drop, pots_net, state.winner_without_showdown)


def _pots(pots: Sequence[engine.Pot]) -> list[dict[str, Any]]:
    return [{"amount_minor": p.amount_minor, "eligible_seats": list(p.eligible_seats)}
            for p in pots]


def _settled_event(ctx: HandContext, state: engine.HandState, decided: Decided,
                   awards: Mapping[int, int], *, claimed: Mapping[int, int] | None,
                   board: Any, hands: Any, at: dt.datetime, day: dt.date) -> NewEvent:
    """The settlement: stacks paid, rake to the house, drop to the jackpot."""
    stacks = {p.seat: p.stack_minor for p in state.players}
    for seat, amount in decided.settlement.returned_minor:
        stacks[seat] += amount
    for seat, amount in awards.items():
        stacks[seat] += amount
    start_total = sum(ctx.started["stacks_minor"].values())
    taken = decided.rake.total_minor + decided.drop.total_minor
    if sum(stacks.values()) + taken != start_total:
        raise InvariantViolation(
            f"hand {ctx.hand_id}: {sum(stacks.values())} in stacks + {taken} taken"
            f" != {start_total} at the start")
    table = ctx.table
    postings = []
    if taken:
        postings.append(Posting(table_stacks(table.id), taken, table.currency))
    if decided.rake.total_minor:
        postings.append(Posting(house_rake(table.venue), -decided.rake.total_minor,
                                table.currency))
    if decided.drop.total_minor:
        postings.append(Posting(table.jackpot, -decided.drop.total_minor, table.currency))
    payload = {
        "hand_id": ctx.hand_id, "table_id": table.id, "showdown": claimed is not None,
        "returned": [list(r) for r in decided.settlement.returned_minor],
        "pots": _pots(decided.settlement.pots),
        "rake": {**asdict(decided.rake), "per_pot_minor": list(decided.rake.per_pot_minor)},
        "drop": {**asdict(decided.drop), "per_pot_minor": list(decided.drop.per_pot_minor)},
        "pots_net": _pots(decided.pots_net),
        "awards_verified": {str(k): v for k, v in awards.items()},
        "awards_claimed": ({str(k): v for k, v in claimed.items()}
                           if claimed is not None else None),
        "board": board, "hands": hands,
        "stacks_minor_after": {str(k): v for k, v in stacks.items()},
        "pot_minor": 0,
    }
    if state.mucked:
        payload["mucked"] = list(state.mucked)
    return NewEvent(stream=ctx.stream, type=HAND_SETTLED, payload=payload,
                    postings=tuple(postings), schema_version=SCHEMA_VERSION,
                    occurred_at=at, gaming_day=day)


def _disputed_events(ctx: HandContext, state: engine.HandState, decided: Decided,
                     verified: Mapping[int, int],
                     claimed: Mapping[int, int], board: Any, hands: Any, *,
                     at: dt.datetime, day: dt.date) -> list[NewEvent]:
    """The dispute and its compliance alert, both results in each (no postings)."""
    verified_record = {str(k): v for k, v in verified.items()}
    claimed_record = {str(k): v for k, v in claimed.items()}
    payload = {"hand_id": ctx.hand_id, "table_id": ctx.table.id,
               "pots_net": _pots(decided.pots_net), "awards_verified": verified_record,
               "awards_claimed": claimed_record, "board": board, "hands": hands,
               "pot_minor": state.pot_minor}
    alert = {
        "kind": AlertKind.SHOWDOWN_MISMATCH.value,
        "summary": (f"hand {ctx.hand_id} at {ctx.table.venue}: the claimed showdown"
                    f" result {claimed_record} differs from the verified {verified_record}"),
        "player_id": "",
        "venue": ctx.table.venue,
        "details": {**payload,
                    "hint": ("The hand is held: compare the cards with the table's"
                             " surveillance, then decide or void the hand.")},
    }
    return [NewEvent(stream=ctx.stream, type=HAND_DISPUTED, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day),
            NewEvent(stream=ctx.stream, type=ALERT_RAISED, payload=alert, occurred_at=at,
                     gaming_day=day)]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _rulebook(place: Venue, at: dt.datetime) -> RulebookVersion:
    return rules.rulebook_in_force(place.rulebook_id, _local_date(place, at))


def _local_date(place: Venue, at: dt.datetime) -> dt.date:
    return at.astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()


def _figures(rulebook: RulebookVersion, on: dt.date) -> dict[str, tuple[Any, str]]:
    """The rulebook's figures in force on a venue-local day: key -> (value, cite)."""
    return {row.figure_key: (row.value, row.cite)
            for row in Figure.objects.filter(rulebook=rulebook)
            if row.effective_from is None or row.effective_from <= on}


def _versions(streams: Sequence[str]) -> dict[str, int]:
    found = dict(Stream.objects.filter(name__in=streams).values_list("name", "version"))
    return {stream: found.get(stream, 0) for stream in streams}


@dataclass(frozen=True, slots=True)
class _StoredEvent:
    type: str
    payload: Mapping[str, Any]


def _hand_events(table_id: str, number: int) -> list[_StoredEvent]:
    rows = (Event.objects.filter(stream=hand_stream(table_id, number))
            .exclude(type__in=(ACTION_REJECTED, ALERT_RAISED)).order_by("version")
            .values_list("type", "payload"))
    return [_StoredEvent(t, p) for t, p in rows]


def _hand_final(events: Sequence[_StoredEvent]) -> bool:
    return any(e.type in (HAND_SETTLED, HAND_VOIDED) for e in events)


def _check_running(ctx: HandContext) -> None:
    if ctx.status in ("settled", "voided"):
        raise _finished(ctx)
    if ctx.status == "disputed":
        raise PokerError(Code.HAND_DISPUTED,
                         f"hand {ctx.hand_id} is disputed: it settles only by a decision,"
                         " or is voided", status=409, hand_id=ctx.hand_id)


def _finished(ctx: HandContext) -> PokerError:
    return PokerError(Code.HAND_FINISHED, f"hand {ctx.hand_id} is {ctx.status}",
                      status=409, hand_id=ctx.hand_id, state=ctx.status)


def _hand_running(table_id: str, number: int) -> PokerError:
    return PokerError(Code.HAND_IN_PROGRESS,
                      f"hand {hand_id_of(table_id, number)} is running: no chips are added"
                      " or removed until it ends", status=409,
                      hand_id=hand_id_of(table_id, number), cite="000:L281")


def _check_means(method: str, field: str) -> None:
    if method not in MEANS:
        raise PokerError(Code.INVALID_REQUEST, f"{field} must be one of {', '.join(MEANS)}",
                         status=400, field=field)


def _check_amount(amount_minor: int) -> None:
    if type(amount_minor) is not int or amount_minor <= 0:
        raise PokerError(Code.INVALID_REQUEST, "amount_minor must be a positive integer",
                         status=400, field="amount")


def _check_seat_number(table: Table, seat: int, field: str = "seat") -> None:
    if type(seat) is not int or not 1 <= seat <= table.seats_max:
        raise PokerError(Code.INVALID_REQUEST,
                         f"{field} must be a seat from 1 to {table.seats_max}", status=400,
                         field=field)


def _means_account(method: str, player_id: str, venue: str) -> str:
    return gaming_account(player_id) if method == "account" else cage_cash(venue)


def _insufficient(account: str, balance: int, amount_minor: int) -> PokerError:
    return PokerError(Code.INSUFFICIENT_FUNDS,
                      f"the gaming account holds {balance}, less than the {amount_minor}"
                      " asked; there is no credit (002:L3033)", account=account,
                      balance_minor=balance, amount_minor=amount_minor, cite="002:L3033")



def _rejection(event_type: str, stream: str, refusal: PokerError,
               request: Mapping[str, Any], *, place: Venue, at: dt.datetime) -> Rejection:
    """A refusal by a poker rule: the event the runner records under the key, and the error."""
    payload = {**request, "code": str(refusal.code), "message": refusal.message,
               "status": refusal.status, "details": _json(refusal.details)}
    event = NewEvent(stream=stream, type=event_type, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=venue_day(place, at))
    return Rejection(event, lambda position: refusal)


def _json(details: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in details.items():
        if isinstance(value, (tuple, set, frozenset)):
            value = list(value)
        out[key] = value
    return out



def _account_terms(code: str, *, venue: Venue, table_id: str, at: dt.datetime | None = None
                   ) -> dict[str, Any]:
    """Return the type, name and constraints an account of poker opens with.

    `at` dates the ceiling of a gaming account opened by a cash-out.
    """
    currency = venue.currency
    if code == table_stacks(table_id):
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Chips on table {table_id}", must_not_go_negative=True)
    if code == house_rake(venue.code):
        return dict(code=code, type=AccountType.REVENUE, currency=currency,
                    name=f"Poker rake at {venue.code}")
    if code == jackpot_pending(venue.code):
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Jackpot drops pending at {venue.code}", must_not_go_negative=True)
    if code == cage_cash(venue.code):
        # The cage's own terms (casino/cage/commands.py): cash has no floor.
        return dict(code=code, type=AccountType.ASSET, currency=currency,
                    name=f"Cage cash at {venue.code}")
    if code.startswith("player/") and code.endswith("/account"):
        # A cash-out to an account the cage never opened: the cage's terms.
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Gaming account of player {code.split('/')[1]}",
                    must_not_go_negative=True,
                    balance_max_minor=account_ceiling(_local_date(venue, at)))
    raise InvariantViolation(f"poker does not open account {code}")


# ---------------------------------------------------------------------------
# Results and replays
# ---------------------------------------------------------------------------


def _table_result(event: RecordedEvent, *, replayed: bool) -> TableResult:
    p = event.payload
    return TableResult(
        table_id=p["table_id"], venue=p["venue"], currency=p["currency"],
        rulebook=p["rulebook"], variant=p["variant"], structure=p["structure"],
        stakes=p["stakes"], seats_max=p["seats_max"], buy_in_minor_min=p["buy_in_minor_min"],
        buy_in_minor_max=p["buy_in_minor_max"], rake=p["rake"], drop=p["drop"],
        jackpot=p["jackpot"], position=event.position, banzai=p.get("banzai", False),
        jackpot_time_fee=p.get("jackpot_time_fee"), replayed=replayed)


def _seat_result(event: RecordedEvent, *, replayed: bool) -> SeatResult:
    p = event.payload
    bought = event.type == PLAYER_BOUGHT_IN
    return SeatResult(
        event_type=event.type, table_id=p["table_id"], seat=p["seat"],
        player_id=p["player_id"], amount_minor=p["amount_minor"],
        method=p["paid_with"] if bought else p["paid_to"],
        stack_minor=p["stack_minor_after"] if bought else 0, position=event.position,
        replayed=replayed)


def _hand_result(events: Sequence[RecordedEvent], *, replayed: bool) -> HandResult:
    """Describe the hand as the last of the written hand events left it."""
    hand_events = [e for e in events if e.type != ALERT_RAISED]
    last = hand_events[-1]
    p = last.payload
    table_id, number = parse_hand_id(p["hand_id"])
    state, phase = {
        HAND_SETTLED: ("settled", "complete"),
        HAND_VOIDED: ("voided", "complete"),
        HAND_DISPUTED: ("disputed", "showdown"),
    }.get(last.type, (None, p.get("phase")))
    if state is None:
        state = {"showdown": "showdown", "complete": "settled"}.get(phase, "betting")
    stacks = p.get("stacks_minor_after") or p.get("stacks_minor_live") or {}
    return HandResult(
        hand_id=p["hand_id"], table_id=table_id, number=number, state=state, phase=phase,
        to_act=p.get("to_act") if last.type in (HAND_STARTED, ACTION_TAKEN) else None,
        pot_minor=p.get("pot_minor", 0),
        stacks_minor={int(k): v for k, v in stacks.items()},
        rake_minor=p["rake"]["total_minor"] if "rake" in p else 0,
        drop_minor=p["drop"]["total_minor"] if "drop" in p else 0,
        awards_verified=_int_keys(p.get("awards_verified")),
        awards_claimed=_int_keys(p.get("awards_claimed")),
        positions=tuple(e.position for e in events), replayed=replayed)


def _int_keys(mapping: Mapping[str, int] | None) -> dict[int, int] | None:
    return None if mapping is None else {int(k): v for k, v in mapping.items()}



def _raise_recorded_refusal(first: RecordedEvent) -> None:
    p = first.payload
    raise PokerError(p["code"], p["message"], status=p["status"], **p["details"])

