"""Write side of tournaments: announce, register, rebuy, eliminate, pay out.

Every write is a command run by casino.runner (idempotency, retries with
fresh state, refusals recorded under the key, ledger refusals translated).
Each command's `load`, in order: read the tournament stream's version; read
the engine's state from the tournament's snapshot row (one statement, no
replay: models.TournamentSnapshot, replay.load_state); for a purchase, run the
compliance checks (identity, age, self-exclusion and the venue's tournament
entry-fee cap: game `poker_pvp_tournament`, bet unit `entry_fee`,
002:L3349, L3405, L3485; decision `tournaments.entry_cap.amount`); let the
engine apply the request to the state; read the gaming accounts a payout
credits. `check` returns the compliance refusal, or the refusal by a
tournament rule (recorded as `tournaments.request_rejected`); `decide`
turns the engine's transfers into postings and one event, expecting the
version read.

Postings, debit positive: a transfer of A from role X to role Y is
`X +A, Y -A` (casino/tournaments/events.py lists the accounts). A purchase
thus debits the player's gaming account and credits the prize pool, the
bounties and the house's fees; a payout debits the pool and credits the
gaming account. The ledger refuses a purchase above the account's balance
(`tournaments.insufficient_funds`, nothing written). A payout (prize, bounty, refund)
is credited up to the gaming account's ceiling and the rest to
`bank/<venue>/payouts_due`, with an `overflow` block in the payload
(decision online.account.balance_overflow, 002:L3068-3070;
casino/wallet.py). The append also expects the version of each
credited player's stream, so a deposit racing the split makes it stale and
the runner splits again from a new read.

Rulebook rows read when a tournament is announced (frozen into its
`tournament_announced` event, so a later version changes later tournaments
only): the payout table `tournaments.payout.<key>`, the minimum entrants
`tournament.min_entrants` (003:L163), the re-entry step
`tournament.re_entry.paid_field_step` (000:L3302-3304), the progressive
bounty share `tournament.bounty.progressive.onto_own_basis_points`
(000:L3374-3377), and the same-hand elimination rules
`tournament.elimination.*` / `elimination.*` (000:L3391-3398, 004:L77-78,
001:L346-348), when prizes are paid `tournament.prizes.paid_at` (001:L366),
and the cancellation shares `tournament.cancel.*` and
`hexapro.cancel.share_per_remaining_player` (001:L425-441; engine
CancellationTerms.from_figures).
"""

from __future__ import annotations

import datetime as dt
import random
import uuid
import zoneinfo
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from django.db.models import Subquery
from django_fsm import can_proceed

from casino.wallet import account_ceiling
from casino.wallet import PlayerCredit, overflow_blocks, split_credit
from casino.accounts import OVERFLOW_KEY, gaming_account, payouts_due
from casino.compliance.checks import AttemptContext, Verdict, run_checks
from casino.compliance.pipeline import (
    Attempt,
    load_context,
    rejection,
    venue_day,
    verdict_record,
)
from casino.players.events import player_stream
from casino.rules import queries as rules
from casino.rules.models import RulebookVersion
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from ledger import InvariantViolation, NewEvent, Posting, RecordedEvent
from ledger import BalanceMaxExceeded, InsufficientFunds, LedgerError
from ledger.read import Account, AccountType, Stream
from ledger.read import stream_version

from . import events as ev
from .engine import EngineError, PayoutStructure, Price, Transfer
from .engine.cancellation import REFUND_ITEM, CancellationTerms
from .engine import Tournament as State
from .errors import TournamentError, TournamentErrorCode as Code
from .models import Tournament, TournamentSnapshot
from .replay import apply as apply_event, config_from, load_state

SOURCE = "casino.tournaments"
GAME = "poker_pvp_tournament"
BET_UNIT = "entry_fee"
PURCHASES = {ev.PLAYER_ENTERED, ev.REBUY_PURCHASED, ev.ADD_ON_PURCHASED}
# The rulebook's cancellation figures announce freezes into a config.
CANCELLATION_FIGURES = (*CancellationTerms.FIGURES.values(), REFUND_ITEM)
# The model's transition each event needs; the command asks django-fsm first.
TRANSITIONS = {
    ev.REGISTRATION_OPENED: "open_registration",
    ev.STARTED: "start",
    ev.PRIZE_POOL_FIXED: "fix_pool",
    ev.FINISHED: "finish",
}


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """Where a tournament stands after a command (or its replay)."""

    tournament_id: str
    event_type: str
    positions: tuple[int, ...]
    state: str
    pool_minor: int
    fees_minor: int
    bounties_minor: int
    transfers: tuple[Mapping[str, Any], ...]
    replayed: bool = False


def _call(actor: str, idempotency_key: str | None, at: dt.datetime | None) -> Call:
    return Call(actor=actor, key=idempotency_key, at=at, source=SOURCE)


# ---------------------------------------------------------------------------
# Announcing
# ---------------------------------------------------------------------------


def announce(*, venue: str, name: str, format: str, entry: Mapping[str, int],
             rebuy: Mapping[str, int] | None = None, add_on: Mapping[str, int] | None = None,
             re_entry: bool = False, entries_per_player_max: int = 1,
             rebuys_per_player_max: int | None = None,
             re_entries_per_paid_field_step: int | None = None,
             progressive_basis_points: int | None = None, payout_table: str = "standard",
             min_entrants: int | None = None, seats_per_table: int = 9,
             satellite_seat_minor: int | None = None,
             target_tournament_id: str | None = None, tournament_id: str | None = None,
             guaranteed_pool_minor: int = 0, reserved_basis_points: int = 0,
             reserve_added_minor: int = 0,
             special_prizes: Sequence[Mapping[str, Any]] | None = None, actor: str,
             idempotency_key: str | None = None,
             at: dt.datetime | None = None) -> TournamentResult:
    """Announce a tournament with its format, prices, windows and payout table.

    `guaranteed_pool_minor`: the pool the house guarantees, topped up from
    house/<venue>/tournament_prizes when the pool is fixed (001:L580; 002:L323
    "a fixed amount"); with an entry that costs nothing it is a freeroll
    (001:L330-332, L602). `reserved_basis_points`: the share of the pool kept
    for a later tournament when the pool is fixed; `reserve_added_minor`: what
    this tournament's pool takes from that reserve (000:L3386-3388).
    `special_prizes`: [{"name", "basis_points", "description"}], prizes the
    structure announces with their share of the pool (000:L3410-3413: "the
    first player out", "the first to reach a count"), offered where the
    rulebook's `tournament.special_prizes.offered` says so
    (`tournaments.special_prizes_not_offered`, 422, otherwise); paid by
    `award_special_prize`.

    Missing values come from the venue's rulebook in force (see the module
    docstring) and are frozen into the event. A satellite may name its
    `target_tournament_id` (the pre-announced tournament its seats enter,
    003:L145, 000:L3344-3345): the target must exist, be registering, use
    the same currency, and its buy-in including the fee (and bounty) is the
    seat's value (`satellite_seat_minor` defaults to it). Raises
    TournamentError (invalid configuration: 400; no such payout table: 422;
    a bad target: 422, a target not registering: 409, neither recorded,
    like every refused announcement: no stream exists yet), RulesError
    (unknown venue: 404).
    """
    arguments = {"venue": venue, "name": name, "format": format, "entry": dict(entry),
                 "rebuy": rebuy and dict(rebuy), "add_on": add_on and dict(add_on),
                 "re_entry": re_entry, "entries_per_player_max": entries_per_player_max,
                 "rebuys_per_player_max": rebuys_per_player_max,
                 "re_entries_per_paid_field_step": re_entries_per_paid_field_step,
                 "progressive_basis_points": progressive_basis_points,
                 "payout_table": payout_table, "min_entrants": min_entrants,
                 "seats_per_table": seats_per_table,
                 "satellite_seat_minor": satellite_seat_minor,
                 "target_tournament_id": target_tournament_id,
                 "tournament_id": tournament_id}
    # Only when set: earlier requests keep their fingerprint.
    for name, value in (("guaranteed_pool_minor", guaranteed_pool_minor),
                        ("reserved_basis_points", reserved_basis_points),
                        ("reserve_added_minor", reserve_added_minor)):
        if value:
            arguments[name] = value
    if special_prizes:
        arguments["special_prizes"] = [dict(prize) for prize in special_prizes]
    return run(ANNOUNCE, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class AnnounceContext:
    event: NewEvent


class AnnounceCommand(BaseCommand[AnnounceContext, TournamentResult]):
    """Announce: validate the configuration and freeze the rulebook's rows into it.

    Every refusal raises before anything is written (there is no stream to
    record it on yet).
    """

    name = "tournaments.announce"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> AnnounceContext:
        a = arguments
        tournament_id = a["tournament_id"] or uuid.uuid4().hex[:12]
        stream = ev.tournament_stream(tournament_id)
        if stream_version(stream):
            raise TournamentError(Code.TOURNAMENT_EXISTS, f"tournament {tournament_id} exists",
                                  tournament_id=tournament_id)
        place = rules.venue(a["venue"])
        at = call.moment()
        local_day = at.astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()
        rulebook = rules.rulebook_in_force(place.rulebook_id, local_day)
        table = rules.rule_table(rulebook, f"tournaments.payout.{a['payout_table']}")
        if table is None:
            raise TournamentError(Code.UNKNOWN_PAYOUT_TABLE,
                                  f"{rulebook.key} has no payout table {a['payout_table']!r}",
                                  payout_table=a["payout_table"], rulebook=rulebook.key)

        def figure(key: str, default=None):
            row = rules.figure(rulebook, key, on=local_day)
            return row.value if row is not None else default

        format = a["format"]
        _check_supported_rules(rulebook, figure)
        entries_max = figure("tournament.entries_per_player")
        if entries_max is not None and not a["re_entry"] \
                and a["entries_per_player_max"] > entries_max:
            raise TournamentError(Code.INVALID_REQUEST,
                                  f"{rulebook.key} allows {entries_max} entry per player"
                                  " unless the tournament offers re-entry (001:L306)",
                                  entries_per_player_max=a["entries_per_player_max"],
                                  limit=entries_max, cite="001:L306")
        _check_published_fee_split(rulebook, figure, format=format, entry=a["entry"],
                                   seats_per_table=a["seats_per_table"])
        special_prizes = _special_prizes(a.get("special_prizes"), rulebook, figure)
        target_tournament_id = a["target_tournament_id"]
        satellite_seat_minor = a["satellite_seat_minor"]
        if target_tournament_id is not None:
            satellite_seat_minor = _check_satellite_target(
                target_tournament_id, format=format, currency=place.currency,
                seat_minor=satellite_seat_minor)
        progressive_basis_points = a["progressive_basis_points"]
        if progressive_basis_points is None:
            progressive_basis_points = (
                figure("tournament.bounty.progressive.onto_own_basis_points", 5000)
                if format == "progressive_bounty" else 0)
        re_entries_per_paid_field_step = a["re_entries_per_paid_field_step"]
        if re_entries_per_paid_field_step is None and a["re_entry"]:
            re_entries_per_paid_field_step = figure("tournament.re_entry.paid_field_step")
        # How an interruption shares the pool (001:L417-444): the rulebook's
        # figures, frozen into the config; a rulebook without them uses the
        # online policy (decision tournaments.cancel.policy).
        cancellation = {key: row.value for key in CANCELLATION_FIGURES
                        if (row := rules.figure(rulebook, key, on=local_day)) is not None}
        different = figure("tournament.elimination.different_tables",
                           figure("elimination.different_tables_same_hand", "tie"))
        equal = figure("tournament.elimination.equal_stacks", "tie")
        config = {
            "format": format, "entry": a["entry"], "rebuy": a["rebuy"],
            "add_on": a["add_on"], "re_entry": a["re_entry"],
            "entries_per_player_max": a["entries_per_player_max"],
            "rebuys_per_player_max": a["rebuys_per_player_max"],
            "re_entries_per_paid_field_step": re_entries_per_paid_field_step,
            "progressive_basis_points": progressive_basis_points,
            "min_entrants": a["min_entrants"] or figure("tournament.min_entrants", 2),
            "seats_per_table": a["seats_per_table"],
            # Every table has at least this many players at the start (000:L3240).
            "min_players_per_table": figure("tournament.start.min_players_per_table",
                                            0),
            "elimination": {"different_tables": different,
                            "equal_stacks": "tie_break" if equal == "tie_break" else "tie"},
            "satellite_seat_minor": satellite_seat_minor,
            "target_tournament_id": target_tournament_id,
            # Split pots share bounty tokens whole (000:L3361-3364).
            "bounty_split": "tokens",
            # Online, winnings are credited as each player busts (001:L366).
            "prizes_paid_at": figure("tournament.prizes.paid_at", "end"),
            "cancellation": cancellation or None,
            # A seat that cannot be used: a ticket, or cash in Tallinn (003:L175;
            # decision tournaments.satellite.ticket, 000:L3344-3345, 001:L312).
            "seat_not_used": (seat_not_used(figure) if format == "satellite" else None),
            "payout": {"key": table.table_key, "rows": table.rows, "cite": table.cite},
            # Withdrawing before the start (001:L310-312; 003:L174 with the
            # manager's approval); not offered where the rulebook is silent.
            "unregistration": figure("tournament.unregister.policy", "not_offered"),
            # The house's guarantee (001:L580), a freeroll's whole pool (001:L602).
            "guaranteed_pool_minor": a.get("guaranteed_pool_minor", 0),
            # A share kept for a later tournament, money taken from the
            # reserve (000:L3386-3388).
            "reserved_basis_points": a.get("reserved_basis_points", 0),
            "reserve_added_minor": a.get("reserve_added_minor", 0),
            # HexaPro's seats (001:L458); whether deals are allowed (004:L19).
            "hexapro_players": figure("hexapro.players", 3),
            "deals_allowed": figure("deals.allowed", True),
        }
        if special_prizes:
            # Announced in the structure with their shares (000:L3410-3413).
            config["special_prizes"] = special_prizes
        try:
            config_from(config)
        except (EngineError, KeyError, TypeError, ValueError) as error:
            message = getattr(error, "message", str(error))
            raise TournamentError(Code.INVALID_REQUEST, message,
                                  **getattr(error, "details", {})) from None
        payload = {"tournament_id": tournament_id, "venue": place.code,
                   "currency": place.currency, "rulebook": rulebook.key, "name": a["name"],
                   "config": config}
        return AnnounceContext(NewEvent(
            stream=stream, type=ev.ANNOUNCED, payload=payload,
            schema_version=ev.SCHEMA_VERSION, occurred_at=at,
            gaming_day=venue_day(place, at)))

    def decide(self, context: AnnounceContext) -> Decision:
        return Decision([context.event], {context.event.stream: 0})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TournamentResult:
        return _result(events[0].payload["tournament_id"], events, replayed=replayed)


ANNOUNCE = AnnounceCommand()


FEE_PREFIX = "tournament.fee."

# Rules the engine applies as the seeds state them: a rulebook whose figure
# says otherwise is refused at announce rather than silently not followed.
# key -> (the value the engine applies, its citation).
SUPPORTED_RULES: dict[str, tuple[Any, str]] = {
    # A disqualified player wins nothing and the money stays in the pool
    # (004:L177; 000:L3577-3578).
    "disqualification.prize_allowed": (False, "004:L177"),
    "disqualification.entry_stays_in_pool": (True, "004:L177"),
    "tournament.disqualified.fees_stay_in_pool": (True, "000:L3577-3578"),
    # An excluded player keeps the place held (004:L175).
    "exclusion.keeps_place_prize": (True, "004:L175"),
    # A busted player rebuys before the add-on (000:L3326-3328).
    "tournament.add_on.requires_rebuy_when_busted": (True, "000:L3326-3328"),
    # A player absent at the director's time gets nothing back (003:L170).
    "tournament.no_show.refund": (False, "003:L170"),
    # Out in the same hand at one table: the larger starting stack places
    # higher (004:L78; casino/tournaments/engine/places.py).
    "elimination.same_table_same_hand": ("larger_starting_stack_places_higher", "004:L78"),
}


def _check_supported_rules(rulebook: RulebookVersion, figure) -> None:
    """Refuse to announce under a rulebook whose tournament rules the engine does not apply.

    Each SUPPORTED_RULES figure the rulebook holds must have the value the
    engine applies; a later version that changes one (a disqualified player
    keeping a prize, say) stops announcements until the engine follows it.
    """
    for key, (applied, cite) in SUPPORTED_RULES.items():
        value = figure(key)
        if value is not None and value != applied:
            raise TournamentError(Code.RULE_NOT_APPLIED,
                                  f"{rulebook.key} sets {key} to {value!r}; the tournament"
                                  f" engine applies {applied!r} ({cite})", figure=key,
                                  value=value, applied=applied, cite=cite)


SPECIAL_PRIZES_FIGURE = "tournament.special_prizes.offered"
SPECIAL_PRIZE_FIELDS = frozenset({"name", "basis_points", "description"})


def _special_prizes(prizes: Sequence[Mapping[str, Any]] | None,
                    rulebook: RulebookVersion, figure) -> list[dict[str, Any]]:
    """The special prizes an announcement names, or a refusal (000:L3410-3413).

    Only where the rulebook offers them (figure
    tournament.special_prizes.offered: the Veikkaus poker room's); each a
    name of its own, a share of the pool in basis points and what wins it.
    The engine checks the shares (above 0, with the reserve below 100 %).
    """
    if not prizes:
        return []
    if figure(SPECIAL_PRIZES_FIGURE) is not True:
        raise TournamentError(Code.SPECIAL_PRIZES_NOT_OFFERED,
                              f"{rulebook.key} offers no special prizes from the pool;"
                              " the payout table shares it", rulebook=rulebook.key,
                              figure=SPECIAL_PRIZES_FIGURE)
    found = []
    for prize in prizes:
        if not isinstance(prize, Mapping) or set(prize) - SPECIAL_PRIZE_FIELDS \
                or not {"name", "basis_points"} <= set(prize):
            raise TournamentError(Code.INVALID_REQUEST, "a special prize is {name,"
                                  " basis_points, description}", prize=str(prize))
        found.append({"name": prize["name"], "basis_points": prize["basis_points"],
                      "description": str(prize.get("description", ""))})
    return found


def seat_not_used(figure) -> str:
    """How a satellite seat that cannot be used is paid: "ticket" or "cash".

    The rulebook's tournament.satellite.seat_not_used, else cash where it says
    a ticket won for an entry already paid is paid in cash (Tallinn, 003:L175,
    figure tournament.satellite_ticket_for_paid_entry.paid_in_cash), else a
    ticket (decision tournaments.satellite.ticket).
    """
    if figure("tournament.satellite_ticket_for_paid_entry.paid_in_cash") is True:
        default = "cash"
    else:
        default = "ticket"
    return figure("tournament.satellite.seat_not_used", default)


def fee_table_of(format: str, seats_per_table: int) -> str | None:
    """Which published fee table prices a format (001:L684-717), or None.

    A Sit & Go five-handed or heads-up has its own table; every other
    multi-table format is an MTT; HexaPro draws its pool (001:L480-489) and a
    Sit & Go of another size has no published split (decision
    tournaments.fee.published_split).
    """
    if format == "hexapro":
        return None
    if format == "sit_and_go":
        return {5: "sng_5_handed", 2: "sng_heads_up"}.get(seats_per_table)
    return "mtt"


def _check_published_fee_split(rulebook: RulebookVersion, figure, *, format: str,
                               entry: Mapping[str, int], seats_per_table: int) -> None:
    """Refuse an entry whose split differs from the rulebook's published one.

    001:L680-717: for the usual buy-ins the online room publishes the part
    that goes to the prize pool and the part kept as the fee (EUR 10 MTT:
    9.00 + 1.00). A buy-in with a published split must take it; one without
    (another amount, a freeroll) is the lobby's (001:L322).
    """
    table = fee_table_of(format, seats_per_table)
    if table is None or not isinstance(entry, Mapping):
        return
    prize, fee = entry.get("prize_minor", 0), entry.get("fee_minor", 0)
    bounty = entry.get("bounty_minor", 0)
    total = prize + fee + bounty
    if total <= 0 or total % 100:
        return
    euros = total // 100
    published = (figure(f"{FEE_PREFIX}{table}.eur{euros}.prize_pool_part"),
                 figure(f"{FEE_PREFIX}{table}.eur{euros}.fee_part"))
    if None in published:
        return
    if (prize + bounty, fee) != published:
        cite = rules.figure(rulebook, f"{FEE_PREFIX}{table}.eur{euros}.fee_part").cite
        raise TournamentError(Code.FEE_SPLIT_DIFFERS,
                              f"a EUR {total // 100} {table.replace('_', ' ')} buy-in is"
                              f" split {published[0]} to the prize pool and {published[1]}"
                              f" as the fee ({cite}), not {prize + bounty} and {fee}",
                              prize_pool_part_minor=published[0], fee_part_minor=published[1],
                              cite=cite)


def _check_satellite_target(target_id: str, *, format: str, currency: str,
                            seat_minor: int | None) -> int:
    """The seat's value of a satellite into `target_id`, or a refusal."""
    def refuse(message: str, code: Code = Code.INVALID_SATELLITE_TARGET,
               **details) -> TournamentError:
        return TournamentError(code, message,
                               target_tournament_id=target_id, **details)

    if format != "satellite":
        raise TournamentError(Code.INVALID_REQUEST, "only a satellite names a target"
                              " tournament", format=format)
    target = Tournament.objects.filter(id=target_id).first()
    if target is None:
        raise refuse(f"no tournament {target_id!r} to award seats in")
    if target.state != "registering":
        raise refuse(f"the target tournament is {target.state}, not registering",
                     Code.SATELLITE_TARGET_NOT_REGISTERING,
                     target_state=target.state)
    if target.currency != currency:
        raise refuse("the target tournament is in another currency",
                     currency=currency, target_currency=target.currency)
    value = Price.from_dict(target.config["entry"]).total_minor
    if seat_minor is not None and seat_minor != value:
        raise refuse("the seat's value must equal the target's buy-in including the fee",
                     satellite_seat_minor=seat_minor, target_buy_in_minor=value)
    return value


# ---------------------------------------------------------------------------
# Operations on a tournament
# ---------------------------------------------------------------------------


def open_registration(*, tournament_id: str, actor: str, idempotency_key: str | None = None,
                      at: dt.datetime | None = None) -> TournamentResult:
    """Start taking entries."""
    return _run("open_registration", {"tournament_id": tournament_id}, actor=actor,
                idempotency_key=idempotency_key, at=at)


def register(*, tournament_id: str, player_id: str, kind: str = "entry",
             payment: str = "account", actor: str, idempotency_key: str | None = None,
             at: dt.datetime | None = None) -> TournamentResult:
    """An entry, late entry or re-entry, paid from the gaming account.

    `kind`: entry (registering), late_entry (000:L3288-3290), re_entry
    (000:L3297-3301). `payment` "ticket" pays an entry or late entry from
    the player's own tournament tickets (seats won and not used, used
    personally: 000:L3344-3345, 001:L312). Raises AttemptRejected (a
    compliance rule, recorded), TournamentError (a tournament rule,
    recorded; insufficient funds or tickets, not).
    """
    if payment not in ("account", "ticket"):
        raise TournamentError(Code.INVALID_REQUEST, "payment is account or ticket",
                              payment=payment)
    arguments = {"tournament_id": tournament_id, "player_id": player_id, "kind": kind}
    if payment == "ticket":
        arguments["paid_by"] = f"ticket:{player_id}"
    return _run("register", arguments, actor=actor, idempotency_key=idempotency_key, at=at)


def unregister(*, tournament_id: str, player_id: str, approved_by: str | None = None,
               actor: str, idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> TournamentResult:
    """Withdraw a registration before the start, refunded the way it was paid.

    001:L310-312: the buy-in back to the gaming account, a ticket back as a
    ticket, a satellite seat as a ticket of its value. 003:L174: in Tallinn
    only with the poker manager's approval (`approved_by`, recorded). Where
    the rulebook offers no withdrawal, a recorded refusal
    (tournaments.unregistration_not_offered).
    """
    arguments = {"tournament_id": tournament_id, "player_id": player_id}
    if approved_by is not None:
        arguments["approved_by"] = approved_by
    return _run("unregister", arguments, actor=actor, idempotency_key=idempotency_key, at=at)


def rebuy(*, tournament_id: str, player_id: str, actor: str,
          idempotency_key: str | None = None, at: dt.datetime | None = None
          ) -> TournamentResult:
    """A rebuy at the rebuy price, normally without the fee (000:L3313-3315)."""
    return _run("rebuy", {"tournament_id": tournament_id, "player_id": player_id},
                actor=actor, idempotency_key=idempotency_key, at=at)


def add_on(*, tournament_id: str, player_id: str, actor: str,
           idempotency_key: str | None = None, at: dt.datetime | None = None
           ) -> TournamentResult:
    """The add-on after the last rebuy hand (000:L3326-3330)."""
    return _run("add_on", {"tournament_id": tournament_id, "player_id": player_id},
                actor=actor, idempotency_key=idempotency_key, at=at)


def start(*, tournament_id: str, actor: str, idempotency_key: str | None = None,
          at: dt.datetime | None = None) -> TournamentResult:
    """Start play. With fewer than the minimum entrants the tournament is
    cancelled instead and every entry refunded (003:L163, L173): the answer
    then has state `cancelled`."""
    return _run("start", {"tournament_id": tournament_id}, actor=actor,
                idempotency_key=idempotency_key, at=at)


def fix_prize_pool(*, tournament_id: str, actor: str, idempotency_key: str | None = None,
                   at: dt.datetime | None = None) -> TournamentResult:
    """Close late registration, re-entries, rebuys and add-ons: the payout
    table in money is published (000:L3384-3386, 002:L2997)."""
    return _run("fix_prize_pool", {"tournament_id": tournament_id}, actor=actor,
                idempotency_key=idempotency_key, at=at)


def draw_prize_pool(*, tournament_id: str, multiplier: str | None = None, actor: str,
                    idempotency_key: str | None = None, at: dt.datetime | None = None
                    ) -> TournamentResult:
    """Draw a HexaPro game's prize pool with the published probabilities (001:L480-493).

    The house draws the multiplier (a system random number below 100,000,
    recorded as `ticket`) by the rulebook's `hexapro.probability_per_100000.*`
    (engine.hexapro.draw); the prize is `hexapro.prize.<level>.<multiplier>`
    for the game's buy-in, the split `hexapro.payout.*`. A `multiplier`
    (like "x25") records a draw made by the game client's certified
    generator instead (decision tournaments.hexapro.draw).
    """
    arguments = {"tournament_id": tournament_id}
    if multiplier is not None:
        arguments["multiplier"] = multiplier
    return _run("draw_prize_pool", arguments, actor=actor, idempotency_key=idempotency_key,
                at=at)


def eliminate(*, tournament_id: str, outs: Sequence[Mapping[str, Any]],
              eliminators: Mapping[str, Sequence[str]] | None = None, actor: str,
              idempotency_key: str | None = None, at: dt.datetime | None = None
              ) -> TournamentResult:
    """Record the players out in one hand (000:L3391-3398, 004:L77-78).

    `outs`: [{"player_id", "stack" (chips at the start of the hand),
    "table", "tie_break"}]; `eliminators`: who took each one's chips (the
    bounty goes to them, 000:L3352-3377).
    """
    return _run("eliminate", {
        "tournament_id": tournament_id, "outs": [dict(o) for o in outs],
        "eliminators": {k: list(v) for k, v in (eliminators or {}).items()},
    }, actor=actor, idempotency_key=idempotency_key, at=at)


def disqualify(*, tournament_id: str, player_id: str, reason: str, actor: str,
               idempotency_key: str | None = None, at: dt.datetime | None = None
               ) -> TournamentResult:
    """Disqualify: no prize, money stays in the pool (000:L3577-3578, 004:L177)."""
    return _run("disqualify", {"tournament_id": tournament_id, "player_id": player_id,
                               "reason": reason},
                actor=actor, idempotency_key=idempotency_key, at=at)


def award_special_prize(*, tournament_id: str, prize: str, player_id: str, actor: str,
                        idempotency_key: str | None = None,
                        at: dt.datetime | None = None) -> TournamentResult:
    """Pay a special prize of the structure to its winner (000:L3410-3413).

    The prize's share of the pool was set aside when the pool was fixed; it
    is paid once, to an entrant who is not disqualified, while play runs.
    Refusals are recorded (`tournaments.unknown_special_prize`,
    `tournaments.special_prize_awarded`, ...).
    """
    return _run("award_special_prize", {"tournament_id": tournament_id, "prize": prize,
                                        "player_id": player_id},
                actor=actor, idempotency_key=idempotency_key, at=at)


def exclude(*, tournament_id: str, player_id: str, reason: str, actor: str,
            idempotency_key: str | None = None, at: dt.datetime | None = None
            ) -> TournamentResult:
    """Exclude: the player keeps the place held now (004:L175-176)."""
    return _run("exclude", {"tournament_id": tournament_id, "player_id": player_id,
                            "reason": reason},
                actor=actor, idempotency_key=idempotency_key, at=at)


def record_deal(*, tournament_id: str, amounts_minor: Mapping[str, int],
                consents: Sequence[str], pay_by_table: bool = False, actor: str,
                idempotency_key: str | None = None, at: dt.datetime | None = None
                ) -> TournamentResult:
    """A deal agreed by every remaining player (004:L19, 000:L3401-3403)."""
    return _run("record_deal", {
        "tournament_id": tournament_id, "amounts_minor": dict(amounts_minor),
        "consents": list(consents), "pay_by_table": pay_by_table,
    }, actor=actor, idempotency_key=idempotency_key, at=at)


def finish(*, tournament_id: str, final_stacks: Mapping[str, int] | None = None,
           actor: str, idempotency_key: str | None = None,
           at: dt.datetime | None = None) -> TournamentResult:
    """Pay the prizes (and the bounties left) from the pool: one event."""
    return _run("finish", {"tournament_id": tournament_id,
                           "final_stacks": dict(final_stacks or {})},
                actor=actor, idempotency_key=idempotency_key, at=at)


def cancel(*, tournament_id: str, stacks: Mapping[str, int] | None = None, actor: str,
           idempotency_key: str | None = None, at: dt.datetime | None = None
           ) -> TournamentResult:
    """Cancel: refunds before the start; after it, the interruption payouts
    of 001:L417-444 from the chip counts of the players still in."""
    return _run("cancel", {"tournament_id": tournament_id, "stacks": dict(stacks or {})},
                actor=actor, idempotency_key=idempotency_key, at=at)


def _run(operation: str, arguments: dict[str, Any], *, actor: str,
         idempotency_key: str | None, at: dt.datetime | None) -> TournamentResult:
    return run(COMMANDS[operation], arguments, _call(actor, idempotency_key, at))


# ---------------------------------------------------------------------------
# The common path
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TournamentContext:
    """What an operation on a tournament decides from: the engine's outcome.

    `load` has already applied the request to the engine's state (a
    computation on a fresh copy), so `check` and `decide` only read.
    """

    tournament_id: str
    stream: str
    version: int
    event_type: str
    request: dict[str, Any]         # what a recorded refusal says was tried
    row: Tournament
    at: dt.datetime
    day: dt.date
    payload: dict[str, Any]
    transfers: tuple[Transfer, ...] = ()
    seating: "_Seating | None" = None
    # A refusal by the compliance pipeline: the attempt, its context, its verdict.
    attempt: Attempt | None = None
    compliance: AttemptContext | None = None
    verdict: Verdict | None = None
    # A refusal by a tournament rule.
    engine_error: EngineError | None = None
    # The gaming accounts credited: code -> (balance, maximum); the streams
    # of their players -> version (read before the balances).
    credited: Mapping[str, tuple[int, int | None]] = field(default_factory=dict)
    player_versions: Mapping[str, int] = field(default_factory=dict)
    ceiling_new: int | None = None  # the ceiling a gaming account opens with


class TournamentCommand(BaseCommand[TournamentContext, TournamentResult]):
    """One operation on a tournament's stream, run by casino.runner."""

    source = SOURCE

    def __init__(self, operation: str, event_type: str,
                 payload: Callable[[Mapping[str, Any], State, Tournament], dict[str, Any]]
                 | None = None) -> None:
        self.name = f"tournaments.{operation}"
        self.event_type = event_type
        self._payload = payload

    def load(self, arguments: Mapping[str, Any], call: Call) -> TournamentContext:
        tournament_id = arguments["tournament_id"]
        stream = ev.tournament_stream(tournament_id)
        state, version, row = _load(tournament_id)
        venue = rules.venue(row.venue)
        at = call.moment()
        day = venue_day(venue, at)
        event_type = self.event_type
        payload = {k: v for k, v in arguments.items() if k != "tournament_id"}
        if self._payload is not None:
            payload = self._payload(arguments, state, row)
        if (event_type == ev.STARTED and state.phase == "registering"
                and state.entries < state.config.min_entrants):
            # Too few entrants: the start cancels and refunds (003:L163, L173).
            event_type, payload = ev.CANCELLED, {"stacks": {}}
        request = {"op": event_type, "tournament_id": tournament_id, **payload}
        common = dict(tournament_id=tournament_id, stream=stream, version=version,
                      event_type=event_type, request=request, row=row, at=at, day=day)
        full = dict(payload)
        if event_type in PURCHASES:
            price = _price_of(state, event_type)
            if price is not None and price.total_minor == 0:
                # A freeroll's entry stakes nothing (001:L602), but self-exclusion
                # and the player rules apply to every game (002:L3086): the free
                # entry passes the player checks (decision tournaments.freeroll).
                attempt, compliance, verdict = _free_entry_checks(
                    arguments["player_id"], venue.code, row.currency, at)
                if not verdict.allowed:
                    return TournamentContext(**common, payload=full, attempt=attempt,
                                             compliance=compliance, verdict=verdict)
                full.update(verdict=verdict_record(verdict))
            if price is not None and price.total_minor > 0:
                player_id = arguments["player_id"]
                attempt = Attempt(kind="stake", venue=venue.code,
                                  amount_minor=price.total_minor, currency=row.currency,
                                  player_id=player_id, game=GAME, bet_unit=BET_UNIT,
                                  category="pvp", at=at)
                compliance = load_context(attempt)
                verdict = run_checks(compliance)
                if not verdict.allowed:
                    return TournamentContext(**common, payload=full, attempt=attempt,
                                             compliance=compliance, verdict=verdict)
                full.update(price=price.as_dict(), verdict=verdict_record(verdict),
                            activity={"player": player_id, "venue": venue.code,
                                      "day": day.isoformat(), "category": "pvp",
                                      "staked_minor": price.total_minor})
        try:
            _check_transition(row, event_type)
            transfers = apply_event(state, event_type, full)
        except EngineError as error:
            return TournamentContext(**common, payload=full, engine_error=error)
        seating = None
        target_id = row.config.get("target_tournament_id")
        if event_type == ev.FINISHED and target_id and state.payout and state.payout.seats:
            seating = _seat_winners(state, satellite=row, target_id=target_id, at=at)
            full["seats_awarded"] = seating.awarded
        entered = seating.entered if seating else set()
        transfers = [t for t in transfers if not (
            t.reason == "seat" and t.target.split(":", 1)[1] in entered)]
        tickets = seating.tickets if seating else set()
        # A seat not used is kept as the player's ticket (decision
        # tournaments.satellite.ticket), not paid into the gaming account.
        transfers = [Transfer(t.source, f"ticket:{t.target.split(':', 1)[1]}",
                              t.amount_minor, "seat_ticket")
                     if t.reason == "seat" and t.target.split(":", 1)[1] in tickets else t
                     for t in transfers]
        full["transfers"] = ([_transfer_dict(t) for t in transfers]
                             + (seating.moved if seating else []))
        if state.payout is not None and event_type in (ev.FINISHED, ev.CANCELLED):
            full["outcome"] = {"method": state.payout.method,
                               "places": dict(state.payout.places),
                               "prizes_minor": dict(state.payout.prizes_minor),
                               "seats": list(state.payout.seats)}
        credited_players = sorted({t.target.split(":", 1)[1] for t in transfers
                                   if t.target.startswith("player:")})
        player_versions = _stream_versions([player_stream(p) for p in credited_players])
        credited = _accounts([gaming_account(p) for p in credited_players])
        return TournamentContext(**common, payload=full, transfers=tuple(transfers),
                                 seating=seating, credited=credited,
                                 player_versions=player_versions,
                                 ceiling_new=account_ceiling(day))

    def check(self, context: TournamentContext) -> Rejection | None:
        attempt, compliance, verdict = context.attempt, context.compliance, context.verdict
        if attempt is not None and compliance is not None and verdict is not None:
            return rejection(attempt, compliance, verdict)
        if context.engine_error is not None:
            return _engine_rejection(context, context.engine_error)
        return None

    def decide(self, context: TournamentContext) -> Decision:
        row = context.row
        full = dict(context.payload)
        postings = _postings(context.transfers, context.tournament_id, row.venue,
                             row.currency)
        postings, overflow = _split_credits(postings, venue=row.venue, currency=row.currency,
                                            accounts=context.credited,
                                            ceiling_new=context.ceiling_new)
        if overflow:
            full[OVERFLOW_KEY] = overflow
        events = [NewEvent(stream=context.stream, type=context.event_type, payload=full,
                           postings=postings, schema_version=ev.SCHEMA_VERSION,
                           occurred_at=context.at, gaming_day=context.day)]
        expected = {context.stream: context.version, **context.player_versions}
        terms = {code: _account_terms(code, tournament_id=context.tournament_id,
                                      venue=row.venue, currency=row.currency,
                                      ceiling=context.ceiling_new)
                 for code in (p.account for p in postings)}
        seating = context.seating
        if seating is not None:
            events += seating.refusals
        if seating is not None and seating.events:
            events += seating.events
            expected[seating.stream] = seating.version
            for seat_event in seating.events:
                for posting in seat_event.postings:
                    terms.setdefault(posting.account, _account_terms(
                        posting.account, tournament_id=seating.target_id,
                        venue=seating.venue, currency=row.currency,
                        ceiling=context.ceiling_new))
        return Decision(events, expected, accounts=list(terms.values()))

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TournamentResult:
        first = events[0]
        if first.type == ev.REQUEST_REJECTED:
            p = first.payload
            raise TournamentError(p["rule"], p["message"], **p["details"])
        return _result(first.stream.split("/", 1)[1], events, replayed=replayed)

    def refusal(self, context: TournamentContext, error: LedgerError) -> Exception | None:
        if (isinstance(error, InsufficientFunds)
                and error.details.get("account") == ev.tournament_reserve(context.row.venue)):
            return TournamentError(
                Code.INSUFFICIENT_FUNDS, "the venue's tournament reserve holds less than this"
                " tournament takes from it (000:L3386-3388)",
                account=error.details.get("account"),
                balance_minor=error.details.get("balance_minor"), cite="000:L3386-3388")
        if isinstance(error, InsufficientFunds):
            return TournamentError(
                Code.INSUFFICIENT_FUNDS, "the gaming account holds less than the price;"
                " there is no credit (002:L3033)", account=error.details.get("account"),
                balance_minor=error.details.get("balance_minor"), cite="002:L3033")
        if isinstance(error, BalanceMaxExceeded):
            # A credit to the account committed after the split was read
            # (not a deposit: that makes the append stale and is retried).
            return TournamentError(
                Code.ACCOUNT_CEILING, "a gaming account changed while its payout was being"
                " split at its ceiling (002:L3070); send the request again",
                account=error.details.get("account"), cite="002:L3070")
        return None


def _draw_payload(arguments: Mapping[str, Any], state: State, row: Tournament
                  ) -> dict[str, Any]:
    """The drawn HexaPro pool: the prize for the buy-in and its split (001:L480-493)."""
    from .engine import hexapro

    rulebook = _rulebook(row.rulebook)
    multiplier, ticket = arguments.get("multiplier"), None
    if multiplier is None:
        multiplier, ticket = _draw_multiplier(rulebook)
    buy_in = state.config.entry.total_minor
    level = f"eur{buy_in // 100}"
    prize = rules.figure(rulebook, f"hexapro.prize.{level}.{multiplier}")
    if prize is None:
        raise TournamentError(Code.INVALID_REQUEST, f"no HexaPro prize {multiplier} at"
                              f" {level} in {rulebook.key}")

    def value(key: str):
        return rules.figure(rulebook, key).value

    shares = hexapro.shares_for(hexapro.multiplier_of(multiplier),
                                value("hexapro.payout.winner_takes_all_max_multiplier"),
                                [value(f"hexapro.payout.{p}")
                                 for p in ("first", "second", "third")])
    payload = {"multiplier": multiplier, "prize_pool_minor": prize.value,
               "shares_basis_points": list(shares), "cite": prize.cite}
    if ticket is not None:
        payload["drawn"] = {"ticket": ticket, "of": hexapro.DRAW_DENOMINATOR,
                            "cite": "001:L480-487"}
    return payload


HEXAPRO_PROBABILITY = "hexapro.probability_per_100000."


def _draw_multiplier(rulebook: RulebookVersion, rng: random.Random | None = None
                     ) -> tuple[str, int]:
    """Draw a HexaPro multiplier by the rulebook's published probabilities.

    001:L480-487: 1 in 100,000 games draws 1,000x, ... 56,294 in 100,000
    draw 1.5x. Returns the label ("x25") and the ticket drawn (0 to 99,999).
    """
    from .engine import hexapro

    rows = [hexapro.PrizeRow(key.removeprefix(HEXAPRO_PROBABILITY),
                             hexapro.multiplier_of(key.removeprefix(HEXAPRO_PROBABILITY)),
                             row.value)
            for key, row in rules.figures(rulebook).items()
            if key.startswith(HEXAPRO_PROBABILITY)]
    if not rows:
        raise TournamentError(Code.INVALID_REQUEST, f"{rulebook.key} publishes no HexaPro"
                              " probabilities")
    ticket = (rng or random.SystemRandom()).randrange(hexapro.DRAW_DENOMINATOR)
    return hexapro.row_for_ticket(rows, ticket).label, ticket


COMMANDS = {
    operation: TournamentCommand(operation, event_type, payload)
    for operation, event_type, payload in (
        ("open_registration", ev.REGISTRATION_OPENED, None),
        ("register", ev.PLAYER_ENTERED, None),
        ("unregister", ev.PLAYER_UNREGISTERED, None),
        ("rebuy", ev.REBUY_PURCHASED, None),
        ("add_on", ev.ADD_ON_PURCHASED, None),
        ("start", ev.STARTED, None),
        ("fix_prize_pool", ev.PRIZE_POOL_FIXED, None),
        ("draw_prize_pool", ev.PRIZE_POOL_DRAWN, _draw_payload),
        ("eliminate", ev.PLAYERS_ELIMINATED, None),
        ("award_special_prize", ev.SPECIAL_PRIZE_AWARDED, None),
        ("disqualify", ev.PLAYER_DISQUALIFIED, None),
        ("exclude", ev.PLAYER_EXCLUDED, None),
        ("record_deal", ev.DEAL_RECORDED, None),
        ("finish", ev.FINISHED, None),
        ("cancel", ev.CANCELLED, None),
    )
}


def _load(tournament_id: str) -> tuple[State, int, Tournament]:
    """A tournament's stream version, engine state and row, in one statement.

    The state is the snapshot row's (joined to the tournament for its
    configuration, with the stream's version beside it), not a replay of
    the stream. The snapshot is written in the same transaction as the
    events and one statement sees one database snapshot, so the two agree;
    when a writer commits after the read, the append expecting the version
    read is stale and the runner starts again.
    """
    stream = ev.tournament_stream(tournament_id)
    snapshot = (TournamentSnapshot.objects.select_related("tournament")
                .annotate(stream_version=Subquery(
                    Stream.objects.filter(name=stream).values("version")[:1]))
                .filter(tournament_id=tournament_id).first())
    version = (snapshot.stream_version or 0) if snapshot is not None else stream_version(stream)
    if not version:
        raise TournamentError(Code.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r}",
                              tournament_id=tournament_id)
    if snapshot is None or snapshot.version < version:
        raise InvariantViolation(
            f"the snapshot of tournament {tournament_id} is behind its stream (version"
            f" {version}); run rebuild_projections")
    row = snapshot.tournament
    return load_state(row.config, snapshot.state), version, row


def _stream_versions(streams: Sequence[str]) -> dict[str, int]:
    """The versions of several streams in one statement (0: no events yet)."""
    if not streams:
        return {}
    found = dict(Stream.objects.filter(name__in=streams).values_list("name", "version"))
    return {name: found.get(name, 0) for name in streams}


def _accounts(codes: Sequence[str]) -> dict[str, tuple[int, int | None]]:
    """The balance and maximum of the accounts that exist among `codes`."""
    if not codes:
        return {}
    return {code: (balance, maximum) for code, balance, maximum in Account.objects.filter(
        code__in=codes).values_list("code", "balance_minor", "balance_max_minor")}


@dataclass(slots=True)
class _Seating:
    """A satellite's seats: the entries it appends on its target's stream."""

    stream: str = ""
    version: int = 0
    target_id: str = ""
    venue: str = ""
    events: list[NewEvent] = field(default_factory=list)
    # The compliance refusals of winners not seated, on their player streams.
    refusals: list[NewEvent] = field(default_factory=list)
    entered: set[str] = field(default_factory=set)
    tickets: set[str] = field(default_factory=set)   # winners given a ticket
    awarded: list[dict[str, Any]] = field(default_factory=list)
    moved: list[dict[str, Any]] = field(default_factory=list)


def _seat_winners(state: State, *, satellite: Tournament, target_id: str, at: dt.datetime
                  ) -> _Seating:
    """Register each seat winner in the target, paid from the satellite's pool.

    The satellite's pool pays the target's entry (its prize part into the
    target's pool, the fee to the target venue's house, a bounty part onto
    the target's bounties): an entry event on the target's stream with
    `paid_by: "satellite:<id>"`, appended with the satellite's finish
    (000:L3344-3345, 002:L2993, 002:L3293). Registering, the winner enters;
    running before the pool is fixed, the winner is seated as a late entry
    (001:L314). A winner already registered, or a target that takes no
    more entries, keeps the seat as a tournament ticket of its value, used
    personally (`register(payment="ticket")`; decision
    tournaments.satellite.ticket, 000:L3344-3345, 001:L312); only where the
    config's `seat_not_used` is "cash" (Tallinn, 003:L175, and satellites
    announced before tickets) is it paid into the gaming account.

    Seating is the winner's entry, so it passes the compliance pipeline
    like a purchase (identity, age, self-exclusion, the entry-fee cap; a
    self-excluded player is not seated, 002:L3086): a refused winner's seat
    is a seat not used, as above (decision tournaments.satellite.not_seated),
    the award names the failed check and
    its refusal is recorded on the player's stream with the finish.
    """
    seating = _Seating(stream=ev.tournament_stream(target_id), target_id=target_id)
    target_state, seating.version, target = _load(target_id)
    seating.venue = target.venue
    venue = rules.venue(target.venue)
    tournament_id = satellite.id
    paid_by = f"satellite:{tournament_id}"
    seat_minor = state.config.satellite_seat_minor
    # Satellites announced before tickets paid a seat not used in cash.
    ticket = (None if satellite.config.get("seat_not_used", "cash") == "cash"
              else "ticket")
    for player_id in state.payout.seats:
        award = {"player_id": player_id, "target_tournament_id": target_id,
                 "seat_minor": seat_minor}
        kind = {"registering": "entry", "running": "late_entry"}.get(target_state.phase)
        if player_id in target_state.players:
            refusal = "already_registered"
        elif kind is None:
            refusal = "target_closed"
        elif target_state.config.entry.total_minor != seat_minor:
            refusal = "seat_value_mismatch"
        else:
            payload: dict[str, Any] = {"player_id": player_id, "kind": kind,
                                       "paid_by": paid_by,
                                       "price": target_state.config.entry.as_dict()}
            attempt = Attempt(kind="stake", venue=venue.code, amount_minor=seat_minor,
                              currency=target.currency, player_id=player_id, game=GAME,
                              bet_unit=BET_UNIT, category="pvp", at=at)
            compliance = load_context(attempt)
            verdict = run_checks(compliance)
            if not verdict.allowed:
                # 002:L3086 and the other checks: a refused winner is not seated.
                refusal = verdict.failure.code
                seating.refusals.append(rejection(attempt, compliance, verdict).event)
                moved = None
            else:
                payload["verdict"] = verdict_record(verdict)
                try:
                    moved = apply_event(target_state, ev.PLAYER_ENTERED, payload)
                except EngineError as error:
                    refusal = error.code
                    moved = None
            if moved is not None:
                refusal = None
                payload["transfers"] = [_transfer_dict(t) for t in moved]
                seating.events.append(NewEvent(
                    stream=seating.stream, type=ev.PLAYER_ENTERED, payload=payload,
                    postings=_postings(moved, target_id, target.venue, target.currency),
                    schema_version=ev.SCHEMA_VERSION, occurred_at=at,
                    gaming_day=venue_day(venue, at)))
                seating.entered.add(player_id)
                seating.moved.append({"from": "pool", "to": f"tournament:{target_id}",
                                      "amount_minor": seat_minor, "reason": "seat"})
        not_used = "cash" if ticket is None else "ticket"
        seating.awarded.append({**award, "awarded": not_used if refusal else "entry",
                                **({"reason": refusal} if refusal else {})})
        if refusal and ticket is not None:
            seating.tickets.add(player_id)
    return seating


def _free_entry_checks(player_id: str, venue: str, currency: str, at: dt.datetime
                       ) -> tuple[Attempt, AttemptContext, Verdict]:
    """The player checks of an entry that costs nothing (a freeroll).

    The entry is a `buy_in` attempt of no amount that moves no gaming-account
    money, so only the player rules run on it: identity (002:L3031), age and
    self-exclusion (002:L3086). The pipeline's loader takes positive amounts
    only, so the context is loaded for one cent and then holds the true zero
    the checks and a recorded refusal see.
    """
    attempt = Attempt(kind="buy_in", venue=venue, amount_minor=0, currency=currency,
                      player_id=player_id, game=GAME, category="pvp", at=at)
    compliance = replace(load_context(replace(attempt, amount_minor=1)), amount_minor=0)
    return attempt, compliance, run_checks(compliance)


def _price_of(state: State, event_type: str):
    if event_type == ev.PLAYER_ENTERED:
        return state.config.entry
    if event_type == ev.REBUY_PURCHASED:
        return state.config.rebuy
    return state.config.add_on


def _check_transition(row: Tournament, event_type: str) -> None:
    """Ask the model's state machine before the engine (django-fsm guard)."""
    name = TRANSITIONS.get(event_type)
    if name is not None and not can_proceed(getattr(row, name)):
        raise EngineError("wrong_phase", f"not allowed while the tournament is {row.state}",
                          phase=row.state)


def _coded(error: EngineError) -> TournamentError:
    return TournamentError(f"tournaments.{error.code}", error.message,
                           **error.details)


def _engine_rejection(context: TournamentContext, error: EngineError) -> Rejection:
    """The refusal by a tournament rule: what was tried, which rule (pure)."""
    event = NewEvent(stream=f"{context.stream}/rejections", type=ev.REQUEST_REJECTED,
                     payload={"request": context.request, "rule": f"tournaments.{error.code}",
                              "message": error.message, "details": _jsonable(error.details),
                              "rulebook": context.row.rulebook},
                     occurred_at=context.at, gaming_day=context.day)
    return Rejection(event, lambda position: _coded(error))


def _jsonable(details: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v if isinstance(v, (int, str, bool, list, type(None))) else str(v))
            for k, v in details.items()}


def _transfer_dict(t: Transfer) -> dict[str, Any]:
    return {"from": t.source, "to": t.target, "amount_minor": t.amount_minor,
            "reason": t.reason}


def account_of(role: str, *, tournament_id: str, venue: str) -> str:
    """The ledger account of an engine role (events.py)."""
    if role.startswith("player:"):
        return gaming_account(role.split(":", 1)[1])
    if role.startswith("satellite:"):
        return ev.prize_pool(role.split(":", 1)[1])
    if role.startswith("ticket:"):
        return ev.tournament_tickets(role.split(":", 1)[1])
    return {"pool": ev.prize_pool(tournament_id), "bounties": ev.bounties(tournament_id),
            "fees": ev.tournament_fees(venue), "house": ev.tournament_prizes(venue),
            "reserve": ev.tournament_reserve(venue)}[role]


def _postings(transfers: Sequence[Transfer], tournament_id: str, venue: str,
              currency: str) -> tuple[Posting, ...]:
    totals: dict[str, int] = {}
    for t in transfers:
        source = account_of(t.source, tournament_id=tournament_id, venue=venue)
        target = account_of(t.target, tournament_id=tournament_id, venue=venue)
        totals[source] = totals.get(source, 0) + t.amount_minor
        totals[target] = totals.get(target, 0) - t.amount_minor
    return tuple(Posting(code, amount, currency)
                 for code, amount in sorted(totals.items()) if amount)


def _split_credits(postings: Sequence[Posting], *, venue: str, currency: str,
                   accounts: Mapping[str, tuple[int, int | None]], ceiling_new: int | None
                   ) -> tuple[tuple[Posting, ...], list[dict[str, Any]]]:
    """Split each credit to a gaming account at its ceiling (prizes, bounties, refunds; pure).

    Decision online.account.balance_overflow (002:L3068-3070): the part of a
    payout above the account's ceiling goes to `bank/<venue>/payouts_due`,
    owed to the player's bank account (casino/wallet.py). Debits (a
    purchase) stay as they are: the ledger refuses an overdraft. `accounts`
    holds the balance and maximum read of each credited account that exists;
    one not opened yet starts at 0 under `ceiling_new`.
    """
    def credited(posting: Posting) -> bool:
        code = posting.account
        return code.startswith("player/") and code.endswith("/account") and (
            posting.amount_minor < 0)

    credits = {p.account[len("player/"):-len("/account")]: -p.amount_minor
               for p in postings if credited(p)}
    if not credits:
        return tuple(postings), []
    split = {}
    for player_id, amount in credits.items():
        code = gaming_account(player_id)
        balance, maximum = accounts.get(code, (0, ceiling_new))
        to_account, overflow = split_credit(amount, balance_minor=balance,
                                            balance_max_minor=maximum)
        parts = []
        if to_account:
            parts.append(Posting(code, -to_account, currency))
        if overflow:
            parts.append(Posting(payouts_due(venue), -overflow, currency))
        split[player_id] = PlayerCredit(
            player_id=player_id, venue=venue, currency=currency, amount_minor=amount,
            account=code, account_minor=to_account, overflow_minor=overflow,
            balance_before_minor=balance, balance_max_minor=maximum, postings=tuple(parts))
    kept = [p for p in postings if not credited(p)]
    merged: dict[str, int] = {}
    for posting in [*kept, *(p for c in split.values() for p in c.postings)]:
        merged[posting.account] = merged.get(posting.account, 0) + posting.amount_minor
    return (tuple(Posting(code, amount, currency) for code, amount in sorted(merged.items())
                  if amount),
            overflow_blocks(split[player] for player in sorted(split)))


def _account_terms(code: str, *, tournament_id: str, venue: str, currency: str,
                   ceiling: int | None) -> dict[str, Any]:
    """The `open_account` terms of an account a tournament's postings may open."""
    if code.startswith("player/") and code.endswith("/tournament_tickets"):
        terms = dict(type=AccountType.LIABILITY, must_not_go_negative=True,
                     name=f"Tournament tickets {code}")
    elif code.startswith("player/"):
        terms = dict(type=AccountType.LIABILITY, name=f"Gaming account {code}",
                     must_not_go_negative=True, balance_max_minor=ceiling)
    elif code == payouts_due(venue):
        terms = dict(type=AccountType.LIABILITY, must_not_go_negative=True,
                     name=f"Wins due to players' bank accounts at {venue}")
    elif code == ev.prize_pool(tournament_id):
        terms = dict(type=AccountType.LIABILITY, must_not_go_negative=True,
                     name=f"Prize pool of tournament {tournament_id}")
    elif code == ev.bounties(tournament_id):
        terms = dict(type=AccountType.LIABILITY, must_not_go_negative=True,
                     name=f"Bounties of tournament {tournament_id}")
    elif code == ev.tournament_fees(venue):
        terms = dict(type=AccountType.REVENUE, name=f"Tournament fees at {venue}")
    elif code == ev.tournament_reserve(venue):
        terms = dict(type=AccountType.LIABILITY, must_not_go_negative=True,
                     name=f"Tournament prize money kept for later tournaments at {venue}")
    else:
        terms = dict(type=AccountType.EXPENSE, name=f"Tournament prize funding at {venue}")
    return dict(code=code, currency=currency, **terms)


def _rulebook(key: str) -> RulebookVersion:
    rulebook_id, version = key.rsplit("@", 1)
    return RulebookVersion.objects.get(rulebook_id=rulebook_id, version=int(version))


def _result(tournament_id: str, events: Sequence[RecordedEvent], *, replayed: bool
            ) -> TournamentResult:
    row = Tournament.objects.get(id=tournament_id)
    first = events[0]
    return TournamentResult(
        tournament_id=tournament_id, event_type=first.type,
        positions=tuple(e.position for e in events), state=row.state,
        pool_minor=row.pool_minor, fees_minor=row.fees_minor,
        bounties_minor=row.bounties_minor,
        transfers=tuple(first.payload.get("transfers", ())), replayed=replayed)


__all__ = ["PayoutStructure", "TournamentResult", "add_on", "announce",
           "award_special_prize", "cancel",
           "disqualify", "draw_prize_pool", "eliminate", "exclude", "finish",
           "fix_prize_pool", "open_registration", "rebuy", "record_deal", "register",
           "start"]
