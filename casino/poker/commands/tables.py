"""Tables: opening one with the house's rules frozen from the rulebook, and time charges."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import native_eval

from casino.rules import queries as rules
from casino.rules.models import RulebookVersion, Venue
from casino.rules.queries import venue_day
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from ledger import NewEvent, Posting, RecordedEvent

from .. import engine, signals
from ..errors import PokerError, PokerErrorCode as Code
from ..events import (
    SCHEMA_VERSION,
    TABLE_OPENED,
    TABLE_REJECTED,
    TIME_CHARGE_REJECTED,
    TIME_CHARGED,
    house_rake,
    jackpot_pending,
    table_stacks,
    table_stream,
)
from ..models import Seat
from .base import (
    OPENING_STAKES,
    SOURCE,
    OpeningStake,
    TableContext,
    TableResult,
    _account_terms,
    _call,
    _figures,
    _hand_running,
    load_table,
    _local_date,
    _raise_recorded_refusal,
    _rejection,
    _rule_from,
    _rule_record,
    _rulebook,
    _table_result,
    opening_stake_check,
    opening_stake_game,
)


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
               jackpot_fee: str = "per_hand", electronic: bool = False, actor: str,
               idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> TableResult:
    """Open a cash-game table with its stakes, seats, buy-in range and rake rule.

    `banzai`: the online shallow-stack format (001:L219-223): its own rake
    rows, and a maximum buy-in of at most 10 big blinds. `rake` may be a
    time charge instead of a pot rake (`time_charge` with its amount and
    period where the table sets them, 000:L464-465, 002:L287-289;
    `time_rake` in Tallinn, 003:L140), charged by `charge_time`. A Veikkaus
    jackpot table may take its jackpot fee by time (`jackpot_fee` `time_60`
    or `time_15`, 000:L2876-2879) instead of EUR 1 a hand. `electronic`: an
    electronic poker table, a special machine whose opening stake is capped
    by its own Part IV row (002:L3381 at halls and partner premises,
    002:L3443 at the casino).

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
        time_charge_period_minutes=time_charge_period_minutes, jackpot_fee=jackpot_fee,
        # Only when set, so a request made before the flag keeps its fingerprint.
        **({"electronic": True} if electronic else {}))
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
    opening_stake: OpeningStake | None = None
    jackpot_refusal: PokerError | None = None


class OpenTable(BaseCommand[NewTable, TableResult]):
    name = "poker.open_table"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> NewTable:
        a = arguments
        place = rules.venue(a["venue"])
        at = call.moment()
        rulebook = _rulebook(place, at)
        figures = _figures(rulebook, _local_date(place, at))
        jackpot = a["jackpot"]
        # The rulebook's table size first: it is stricter than the engine's.
        seats_allowed = _seats_allowed(figures, jackpot=jackpot, variant=a["variant"])
        if seats_allowed is not None and a["seats_max"] > seats_allowed[0]:
            raise PokerError(Code.TOO_MANY_SEATS,
                             f"{rulebook.key} allows at most {seats_allowed[0]} players at"
                             f" {'a jackpot' if jackpot else 'a'} {a['variant']} table",
                             limit=seats_allowed[0], seats_max=a["seats_max"],
                             cite=seats_allowed[1])
        config = _table_config(**{name: a[name] for name in CONFIG_FIELDS})
        if a["banzai"]:
            _check_banzai(figures, config)
            config["banzai"] = True
        rake_rule, drop_rule = _house_rules(
            rulebook, figures, config, rake=a["rake"], rake_cap_minor=a["rake_cap_minor"],
            rake_percent_basis_points=a["rake_percent_basis_points"], jackpot=jackpot,
            jackpot_drop_minor=a["jackpot_drop_minor"],
            time_charge_minor=a["time_charge_minor"],
            time_charge_period_minutes=a["time_charge_period_minutes"])
        if jackpot and figures.get(JACKPOT_LISTED_VARIANTS_ONLY, (False, ""))[0] \
                and a["variant"] not in JACKPOT_VARIANTS:
            raise PokerError(Code.RAKE_RULE_NOT_OFFERED,
                             f"{a['variant']} has no bad-beat criteria: the jackpot neither"
                             " pays nor is charged there (000:L2910, L2937-2938)",
                             variant=a["variant"], cite="000:L2910, L2937-2938")
        jackpot_time_fee = _jackpot_time_fee(figures, a["jackpot_fee"], jackpot=jackpot)
        if jackpot_time_fee is not None:
            drop_rule = None  # the fee by time replaces the EUR 1 a hand
        jackpot_refusal = None
        if drop_rule is not None or jackpot_time_fee is not None:
            jackpot_refusal = _jackpot_terms_refusal(place, at)
        electronic = bool(a.get("electronic"))
        if electronic:
            config["electronic"] = True
        opening_stake = opening_stake_check(
            venue=place.code, currency=place.currency, at=at,
            game=opening_stake_game(place, at, electronic=electronic),
            forced_bets_minor=[config["stakes"].get(name, 0) for name in OPENING_STAKES])
        return NewTable(place=place, at=at, table_id=f"tbl-{uuid.uuid4().hex[:12]}",
                        rulebook=rulebook.key, config=config, rake_rule=rake_rule,
                        drop_rule=drop_rule, jackpot_time_fee=jackpot_time_fee,
                        opening_stake=opening_stake, jackpot_refusal=jackpot_refusal)

    def check(self, context: NewTable) -> Rejection | None:
        # No drop into a pool that no posted terms could pay (002:L1792,
        # L1808; 003:L141-142): recorded on the venue's stream.
        if context.jackpot_refusal is not None:
            return _rejection(TABLE_REJECTED, f"venue/{context.place.code}",
                              context.jackpot_refusal,
                              {"venue": context.place.code, "jackpot": True},
                              place=context.place, at=context.at)
        # A forced bet over the Part IV cap (002:L3347, L3381, L3405, L3443,
        # L3467).
        if context.opening_stake is None:
            return None
        return context.opening_stake.rejection()

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
        if events[0].type == TABLE_REJECTED:
            _raise_recorded_refusal(events[0])
        return _table_result(events[0], replayed=replayed)


OPEN_TABLE = OpenTable()


def _jackpot_terms_refusal(place: Venue, at: dt.datetime) -> PokerError | None:
    """Why a jackpot drop may not be taken at this venue yet, or None.

    The jackpots app answers `signals.jackpot_drop_terms`: a pool whose
    rulebook leaves the award terms to the venue (the RAY casino, 002:L1792,
    L1808; Tallinn, 003:L141-142) takes no drop before the terms are posted
    (decision jackpots.posted_terms.before_drops).
    """
    for _, reason in signals.jackpot_drop_terms.send(sender=OpenTable, venue=place.code,
                                                     at=at):
        if reason:
            return PokerError(Code.JACKPOT_TERMS_NOT_POSTED, reason, venue=place.code,
                              cite="002:L1792, L1808; 003:L141-142")
    return None


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
                         field="variant")
    try:
        structure = engine.BettingStructure(structure).value
        stakes = engine.Stakes(small_blind_minor=small_blind_minor,
                               big_blind_minor=big_blind_minor, ante_minor=ante_minor,
                               big_blind_ante_minor=big_blind_ante_minor,
                               bring_in_minor=bring_in_minor, small_bet_minor=small_bet_minor,
                               big_bet_minor=big_bet_minor)
    except ValueError as error:
        raise PokerError(Code.INVALID_REQUEST, str(error)) from None
    family = engine.family_of(variant)
    if family is not engine.Family.STUD and big_blind_minor <= 0:
        raise PokerError(Code.INVALID_REQUEST, f"a {family.value} game table needs a big"
                         " blind", field="big_blind")
    if family is engine.Family.STUD and not (bring_in_minor or big_blind_minor):
        raise PokerError(Code.INVALID_REQUEST, "a stud table needs a bring-in or blinds"
                         " (000:L952-954)", field="bring_in")
    if engine.BettingStructure(structure).is_limit and not stakes.small_unit_minor:
        raise PokerError(Code.INVALID_REQUEST, "a limit table needs its betting units",
                         field="small_bet")
    if not 2 <= seats_max <= engine.betting.SEATS_MAX:
        raise PokerError(Code.INVALID_REQUEST,
                         f"seats_max must be 2 to {engine.betting.SEATS_MAX} (000:L495)",
                         field="seats_max")
    if not 0 < buy_in_minor_min <= buy_in_minor_max:
        raise PokerError(Code.INVALID_REQUEST,
                         "the buy-in range needs 0 < minimum <= maximum",
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
                         f" 10 big blinds ({cap})", field="buy_in_max",
                         limit_minor=cap, cite="001:L221")


# The cash-game table sizes by the variants the rulebook names; the first key
# the rulebook holds wins. Tallinn: Hold'em and Crazy Pineapple 9, every other
# game 8 (003:L28-30); RAY: 10 at halls and partner premises (002:L295), 12 at
# the casino (002:L1814); Veikkaus room and online by their own keys.
TALLINN_NINE_SEAT_VARIANTS = frozenset({"holdem", "crazy_pineapple"})


def _seats_allowed(figures: Mapping[str, Any], *, jackpot: bool, variant: str
                   ) -> tuple[int, str] | None:
    """Return the most players at a cash table of a variant, and the line saying so.

    A jackpot table's maximum comes first where the rulebook has one.

    Tournament sizes (003:L23-27) are the tournaments app's; a cash table
    reads the cash rows only.
    """
    tallinn = ("cash.table.max_players.holdem_crazy_pineapple"
               if variant in TALLINN_NINE_SEAT_VARIANTS else "cash.table.max_players.other")
    for key in (("table.players.max_jackpot_table",) if jackpot else ()) + (
            "table.players.max", "table.max_seats", "poker_pvp.table.max_players", tallinn):
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
    """Build the table's rake and jackpot drop from the rulebook's rules, by kind.

    The rulebook names the kind of each rake option it offers
    (`poker.rake_rule.<option>`) and of its jackpot drop
    (`poker.jackpot_drop.kind`); the kind's builder reads the rulebook's
    figures and the table's posted terms. No rulebook is named here: a
    venue offers what its rulebook declares, and anything else is
    `poker.rake_rule_not_offered`.
    """
    values = {key: value for key, (value, _) in figures.items()}
    terms = _PostedTerms(config=config, rake_cap_minor=rake_cap_minor,
                         percent_basis_points=rake_percent_basis_points,
                         drop_minor=jackpot_drop_minor, time_charge_minor=time_charge_minor,
                         time_charge_period_minutes=time_charge_period_minutes)
    try:
        kind = values.get(f"{RAKE_RULE_PREFIX}{rake}")
        builder = RAKE_KINDS.get(kind)
        if builder is None:
            raise ValueError(f"no rake rule {rake!r} under {rulebook.key}")
        rake_rule = builder(values, terms)
        drop = None
        if jackpot:
            drop_builder = DROP_KINDS.get(values.get(JACKPOT_DROP_KIND))
            if drop_builder is None or kind in RAKE_KINDS_WITHOUT_JACKPOT:
                raise ValueError(f"no jackpot drop at a {rake!r} table under {rulebook.key}")
            drop = drop_builder(values, terms)
    except ValueError as error:
        raise PokerError(Code.RAKE_RULE_NOT_OFFERED, str(error), rulebook=rulebook.key,
                         rake=rake, jackpot=jackpot) from None
    return rake_rule, drop


RAKE_RULE_PREFIX = "poker.rake_rule."
JACKPOT_DROP_KIND = "poker.jackpot_drop.kind"
JACKPOT_LISTED_VARIANTS_ONLY = "poker.jackpot_drop.listed_variants_only"


@dataclass(frozen=True, slots=True)
class _PostedTerms:
    """What a table posts when it opens, for the rake and drop builders."""

    config: Mapping[str, Any]
    rake_cap_minor: int | None
    percent_basis_points: int | None
    drop_minor: int | None
    time_charge_minor: int | None
    time_charge_period_minutes: int | None


def _online_rake(values: Mapping[str, Any], terms: _PostedTerms) -> engine.RakeRule:
    game, stake = _online_rake_row(values, terms.config)
    return engine.online_rake(values, game=game, stake=stake)


def _posted_percentage(values: Mapping[str, Any], terms: _PostedTerms) -> engine.RakeRule:
    if not terms.percent_basis_points:
        raise ValueError("a house fee needs its posted percentage")
    return engine.ray_house_fee(values, percent_basis_points=terms.percent_basis_points,
                                cap_minor=terms.rake_cap_minor)


def _online_posted_percentage(values: Mapping[str, Any], terms: _PostedTerms) -> engine.RakeRule:
    if not terms.percent_basis_points:
        raise ValueError("an online rake needs its posted percentage (the game instructions')")
    return engine.ray_online_rake(values, percent_basis_points=terms.percent_basis_points,
                                  cap_minor=terms.rake_cap_minor)


# Each kind a rulebook may declare, and how it is built from the rulebook's
# figures and the table's posted terms (casino/poker/engine/rake.py).
RAKE_KINDS: dict[str, Callable[[Mapping[str, Any], _PostedTerms], engine.RakeRule]] = {
    "room_blocks": lambda values, terms: engine.veikkaus_room_rake(
        values, alternative=False, cap_minor=terms.rake_cap_minor),
    "room_blocks_alternative": lambda values, terms: engine.veikkaus_room_rake(
        values, alternative=True, cap_minor=terms.rake_cap_minor),
    "room_time_charge": lambda values, terms: engine.veikkaus_room_time_charge(
        values, amount_minor=terms.time_charge_minor or 0,
        period_minutes=terms.time_charge_period_minutes or 0),
    "capped_blocks": lambda values, terms: engine.tallinn_rake(values),
    "time_rake": lambda values, terms: engine.tallinn_time_rake(values),
    "posted_percentage": _posted_percentage,
    "posted_time_charge": lambda values, terms: engine.ray_time_charge(
        values, amount_minor=terms.time_charge_minor or 0,
        period_minutes=terms.time_charge_period_minutes or 0),
    "online_table": _online_rake,
    "online_posted_percentage": _online_posted_percentage,
}
# The online rake table's rows are for tables without a jackpot (001:L721-743).
RAKE_KINDS_WITHOUT_JACKPOT = frozenset({"online_table"})
DROP_KINDS: dict[str, Callable[[Mapping[str, Any], _PostedTerms], engine.DropRule]] = {
    "per_hand_bad_beat": lambda values, terms: engine.veikkaus_bad_beat_drop(values),
    "per_pot": lambda values, terms: engine.tallinn_jackpot_drop(values),
    "posted_amount": lambda values, terms: engine.ray_bad_beat_drop(
        values, amount_minor=terms.drop_minor or 0),
}


# The online rake table's games by (variant, structure) (001:L725-739).
ONLINE_RAKE_GAMES = {("holdem", "no_limit"): "nl_holdem", ("omaha", "pot_limit"): "pl_omaha"}


# Banzai is raked by its own rows, Omaha with Hold'em's (decision banzai.omaha_rake).
BANZAI_RAKE_GAMES = {("holdem", "no_limit"): "banzai_holdem",
                     ("omaha", "pot_limit"): "banzai_omaha"}


# The variants the Veikkaus bad-beat jackpot lists (000:L2880-2937); any
# other game at a jackpot table would pay a drop it can never win back.
# Poker's own list, not the jackpots app's: hands emit events and the
# jackpots listen (tests/casino/poker/test_jackpot_decoupling.py holds the
# two lists equal).
JACKPOT_VARIANTS = frozenset({"holdem", "omaha", "omaha_hilo", "omaha5", "omaha5_hilo",
                              "courchevel", "stud", "stud_hilo", "soko"})


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


FEE_CONSENT_FIGURE = "jackpot.bad_beat.time_charge.requires_all_players_consent"


def _figure_in_force(place: Venue, at: dt.datetime, key: str,
                     default: Any = None) -> Any:
    """A figure of the venue's rulebook in force at `at` (cached), or `default`."""
    row = rules.figures_in_force(_rulebook(place, at), _local_date(place, at)).get(key)
    return default if row is None else row.value


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
                             table_id=table.id)
        if ctx.last_hand_running:
            raise _hand_running(table.id, ctx.last_hand)
        seated = {n: s for n, s in ctx.seats.items() if s.player_id}
        if not seated:
            raise PokerError(Code.NO_TIME_CHARGE, "nobody is seated")
        rake = fee = refusal = None
        try:
            rake = engine.time_charge_for(rake_rule, list(seated)) if by_time else None
            fee = engine.time_charge_for(jackpot_fee, list(seated)) if jackpot_fee else None
            missing = sorted({s.player_id for s in seated.values()} - set(consenting_players))
            # 000:L2876: the jackpot fee by time only with every player's
            # consent (figure jackpot.bad_beat.time_charge.requires_all_players_consent,
            # required where the rulebook does not say otherwise).
            fee_consent = jackpot_fee is not None and _figure_in_force(
                place, at, FEE_CONSENT_FIGURE, True) is not False
            rake_consent = by_time and rake_rule.players_max is not None
            if missing and (fee_consent or rake_consent):
                refusal = PokerError(
                    Code.TIME_CHARGE_CONSENT_MISSING,
                    "every player at the table must agree to the time charge",
                    missing=missing,
                    cite=jackpot_fee.cite if fee_consent else rake_rule.cite)
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
                                 seat=seat)
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
