"""Write side of the gaming machines: registration, rounds, credit and vouchers.

Every write is a command run by `casino.runner.run`. A machine's money
events go on its stream (`machine/<id>`), read with the credit balance in
the load and expected in the append, so a round never spends credit a
concurrent cash-out took.

Rules, with their seed lines:

- placement (002:L1401): a special machine (terminal roulette, electronic
  poker table, blackjack machine) stands only in a RAY gaming hall or in
  premises whose entry is posted as limited to people aged 18 or over
  (`post_premises_entry`); refused and recorded otherwise. Decision
  (machines.placement.online, not in the seed: chosen because the online
  service has no premises and a cabinet no gaming account): online kinds
  register only at an online venue, land kinds only at a gaming hall,
  partner premises or casino.
- a round's stakes pass the compliance pipeline under Part IV: each stake
  against its bet unit's cap, and the round's total, re-used stakes
  included, against the round cap (002:L3371-3373: halls and 18+ premises
  EUR 2 and EUR 8, elsewhere EUR 1 and EUR 2; the casino EUR 20 per line
  or option, 002:L3439; terminal roulette 002:L3379, electronic poker table
  002:L3381, blackjack machine 002:L3383); age and self-exclusion where the
  player is known (card-in); the win against the venue's maximum (002
  Part IV section 11). An 18+ partner premises takes the gaming-hall slot
  rows (decision machines.adults_only_premises, ray-partner-premises).
- stakes re-used from earlier parts of the round come from its wins
  (002:L3373): re-used more than won is refused (`machines.reused_above_wins`).
- a machine plays from its credit (nothing on credit, 002:L135): a fresh
  stake above the credit is refused
  (`machines.insufficient_credit`).
- a win is credited to the machine's credit at once (002:L1381).

A refused round is recorded (`machines.round_rejected`) under the round's
key and raised as RoundRejected; its rule is `details.rule`.

Decisions (not in the seed): a cash-out empties the whole credit onto one
voucher (ticket-in/ticket-out machines print the credit); a voucher is
redeemed exactly once, in full, at the cage of its venue or into another
machine of its venue; vouchers do not expire in this slice.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.db import transaction

from casino.accounts import OVERFLOW_KEY, cage_cash, gaming_account
from casino.compliance.checks import AttemptContext, Figure, Verdict, run_checks
from casino.compliance.pipeline import Attempt, load_context, venue_day
from casino.errors import CodedError
from casino.rules import queries as rules
from casino.rules.cache import cached
from casino.rules.models import Venue, VenueType
from casino.runner import (BaseCommand, Call, Decision, Rejection, RunnerError,
                           RunnerErrorCode, run)
from casino.wallet import PlayerCredit, accounts_to_open, credit_players, overflow_blocks
from ledger import NewEvent, Posting, RecordedEvent
from ledger import BalanceMaxExceeded, InsufficientFunds, LedgerError, UnknownAccount
from ledger.read import Account, AccountType
from ledger.read import events as events_at
from ledger.read import recorded_request, stream_version

from .errors import MachinesError, MachinesErrorCode as Code, MachinesRule as Rule
from .errors import PlacementRejected, RoundRejected
from .events import (
    BATCH_REPORTED,
    CASH_INSERTED,
    CREDITS_CANCELLED,
    MACHINE_REGISTERED,
    PLACEMENT_REJECTED,
    PREMISES_ENTRY_POSTED,
    ROUND_PLAYED,
    ROUND_REJECTED,
    SCHEMA_VERSION,
    SOURCE,
    VOUCHER_ISSUED,
    VOUCHER_REDEEMED,
    batch_stream,
    cash_account,
    coin_in_account,
    coin_out_account,
    contributions_account,
    jackpot_pool_account,
    credit_account,
    machine_stream,
    placement_stream,
    premises_stream,
    round_key,
    voucher_account,
    voucher_stream,
)
from .models import ONLINE_KINDS, SPECIAL_KINDS, Machine, MachineJackpot, MachineKind
from .models import Premises, Voucher
from .jackpots import link_terms_for_registration, pool_name
from .models import VoucherState

MACHINE_ID = re.compile(r"^[A-Za-z0-9._-]{1,60}$")
ROUND_ID = re.compile(r"^[A-Za-z0-9._-]{1,80}$")
BATCH_ROUNDS_MAX = 1000     # issue 15 item 3: up to 1,000 rounds in one request
ROUND_STAKES_MAX = 100      # lines or options of one round
GAMES_MAX = 50
STAKE_OPTIONS_MAX = 50
JACKPOT_LINKS_MAX = 20
# An online solo casino game's Part IV game (002:L3457-3461), with its bet unit.
SOLO_GAMES = frozenset({"wheel_and_number_draw", "dice_vs_house", "card_vs_house"})
AMOUNT_MINOR_MAX = 10**10
LAND_VENUE_TYPES = frozenset({VenueType.GAMING_HALL, VenueType.PARTNER_PREMISES,
                              VenueType.CASINO})
HALL_RULEBOOK = "ray-gaming-hall"
# Nothing is played on credit (002:L135): the machine's credit account may
# not go below zero, so a refusal for want of credit cites the line.
NO_CREDIT_CITE = "002:L135"
ROUND_REJECTED_CODE = Code.ROUND_REJECTED
KEY_REUSED_CODE = RunnerErrorCode.IDEMPOTENCY_KEY_REUSED


def _call(actor: str, key: str | None, at: dt.datetime | None = None) -> Call:
    return Call(actor=actor, key=key, at=at, at_from_client=at is not None, source=SOURCE)


def _invalid(message: str, **details: Any) -> MachinesError:
    return MachinesError(Code.INVALID_REQUEST, message, **details)


def _venue_type(place: Venue, at: dt.datetime) -> str:
    local = at.astimezone(dt.timezone.utc).date()
    return rules.rulebook_in_force(place.rulebook_id, local).venue_type


def _adults_only(place: Venue) -> bool:
    """Whether only people aged 18 or over enter the venue: its latest posting.

    Posted with the venue (rules: register_venue / change_venue) or here
    (post_premises_entry); the later of the two holds.
    """
    posted = Premises.objects.filter(venue=place.code).values_list(
        "adults_only", "posted_position").first()
    if posted is not None and posted[1] > place.adults_only_position:
        return posted[0]
    return place.adults_only


def _machine(machine_id: str) -> Machine:
    # A registration never changes, so the row is reference data.
    found = cached(("machine", machine_id),
                   lambda: Machine.objects.filter(id=machine_id).first())
    if found is None:
        raise MachinesError(Code.UNKNOWN_MACHINE, f"no machine {machine_id!r}",
                            machine_id=machine_id)
    return found


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MachineResult:
    machine_id: str
    venue: str
    kind: str
    games: tuple[str, ...]
    long_interactive_rounds: bool
    currency: str
    rulebook: str
    position: int
    replayed: bool = False
    paylines: int | None = None
    stake_options: tuple[int, ...] = ()
    jackpot_links: tuple[str, ...] = ()
    online_game: str = ""


@dataclass(frozen=True, slots=True)
class PremisesResult:
    venue: str
    adults_only: bool
    position: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class RoundResult:
    machine_id: str
    round_id: str
    total_minor: int
    reused_minor: int
    win_minor: int
    position: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class BatchResult:
    machine_id: str
    accepted: int
    refused: int
    rounds: tuple[Mapping[str, Any], ...]
    position: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class CreditResult:
    machine_id: str
    amount_minor: int
    position: int
    voucher_id: str | None = None
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class VoucherResult:
    voucher_id: str
    venue: str
    amount_minor: int
    redeemed_at: str
    machine_id: str | None
    position: int
    replayed: bool = False


# ---------------------------------------------------------------------------
# Premises and machines
# ---------------------------------------------------------------------------


def post_premises_entry(*, venue: str, adults_only: bool, actor: str,
                        idempotency_key: str | None = None) -> PremisesResult:
    """Post whether only people aged 18 or over enter a venue (002:L1401, L3371).

    Venue-posted configuration: an 18+ premises may hold special machines
    and takes the EUR 2 / EUR 8 slot caps. The latest posting holds.
    """
    return run(POST_PREMISES, {"venue": venue, "adults_only": bool(adults_only)},
               _call(actor, idempotency_key))


@dataclass(frozen=True, slots=True)
class PremisesContext:
    place: Venue
    adults_only: bool
    at: dt.datetime


class PostPremises(BaseCommand[PremisesContext, PremisesResult]):
    name = "machines.post_premises_entry"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> PremisesContext:
        place = rules.venue(arguments["venue"])
        if _venue_type(place, call.moment()) not in LAND_VENUE_TYPES:
            raise _invalid(f"{place.code} has no premises whose entry could be posted",
                           venue=place.code)
        return PremisesContext(place, arguments["adults_only"], call.moment())

    def decide(self, context: PremisesContext) -> Decision:
        place = context.place
        event = NewEvent(stream=premises_stream(place.code), type=PREMISES_ENTRY_POSTED,
                         payload={"venue": place.code, "adults_only": context.adults_only},
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(place, context.at))
        return Decision([event])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> PremisesResult:
        p = events[0].payload
        return PremisesResult(p["venue"], p["adults_only"], events[0].position, replayed)


POST_PREMISES = PostPremises()


def register_machine(*, machine_id: str, venue: str, kind: str, games: Sequence[str],
                     long_interactive_rounds: bool = False, paylines: int | None = None,
                     stake_options: Sequence[int] = (), jackpot_links: Sequence[str] = (),
                     online_game: str | None = None, actor: str,
                     idempotency_key: str | None = None) -> MachineResult:
    """Register a machine to a venue, with its kind, games, paylines, stake
    options, jackpot links and round flag.

    Refused and recorded (422 machines.placement_rejected): a special
    machine outside a hall or an 18+ premises (002:L1401); an online kind
    off an online venue, a land kind on one (decision machines.placement.online).
    409 machines.machine_exists for an id already registered. 400
    machines.invalid_request: the long-interactive-rounds flag on anything
    but an online slot (the only rule that allows it, 002:L3479); an online
    solo game without its Part IV game (`online_game`: wheel_and_number_draw,
    dice_vs_house or card_vs_house, 002:L3457-3461); a jackpot link to a
    jackpot that is not posted at the venue (404 machines.unknown_jackpot).
    `paylines` bounds the stakes of a slot round (one per line) and
    `stake_options` the amounts a stake may take (decision
    machines.stake_options: a round outside them is refused and recorded).
    """
    if not isinstance(machine_id, str) or not MACHINE_ID.match(machine_id):
        raise _invalid("machine_id: 1-60 letters, digits, '.', '_' or '-'",
                       field="machine_id")
    if kind not in MachineKind.values:
        raise _invalid(f"unknown kind {kind!r}", field="kind")
    games = [str(game) for game in games]
    if not 1 <= len(games) <= GAMES_MAX:
        raise _invalid(f"a machine offers 1 to {GAMES_MAX} games", field="games")
    if long_interactive_rounds and kind != MachineKind.ONLINE_SLOT:
        raise _invalid("only an online slot may be flagged as having long, interactive"
                       " rounds (002:L3479)", field="long_interactive_rounds", cite="002:L3479")
    if kind == MachineKind.ONLINE_SOLO_GAME and online_game not in SOLO_GAMES:
        raise _invalid(f"an online solo game names its Part IV game: one of"
                       f" {', '.join(sorted(SOLO_GAMES))} (002:L3457-3461)",
                       field="online_game")
    if kind != MachineKind.ONLINE_SOLO_GAME and online_game:
        raise _invalid("online_game is for online solo games", field="online_game")
    if paylines is not None and (type(paylines) is not int
                                 or not 1 <= paylines <= ROUND_STAKES_MAX):
        raise _invalid(f"paylines: 1 to {ROUND_STAKES_MAX}", field="paylines")
    options = sorted({int(o) for o in stake_options})
    if len(options) > STAKE_OPTIONS_MAX or any(
            type(o) is not int or not 0 < o <= AMOUNT_MINOR_MAX for o in stake_options):
        raise _invalid(f"stake_options: at most {STAKE_OPTIONS_MAX} positive amounts in cents",
                       field="stake_options")
    links = sorted({str(link) for link in jackpot_links})
    if len(links) > JACKPOT_LINKS_MAX:
        raise _invalid(f"at most {JACKPOT_LINKS_MAX} jackpot links", field="jackpot_links")
    arguments = {"machine_id": machine_id, "venue": venue, "kind": kind, "games": games,
                 "long_interactive_rounds": bool(long_interactive_rounds)}
    # Named only when given, so registrations recorded before keep their
    # fingerprint.
    for name, value in (("paylines", paylines), ("stake_options", options),
                        ("jackpot_links", links), ("online_game", online_game)):
        if value:
            arguments[name] = value
    return run(REGISTER_MACHINE, arguments, _call(actor, idempotency_key))


@dataclass(frozen=True, slots=True)
class RegisterContext:
    arguments: Mapping[str, Any]
    place: Venue
    venue_type: str
    rulebook: str
    adults_only: bool
    at: dt.datetime
    jackpots: tuple[MachineJackpot, ...] = ()


def placement_failure(kind: str, venue_type: str, adults_only: bool
                      ) -> tuple[str, str, str] | None:
    """Return (rule, message, cite) when a kind may not stand at a venue (pure)."""
    if kind in ONLINE_KINDS and venue_type != VenueType.ONLINE:
        return (Rule.ONLINE_KIND_ON_PREMISES,
                f"an {kind} machine runs only at an online venue, not a {venue_type}",
                "decision machines.placement.online")
    if kind not in ONLINE_KINDS and venue_type not in LAND_VENUE_TYPES:
        return (Rule.LAND_KIND_OFF_PREMISES,
                f"a {kind} machine stands in a hall, partner premises or casino,"
                f" not at a {venue_type} venue", "decision machines.placement.online")
    if kind in SPECIAL_KINDS and venue_type != VenueType.GAMING_HALL and not adults_only:
        return (Rule.SPECIAL_MACHINE_PLACEMENT,
                f"a special machine ({kind}) stands only in a RAY gaming hall or in premises"
                " where only people aged 18 or over enter", "002:L1401")
    return None


class RegisterMachine(BaseCommand[RegisterContext, MachineResult]):
    name = "machines.register_machine"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> RegisterContext:
        machine_id = arguments["machine_id"]
        if stream_version(machine_stream(machine_id)):
            raise MachinesError(Code.MACHINE_EXISTS, f"machine {machine_id} is registered", machine_id=machine_id)
        place = rules.venue(arguments["venue"])
        at = call.moment()
        version = rules.rulebook_in_force(place.rulebook_id,
                                          at.astimezone(dt.timezone.utc).date())
        jackpots = []
        for jackpot_id in arguments.get("jackpot_links", ()):
            jackpot = MachineJackpot.objects.filter(id=jackpot_id, venue=place.code).first()
            if jackpot is None:
                raise MachinesError(Code.UNKNOWN_JACKPOT,
                                    f"no jackpot {jackpot_id!r} posted at {place.code}",
                                    jackpot_id=jackpot_id)
            if jackpot.scope == "single_machine":
                raise _invalid(f"jackpot {jackpot_id} is a single machine's",
                               field="jackpot_links")
            jackpots.append(jackpot)
        return RegisterContext(arguments, place, version.venue_type, version.key,
                               _adults_only(place), at, tuple(jackpots))

    def check(self, context: RegisterContext) -> Rejection | None:
        a = context.arguments
        failure = placement_failure(a["kind"], context.venue_type, context.adults_only)
        if failure is None:
            return None
        rule, message, cite = failure
        payload = {"machine_id": a["machine_id"], "venue": context.place.code,
                   "kind": a["kind"], "rule": rule, "message": message, "cite": cite}
        event = NewEvent(stream=placement_stream(context.place.code), type=PLACEMENT_REJECTED,
                         payload=payload, schema_version=SCHEMA_VERSION,
                         occurred_at=context.at,
                         gaming_day=venue_day(context.place, context.at))
        return Rejection(event, lambda position: PlacementRejected(payload, position))

    def decide(self, context: RegisterContext) -> Decision:
        a, place = context.arguments, context.place
        machine_id = a["machine_id"]
        payload = {"paylines": None, "stake_options": [], "jackpot_links": [],
                   "online_game": "", **a, "venue": place.code, "currency": place.currency,
                   "rulebook": context.rulebook}
        link_accounts, link_postings = [], []
        for jackpot in context.jackpots:
            more_accounts, more_postings = link_terms_for_registration(jackpot, machine_id)
            link_accounts += more_accounts
            link_postings += more_postings
        event = NewEvent(stream=machine_stream(machine_id), type=MACHINE_REGISTERED,
                         payload=payload, postings=tuple(link_postings),
                         schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=venue_day(place, context.at))
        currency = place.currency
        accounts = [
            dict(code=credit_account(machine_id), type=AccountType.LIABILITY,
                 currency=currency, name=f"Credit on machine {machine_id}",
                 must_not_go_negative=True),
            dict(code=cash_account(machine_id), type=AccountType.ASSET, currency=currency,
                 name=f"Cash box of machine {machine_id}", must_not_go_negative=True),
            dict(code=coin_in_account(machine_id), type=AccountType.REVENUE,
                 currency=currency, name=f"Coin in of machine {machine_id}"),
            dict(code=coin_out_account(machine_id), type=AccountType.EXPENSE,
                 currency=currency, name=f"Coin out of machine {machine_id}"),
            dict(code=contributions_account(machine_id), type=AccountType.EXPENSE,
                 currency=currency, name=f"Jackpot contributions of machine {machine_id}"),
            *link_accounts,
        ]
        return Decision([event], {event.stream: 0}, accounts=accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> MachineResult:
        event = events[0]
        if event.type == PLACEMENT_REJECTED:
            raise PlacementRejected(event.payload, event.position)
        p = event.payload
        return MachineResult(p["machine_id"], p["venue"], p["kind"], tuple(p["games"]),
                             p["long_interactive_rounds"], p["currency"], p["rulebook"],
                             event.position, replayed, p.get("paylines"),
                             tuple(p.get("stake_options", ())),
                             tuple(p.get("jackpot_links", ())), p.get("online_game", ""))


REGISTER_MACHINE = RegisterMachine()


# ---------------------------------------------------------------------------
# Rounds
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Caps:
    """How a machine's stakes meet Part IV: its game and bet units."""

    game: str
    units: Mapping[str, bool]       # bet unit -> capped per stake (has its own row)
    default_unit: str | None        # the unit of a stake that names none
    round_unit: str | None          # the round cap's bet unit, if any
    round_units: frozenset[str]     # the stakes the round cap adds up
    rulebook_id: str | None = None  # read the caps from this rulebook instead
    category: str = "slots"         # the loss-cap counter an online round feeds
    # An online solo game: the round's total also passes the player's limits
    # and the loss cap (each stake is capped on its own, 002:L3457-3461).
    total_for_limits: bool = False


def caps_for(kind: str, venue_type: str, adults_only: bool, *,
             long_interactive_rounds: bool = False, online_game: str = "") -> Caps:
    """Return the Part IV caps a machine's rounds pass (pure).

    Online (002:L3477-3479): EUR 20 a round, EUR 100 in a game flagged as
    having long, interactive rounds, the round feeding the slots loss cap;
    a solo casino game caps each betting option by its game's row
    (002:L3457-3461) and feeds the casino-games loss cap (002:L3082).
    """
    if kind == MachineKind.ONLINE_SLOT:
        game = "slot_game_long_round" if long_interactive_rounds else "slot_game"
        return Caps(game, {"line": False}, "line", "round_total", frozenset({"line"}),
                    category="slots")
    if kind == MachineKind.ONLINE_SOLO_GAME:
        return Caps(online_game, {"betting_option": True}, "betting_option", None,
                    frozenset(), category="casino_vs_house", total_for_limits=True)
    if kind == MachineKind.SLOT:
        if venue_type == VenueType.CASINO:
            # 002:L3439: EUR 20 per line or option, no round total.
            return Caps("slot_machine", {"line_or_option": True}, "line_or_option", None,
                        frozenset())
        # 002:L3371-3373: a stake, and the round's stakes together.
        override = (HALL_RULEBOOK if venue_type == VenueType.PARTNER_PREMISES and adults_only
                    else None)
        return Caps("slot_machine", {"single_stake": True}, "single_stake", "round_total",
                    frozenset({"single_stake"}), override)
    if kind == MachineKind.TERMINAL_ROULETTE:     # 002:L3379, per position
        return Caps("terminal_roulette", {"position_number_field": True,
                                          "position_side_field": True}, None, None,
                    frozenset())
    if kind == MachineKind.ELECTRONIC_POKER_TABLE:  # 002:L3381: raises per game rules
        return Caps("electronic_poker_table", {"opening_stake": True, "raise": False},
                    "opening_stake", None, frozenset())
    # 002:L3383: main and side EUR 6 together, the side at most EUR 2;
    # doubles and splits follow blackjack's rules.
    return Caps("special_machine_blackjack", {"main": False, "side_game": True,
                                              "raise": False}, "main",
                "main_and_side_total", frozenset({"main", "side_game"}))


def play_round(*, machine_id: str, round_id: str, stakes: Sequence[Mapping[str, Any]],
               total_minor: int, reused_minor: int = 0, win_minor: int = 0,
               player_id: str | None = None, actor: str,
               at: dt.datetime | None = None) -> RoundResult:
    """Record one round a machine played, keyed by the machine's own round id.

    `stakes` are the round's stakes per line or option ({option, unit,
    amount_minor}), re-used ones included; `total_minor` is their sum
    (002:L3371-3373); `reused_minor` the part of it paid from the round's
    own earlier wins (002:L3373); `win_minor` every win of the round.
    400 machines.invalid_request for a malformed round (nothing written);
    422 machines.round_rejected for a rule (recorded); 409
    idempotency_key_reused for the same round id with other content.
    A land machine's round is a batch of one (casino/machines/batches.py);
    an online round runs alone under the key `machine:<machine>/<round id>`.
    """
    arguments = _round_arguments(machine_id, round_id, stakes, total_minor, reused_minor,
                                 win_minor, player_id)
    machine = _machine(machine_id)
    if machine.kind in ONLINE_KINDS:
        return run(PLAY_ROUND, arguments, _call(actor, round_key(machine_id, round_id), at))
    from .batches import AlreadyRecorded, BatchRounds

    played_at = at.isoformat() if at is not None else None
    try:
        batch = run(BatchRounds(machine_id, {}, record_batch=False),
                    {"machine_id": machine_id,
                     "rounds": [{**arguments, "played_at": played_at}]},
                    _call(actor, None))
        outcome = batch.rounds[0]
    except AlreadyRecorded as recorded:
        outcome = recorded.outcome
    if outcome["status"] == "accepted":
        return RoundResult(machine_id, round_id, total_minor, reused_minor, win_minor,
                           outcome["position"], outcome.get("replayed", False))
    if outcome["code"] == ROUND_REJECTED_CODE:
        recorded = events_at(outcome["position"], outcome["position"])[0]
        raise RoundRejected(recorded.payload, recorded.position)
    if outcome["code"] == KEY_REUSED_CODE:
        raise RunnerError(RunnerErrorCode.IDEMPOTENCY_KEY_REUSED, outcome["message"],
                          round_id=round_id)
    raise MachinesError(outcome["code"], outcome["message"], round_id=round_id)


def _round_arguments(machine_id, round_id, stakes, total_minor, reused_minor, win_minor,
                     player_id) -> dict[str, Any]:
    if not isinstance(round_id, str) or not ROUND_ID.match(round_id):
        raise _invalid("round_id: 1-80 letters, digits, '.', '_' or '-'", field="round_id")
    for name, value in (("total", total_minor), ("reused", reused_minor), ("win", win_minor)):
        if type(value) is not int or not 0 <= value <= AMOUNT_MINOR_MAX:
            raise _invalid(f"{name}: a whole number of cents, 0 or more", field=name,
                           round_id=round_id)
    if len(stakes) > ROUND_STAKES_MAX:
        raise _invalid(f"a round has at most {ROUND_STAKES_MAX} stakes", round_id=round_id)
    clean = []
    for stake in stakes:
        amount = stake.get("amount_minor")
        if type(amount) is not int or not 0 < amount <= AMOUNT_MINOR_MAX:
            raise _invalid("each stake is a positive whole number of cents", field="stakes",
                           round_id=round_id)
        clean.append({"option": str(stake.get("option") or ""),
                      "unit": stake.get("unit") or None, "amount_minor": amount})
    if sum(stake["amount_minor"] for stake in clean) != total_minor:
        raise _invalid("the round total must equal the sum of its stakes, re-used ones"
                       " included (002:L3373)", field="total", round_id=round_id)
    if reused_minor > total_minor:
        raise _invalid("re-used stakes are part of the round total", field="reused",
                       round_id=round_id)
    return {"machine_id": machine_id, "round_id": round_id, "stakes": clean,
            "total_minor": total_minor, "reused_minor": reused_minor,
            "win_minor": win_minor, "player_id": player_id}


@dataclass(frozen=True, slots=True)
class JackpotLink:
    """What a round needs of a jackpot its machine takes part in (cached)."""

    jackpot_id: str
    pool_account: str
    amount: str
    contribution_bp: int
    qualifying_stake_minor: int


def _jackpot_links(machine: Machine) -> tuple[JackpotLink, ...]:
    """The machine's jackpot links, with their contribution terms (cached).

    The machines projection empties the cache when a jackpot is posted or
    a machine linked, so this process sees it at once (casino.rules.cache).
    """
    def load() -> tuple[JackpotLink, ...]:
        rows = MachineJackpot.objects.filter(links__machine_id=machine.id).order_by("id")
        return tuple(JackpotLink(j.id, jackpot_pool_account(j.venue, pool_name(
                                     j.id, j.scope, machine.id)),
                                 j.amount, int(j.terms.get("contribution_bp", 0)),
                                 int(j.terms.get("qualifying_stake_minor", 0)))
                     for j in rows)
    return cached(("machines.jackpot_links", machine.id), load)


def _adults_only_cached(place: Venue) -> bool:
    # Emptied by a premises posting (machines projection) or a venue change
    # (rules cache projection), like the machine rows.
    return cached(("machines.adults_only", place.code), lambda: _adults_only(place))


@dataclass(frozen=True)
class RoundContext:
    arguments: Mapping[str, Any]
    machine: Machine
    place: Venue
    version: int
    credit_minor: int
    credit_cite: str
    stakes: tuple[Mapping[str, Any], ...]   # units filled in
    attempts: tuple[tuple[Attempt, AttemptContext], ...]
    verdicts: tuple[Verdict, ...]           # the attempts' verdicts, in order
    caps: Mapping[str, tuple[int, str]]
    at: dt.datetime
    day: dt.date
    category: str
    links: tuple[JackpotLink, ...]
    credits: Mapping[str, PlayerCredit]     # online: the win split at the ceiling
    online: bool


class PlayRound(BaseCommand[RoundContext, RoundResult]):
    name = "machines.play_round"
    source = SOURCE
    # A cash-out that emptied the credit after the load (or, online, a
    # withdrawal from the gaming account, a deposit that filled it): load
    # again, and the check records machines.insufficient_credit.
    retry_on = (InsufficientFunds, BalanceMaxExceeded)

    def load(self, arguments: Mapping[str, Any], call: Call) -> RoundContext:
        machine = _machine(arguments["machine_id"])
        online = machine.kind in ONLINE_KINDS
        player = arguments["player_id"]
        if online and not player:
            raise _invalid("an online round is a player's, from their gaming account:"
                           " player_id is required", field="player_id",
                           round_id=arguments["round_id"])
        place = rules.venue(machine.venue)
        at = call.moment()
        version = rules.rulebook_in_force(place.rulebook_id, at.astimezone(
            dt.timezone.utc).date())
        caps = caps_for(machine.kind, version.venue_type,
                        False if online else _adults_only_cached(place),
                        long_interactive_rounds=machine.long_interactive_rounds,
                        online_game=machine.online_game)
        stakes = []
        for stake in arguments["stakes"]:
            unit = stake["unit"] or caps.default_unit
            if unit not in caps.units:
                raise _invalid(f"a {machine.kind} stake's unit is one of"
                               f" {', '.join(sorted(caps.units))}", field="stakes",
                               round_id=arguments["round_id"])
            stakes.append({**stake, "unit": unit})
        attempts, limits = self._attempts(arguments, machine, place, caps, stakes, at)
        verdicts = tuple(run_checks(ctx) for _, ctx in attempts)
        stream = machine_stream(machine.id)
        current = stream_version(stream)
        credits: dict[str, PlayerCredit] = {}
        if online:
            balance = Account.objects.filter(code=gaming_account(player)).values_list(
                "balance_minor", flat=True).first() or 0
            if arguments["win_minor"]:
                credits = credit_players({player: arguments["win_minor"]},
                                         currency=machine.currency, venue=place.code,
                                         open_payouts_due=False)
        else:
            balance = Account.objects.filter(code=credit_account(machine.id)).values_list(
                "balance_minor", flat=True).first() or 0
        return RoundContext(arguments, machine, place, current, balance,
                            NO_CREDIT_CITE, tuple(stakes), tuple(attempts), verdicts,
                            limits, at, venue_day(place, at), caps.category,
                            _jackpot_links(machine), credits, online)

    @staticmethod
    def _attempts(arguments, machine, place, caps: Caps, stakes, at):
        """Return the compliance attempts of a round and the caps they meet.

        One attempt per capped unit at its largest stake (every smaller one
        passes if it does), one for the round total, one for the win. An
        online solo game adds one for its round total against the player's
        limits and the loss cap alone (its stakes are capped one by one).
        """
        player = arguments["player_id"]
        base = dict(kind="stake", venue=place.code, currency=place.currency,
                    player_id=player, game=caps.game, category=caps.category, at=at)
        largest: dict[str, int] = {}
        for stake in stakes:
            if caps.units[stake["unit"]]:
                largest[stake["unit"]] = max(largest.get(stake["unit"], 0),
                                             stake["amount_minor"])
        wanted = [(Attempt(bet_unit=unit, amount_minor=amount, **base), False)
                  for unit, amount in largest.items()]
        if caps.round_unit:
            amount = sum(s["amount_minor"] for s in stakes if s["unit"] in caps.round_units)
            if amount:
                wanted.append((Attempt(bet_unit=caps.round_unit, amount_minor=amount,
                                       **base), False))
        if caps.total_for_limits and arguments["total_minor"]:
            wanted.append((Attempt(bet_unit=caps.default_unit,
                                   amount_minor=arguments["total_minor"], **base), True))
        if arguments["win_minor"]:
            wanted.append((Attempt(kind="win", venue=place.code, currency=place.currency,
                                   amount_minor=arguments["win_minor"], at=at), False))
        override = None
        if caps.rulebook_id:
            override = rules.rulebook_in_force(caps.rulebook_id,
                                               at.astimezone(dt.timezone.utc).date())
        attempts, limits = [], {}
        for attempt, limits_only in wanted:
            context = load_context(attempt)
            if limits_only:
                # The total is not a stake on one option: no Part IV row is
                # asked of it, only the player's limits and the loss cap.
                context = dataclasses.replace(context, stake_limit=None,
                                              rulebook_has_stake_limits=False)
            elif override is not None and attempt.bet_unit:
                # Decision machines.adults_only_premises: the hall's row.
                row = rules.stake_limit(override, attempt.game, attempt.bet_unit)
                if row is not None:
                    context = dataclasses.replace(
                        context, stake_limit=Figure(row.stake_minor_max, row.cite))
            if context.stake_limit is not None:
                limits[attempt.bet_unit] = (context.stake_limit.value, context.stake_limit.cite)
            attempts.append((attempt, context))
        return attempts, limits

    def check(self, context: RoundContext) -> Rejection | None:
        a, machine = context.arguments, context.machine
        rulebook = context.attempts[0][1].rulebook if context.attempts else machine.rulebook
        if machine.paylines and len(context.stakes) > machine.paylines:
            return self._rejection(context, Rule.STAKE_NOT_OFFERED,
                                   f"{len(context.stakes)} stakes on a machine of"
                                   f" {machine.paylines} paylines", len(context.stakes),
                                   machine.paylines, rulebook,
                                   "decision machines.stake_options",
                                   "A round stakes at most once per payline.")
        if machine.stake_options:
            offered = set(machine.stake_options)
            for stake in context.stakes:
                if stake["amount_minor"] not in offered:
                    return self._rejection(
                        context, Rule.STAKE_NOT_OFFERED,
                        f"a stake of {stake['amount_minor']} cents is not one of the"
                        f" machine's stake options", stake["amount_minor"], None, rulebook,
                        "decision machines.stake_options",
                        "The machine offers only its registered stake options.")
        if a["reused_minor"] > a["win_minor"]:
            return self._rejection(context, Rule.REUSED_ABOVE_WINS,
                                   "re-used stakes come from the round's own wins, and the"
                                   " round won less", a["reused_minor"], a["win_minor"],
                                   rulebook, "002:L3373", "Check the machine's round record.")
        checks_passed: list[str] = []
        for verdict in context.verdicts:
            if not verdict.allowed:
                f = verdict.failure
                return self._rejection(context, f.code, f.message, f.amount_minor,
                                       f.limit_minor, f.rulebook, f.cite, f.hint,
                                       checks_passed + list(verdict.checks_passed))
            checks_passed.extend(verdict.checks_passed)
        fresh = a["total_minor"] - a["reused_minor"]
        if fresh > context.credit_minor:
            where = "gaming account" if context.online else "machine"
            return self._rejection(context, Rule.INSUFFICIENT_CREDIT,
                                   f"the round stakes {fresh} cents of fresh money and the"
                                   f" {where} holds {context.credit_minor}", fresh,
                                   context.credit_minor, machine.rulebook,
                                   context.credit_cite,
                                   "A machine plays from its credit only; insert cash first."
                                   if not context.online else
                                   "Online play is from the gaming account; deposit first.")
        return None

    @staticmethod
    def _rejection(context: RoundContext, rule: str, message: str, amount: int,
                   limit: int | None, rulebook: str, cite: str, hint: str,
                   checks_passed: Sequence[str] = ()) -> Rejection:
        a = context.arguments
        payload = {"machine_id": context.machine.id, "venue": context.place.code,
                   "round_id": a["round_id"], "player_id": a["player_id"], "rule": rule,
                   "message": message, "amount_minor": amount, "limit_minor": limit,
                   "rulebook": rulebook, "cite": cite, "hint": hint,
                   "checks_passed": list(checks_passed)}
        event = NewEvent(stream=machine_stream(context.machine.id), type=ROUND_REJECTED,
                         payload=payload, schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=context.day)
        return Rejection(event, lambda position: RoundRejected(payload, position))

    def decide(self, context: RoundContext) -> Decision:
        a, machine = context.arguments, context.machine
        total, win, currency = a["total_minor"], a["win_minor"], machine.currency
        player = a["player_id"]
        postings = []
        accounts: list[Mapping[str, Any]] = []
        payload_extra: dict[str, Any] = {}
        if context.online:
            # Online: the gaming account pays the stakes and takes the win at
            # once, up to its ceiling (decision online.account.balance_overflow).
            if win:
                credit = context.credits[player]
                postings += [Posting(coin_out_account(machine.id), win, currency),
                             *credit.postings]
                accounts += accounts_to_open(context.credits.values())
                blocks = overflow_blocks(context.credits.values())
                if blocks:
                    payload_extra[OVERFLOW_KEY] = blocks
            if total:
                postings += [Posting(gaming_account(player), total, currency),
                             Posting(coin_in_account(machine.id), -total, currency)]
            payload_extra["activity"] = {
                "player": player, "venue": context.place.code,
                "day": context.day.isoformat(), "category": context.category,
                "staked_minor": total, "won_minor": win}
        else:
            if win:     # 002:L1381: the win is on the credit at once
                postings += [Posting(coin_out_account(machine.id), win, currency),
                             Posting(credit_account(machine.id), -win, currency)]
            if total:
                postings += [Posting(credit_account(machine.id), total, currency),
                             Posting(coin_in_account(machine.id), -total, currency)]
        contributions = {}
        for link in context.links:
            if (link.amount != "progressive" or not link.contribution_bp
                    or total < max(link.qualifying_stake_minor, 1)):
                continue
            # Decision machines.jackpot.contribution: the venue's posted rate
            # of the round's total, rounded down (the cent's fraction stays
            # with the house).
            amount = total * link.contribution_bp // 10_000
            if amount:
                contributions[link.jackpot_id] = amount
                postings += [Posting(contributions_account(machine.id), amount, currency),
                             Posting(link.pool_account, -amount, currency)]
        if contributions:
            payload_extra["jackpot_contributions"] = contributions
        passed = sorted({code for verdict in context.verdicts
                         for code in verdict.checks_passed})
        payload = {"machine_id": machine.id, "venue": context.place.code,
                   "round_id": a["round_id"], "player_id": player,
                   "stakes": list(context.stakes), "total_minor": total,
                   "reused_minor": a["reused_minor"],
                   "win_minor": win,
                   "caps": {unit: list(cap) for unit, cap in context.caps.items()},
                   "verdict": {"rulebook": machine.rulebook, "checks_passed": passed},
                   **payload_extra}
        event = NewEvent(stream=machine_stream(machine.id), type=ROUND_PLAYED,
                         payload=payload, postings=tuple(postings),
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=context.day)
        return Decision([event], {event.stream: context.version}, accounts=accounts)

    def refusal(self, context: RoundContext, error: LedgerError) -> Exception | None:
        if (context.online and isinstance(error, UnknownAccount)
                and error.details.get("account") == gaming_account(
                    context.arguments["player_id"])):
            # A player the cage never opened an account for holds nothing.
            return MachinesError(Code.INVALID_REQUEST, "the player has no gaming account",
                                 field="player_id")
        return None

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> RoundResult:
        event = events[0]
        if event.type == ROUND_REJECTED:
            raise RoundRejected(event.payload, event.position)
        p = event.payload
        return RoundResult(p["machine_id"], p["round_id"], p["total_minor"],
                           p["reused_minor"], p["win_minor"], event.position, replayed)


PLAY_ROUND = PlayRound()


def report_rounds(*, machine_id: str, rounds: Sequence[Mapping[str, Any]], actor: str,
                  idempotency_key: str | None = None) -> BatchResult:
    """Record a batch of up to 1,000 rounds, each accepted or refused on its own.

    A land machine's batch is one write (casino/machines/batches.py): every
    round decided in memory against the credit the rounds before it left,
    appended in one transaction with the batch's own record
    (`machines.batch_reported`) under the request's key. An online
    machine's rounds run one by one in one transaction, each under its own
    key. Either way a round id is the machine's key: a re-sent batch
    replays round by round and plays nothing again; a malformed or
    refused round is an outcome of its own and the others go in. The same
    key and body answers the batch again; another body under it is 409
    idempotency_key_reused.
    """
    from .batches import BatchRounds

    if not 1 <= len(rounds) <= BATCH_ROUNDS_MAX:
        raise _invalid(f"a batch holds 1 to {BATCH_ROUNDS_MAX} rounds", field="rounds")
    ids = [r.get("round_id") for r in rounds]
    if len(set(ids)) != len(ids):
        raise _invalid("a round id appears twice in the batch", field="rounds")
    machine = _machine(machine_id)
    if machine.kind not in ONLINE_KINDS:
        clean, invalid = [], {}
        for r in rounds:
            try:
                clean.append({**_round_arguments(
                    machine_id, r["round_id"], r.get("stakes", ()), r["total_minor"],
                    r.get("reused_minor", 0), r.get("win_minor", 0), r.get("player_id")),
                    "played_at": _jsonable(r).get("played_at")})
            except MachinesError as error:
                invalid[str(r["round_id"])] = {
                    "round_id": r["round_id"], "status": "refused", "code": str(error.code),
                    "rule": None, "message": error.message, "position": None,
                    "replayed": False}
                clean.append({"round_id": str(r["round_id"]), "invalid": True})
        arguments = {"machine_id": machine_id, "rounds": clean}
        return run(BatchRounds(machine_id, invalid), arguments, _call(actor, idempotency_key))
    arguments = {"machine_id": machine_id, "rounds": [_jsonable(r) for r in rounds]}
    call = _call(actor, idempotency_key)
    if idempotency_key is not None and recorded_request(idempotency_key) is not None:
        return run(ReportBatch(machine_id, ()), arguments, call)  # replay or 409
    outcomes = []
    with transaction.atomic():
        for r in rounds:
            outcomes.append(_one_round(machine_id, r, actor))
        return run(ReportBatch(machine_id, tuple(outcomes)), arguments, call)


def _one_round(machine_id: str, r: Mapping[str, Any], actor: str) -> dict[str, Any]:
    try:
        result = play_round(machine_id=machine_id, round_id=r["round_id"],
                            stakes=r.get("stakes", ()), total_minor=r["total_minor"],
                            reused_minor=r.get("reused_minor", 0),
                            win_minor=r.get("win_minor", 0), player_id=r.get("player_id"),
                            actor=actor, at=r.get("played_at"))
    except (CodedError, LedgerError) as error:
        details = getattr(error, "details", {}) or {}
        return {"round_id": r["round_id"], "status": "refused", "code": str(error.code),
                "rule": details.get("rule"), "message": str(error.message),
                "position": details.get("rejection_position")}
    return {"round_id": r["round_id"], "status": "accepted", "code": None, "rule": None,
            "message": "", "position": result.position, "replayed": result.replayed}


def _jsonable(r: Mapping[str, Any]) -> dict[str, Any]:
    clean = dict(r)
    if isinstance(clean.get("played_at"), dt.datetime):
        clean["played_at"] = clean["played_at"].isoformat()
    return clean


@dataclass(frozen=True, slots=True)
class BatchContext:
    machine: Machine
    place: Venue
    at: dt.datetime


class ReportBatch(BaseCommand[BatchContext, BatchResult]):
    """The batch's own record: its rounds' outcomes, under the request's key."""

    name = "machines.report_rounds"
    source = SOURCE

    def __init__(self, machine_id: str, outcomes: tuple[Mapping[str, Any], ...]) -> None:
        self.machine_id = machine_id
        self.outcomes = outcomes

    def load(self, arguments: Mapping[str, Any], call: Call) -> BatchContext:
        machine = _machine(self.machine_id)
        return BatchContext(machine, rules.venue(machine.venue), call.moment())

    def venue_of(self, context: BatchContext) -> Any:
        return None     # each round's own time was checked with the round

    def decide(self, context: BatchContext) -> Decision:
        outcomes = [{**o, "replayed": o.get("replayed", False)} for o in self.outcomes]
        payload = {"machine_id": context.machine.id, "rounds": outcomes,
                   "accepted": sum(o["status"] == "accepted" for o in outcomes),
                   "refused": sum(o["status"] == "refused" for o in outcomes)}
        event = NewEvent(stream=batch_stream(context.machine.id), type=BATCH_REPORTED,
                         payload=payload, schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=venue_day(context.place,
                                                                      context.at))
        return Decision([event])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> BatchResult:
        # The rounds as the batch first met them (`replayed`: already on the
        # record then), so a replay answers the first answer.
        p = events[0].payload
        return BatchResult(p["machine_id"], p["accepted"], p["refused"], tuple(p["rounds"]),
                           events[0].position, replayed)


# ---------------------------------------------------------------------------
# Credit and vouchers
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreditContext:
    machine: Machine
    place: Venue
    version: int
    credit_minor: int
    amount_minor: int
    voucher_id: str
    at: dt.datetime


def insert_cash(*, machine_id: str, amount_minor: int, actor: str,
                idempotency_key: str | None = None) -> CreditResult:
    """Put cash into a machine: its cash box and its credit grow by the amount."""
    if type(amount_minor) is not int or not 0 < amount_minor <= AMOUNT_MINOR_MAX:
        raise _invalid("amount: a positive whole number of cents", field="amount")
    return run(INSERT_CASH, {"machine_id": machine_id, "amount_minor": amount_minor},
               _call(actor, idempotency_key))


def cash_out(*, machine_id: str, actor: str, idempotency_key: str | None = None
             ) -> CreditResult:
    """Print the machine's whole credit on a voucher (a liability until redeemed).

    409 machines.nothing_to_cash_out when the credit is empty.
    """
    return run(CASH_OUT, {"machine_id": machine_id}, _call(actor, idempotency_key))


class _CreditCommand(BaseCommand[CreditContext, CreditResult]):
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> CreditContext:
        machine = _machine(arguments["machine_id"])
        if machine.kind in ONLINE_KINDS:
            raise MachinesError(Code.ONLINE_PLAY_UNAVAILABLE,
                                "an online machine holds no credit: it plays from the"
                                " player's gaming account", machine_id=machine.id)
        stream = machine_stream(machine.id)
        version = stream_version(stream)
        credit = Account.objects.filter(code=credit_account(machine.id)).values_list(
            "balance_minor", flat=True).first() or 0
        return CreditContext(machine, rules.venue(machine.venue), version, credit,
                             arguments.get("amount_minor", 0),
                             f"v-{uuid.uuid4().hex[:16]}", call.moment())

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> CreditResult:
        p = events[0].payload
        return CreditResult(p["machine_id"], p["amount_minor"], events[0].position,
                            p.get("voucher_id"), replayed)


class InsertCash(_CreditCommand):
    name = "machines.insert_cash"

    def decide(self, context: CreditContext) -> Decision:
        m, amount = context.machine, context.amount_minor
        event = NewEvent(
            stream=machine_stream(m.id), type=CASH_INSERTED,
            payload={"machine_id": m.id, "venue": m.venue, "amount_minor": amount},
            postings=(Posting(cash_account(m.id), amount, m.currency),
                      Posting(credit_account(m.id), -amount, m.currency)),
            schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=venue_day(context.place, context.at))
        return Decision([event], {event.stream: context.version})


class CashOut(_CreditCommand):
    name = "machines.cash_out"

    def check(self, context: CreditContext) -> Rejection | None:
        if context.credit_minor <= 0:
            raise MachinesError(Code.NOTHING_TO_CASH_OUT,
                                f"machine {context.machine.id} holds no credit",
                                machine_id=context.machine.id)
        return None

    def decide(self, context: CreditContext) -> Decision:
        m, amount, voucher = context.machine, context.credit_minor, context.voucher_id
        event = NewEvent(
            stream=machine_stream(m.id), type=VOUCHER_ISSUED,
            payload={"machine_id": m.id, "venue": m.venue, "voucher_id": voucher,
                     "amount_minor": amount},
            postings=(Posting(credit_account(m.id), amount, m.currency),
                      Posting(voucher_account(m.venue, voucher), -amount, m.currency)),
            schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=venue_day(context.place, context.at))
        terms = dict(code=voucher_account(m.venue, voucher), type=AccountType.LIABILITY,
                     currency=m.currency, name=f"Voucher {voucher} of {m.venue}",
                     must_not_go_negative=True)
        return Decision([event], {event.stream: context.version}, accounts=[terms])


INSERT_CASH = InsertCash()
CASH_OUT = CashOut()
PAY_OUT_TO = ("cash_desk", "account")


def pay_out(*, machine_id: str, to: str, player_id: str | None = None, actor: str,
            idempotency_key: str | None = None) -> CreditResult:
    """Pay the machine's whole credit out by hand: at the cash desk or to an account.

    002:L1399 (and L1427-1429): a win may be paid at the venue's cash desk,
    verified from the machine, or to the player's payment card; the credit
    leaves the machine as cancelled credits (its meter), to the cage's cash
    (`cash_desk`) or to the player's gaming account (`account`, up to its
    ceiling, the rest owed to the bank account: decision
    online.account.balance_overflow). 409 machines.nothing_to_cash_out.
    """
    if to not in PAY_OUT_TO:
        raise _invalid(f"to: one of {', '.join(PAY_OUT_TO)}", field="to")
    if (to == "account") != bool(player_id):
        raise _invalid("a pay-out to an account names its player, and only then",
                       field="player_id")
    return run(PAY_OUT, {"machine_id": machine_id, "to": to, "player_id": player_id},
               _call(actor, idempotency_key))


@dataclass(frozen=True, slots=True)
class PayOutContext:
    credit: CreditContext
    to: str
    player_id: str | None
    credits: Mapping[str, PlayerCredit]


class PayOut(BaseCommand[PayOutContext, CreditResult]):
    name = "machines.pay_out"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> PayOutContext:
        context = CASH_OUT.load(arguments, call)
        credits = {}
        if arguments["to"] == "account" and context.credit_minor > 0:
            credits = credit_players({arguments["player_id"]: context.credit_minor},
                                     currency=context.machine.currency,
                                     venue=context.place.code, open_payouts_due=False)
        return PayOutContext(context, arguments["to"], arguments["player_id"], credits)

    def check(self, context: PayOutContext) -> Rejection | None:
        return CASH_OUT.check(context.credit)

    def decide(self, context: PayOutContext) -> Decision:
        c = context.credit
        m, amount = c.machine, c.credit_minor
        postings = [Posting(credit_account(m.id), amount, m.currency)]
        accounts: list[Mapping[str, Any]] = []
        payload: dict[str, Any] = {"machine_id": m.id, "venue": m.venue,
                                   "amount_minor": amount, "to": context.to,
                                   "player_id": context.player_id,
                                   "cite": "002:L1399"}
        if context.to == "cash_desk":
            postings.append(Posting(cage_cash(m.venue), -amount, m.currency))
            accounts.append(dict(code=cage_cash(m.venue), type=AccountType.ASSET,
                                 currency=m.currency, name=f"Cage cash at {m.venue}"))
        else:
            postings += list(context.credits[context.player_id].postings)
            accounts += accounts_to_open(context.credits.values())
            blocks = overflow_blocks(context.credits.values())
            if blocks:
                payload[OVERFLOW_KEY] = blocks
        event = NewEvent(stream=machine_stream(m.id), type=CREDITS_CANCELLED, payload=payload,
                         postings=tuple(postings), schema_version=SCHEMA_VERSION,
                         occurred_at=c.at, gaming_day=venue_day(c.place, c.at))
        return Decision([event], {event.stream: c.version}, accounts=accounts)

    def refusal(self, context: PayOutContext, error: LedgerError) -> Exception | None:
        if isinstance(error, UnknownAccount) and context.player_id:
            return _invalid("the player has no gaming account", field="player_id")
        return None

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> CreditResult:
        p = events[0].payload
        return CreditResult(p["machine_id"], p["amount_minor"], events[0].position, None,
                            replayed)


PAY_OUT = PayOut()


def redeem_voucher(*, voucher_id: str, machine_id: str | None = None, actor: str,
                   idempotency_key: str | None = None) -> VoucherResult:
    """Redeem a voucher exactly once: cash at its venue's cage, or credit on a machine.

    The machine must stand at the voucher's venue (422
    machines.voucher_other_venue); a second redemption is 409
    machines.voucher_redeemed (the voucher stream's one event, and its
    account can never go below zero).
    """
    return run(REDEEM_VOUCHER, {"voucher_id": voucher_id, "machine_id": machine_id},
               _call(actor, idempotency_key))


@dataclass(frozen=True, slots=True)
class VoucherContext:
    voucher: Voucher
    place: Venue
    machine: Machine | None
    machine_version: int
    at: dt.datetime


class RedeemVoucher(BaseCommand[VoucherContext, VoucherResult]):
    name = "machines.redeem_voucher"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> VoucherContext:
        voucher = Voucher.objects.filter(id=arguments["voucher_id"]).first()
        if voucher is None:
            raise MachinesError(Code.UNKNOWN_VOUCHER, f"no voucher {arguments['voucher_id']!r}", voucher_id=arguments["voucher_id"])
        machine, version = None, 0
        if arguments["machine_id"] is not None:
            machine = _machine(arguments["machine_id"])
            if machine.kind in ONLINE_KINDS:
                raise MachinesError(Code.ONLINE_PLAY_UNAVAILABLE,
                                    "an online machine takes no voucher",
                                    machine_id=machine.id)
            version = stream_version(machine_stream(machine.id))
        return VoucherContext(voucher, rules.venue(voucher.venue), machine, version,
                              call.moment())

    def check(self, context: VoucherContext) -> Rejection | None:
        voucher, machine = context.voucher, context.machine
        if voucher.state == VoucherState.REDEEMED:
            raise MachinesError(Code.VOUCHER_REDEEMED, f"voucher {voucher.id} was redeemed", voucher_id=voucher.id,
                                redeemed_position=voucher.redeemed_position)
        if machine is not None and machine.venue != voucher.venue:
            raise MachinesError(Code.VOUCHER_OTHER_VENUE,
                                f"voucher {voucher.id} of {voucher.venue} is redeemed only at"
                                f" {voucher.venue}, not at {machine.venue}",
                                voucher_id=voucher.id, venue=voucher.venue)
        return None

    def decide(self, context: VoucherContext) -> Decision:
        voucher, machine, place = context.voucher, context.machine, context.place
        amount, currency = voucher.amount_minor, place.currency
        into = credit_account(machine.id) if machine else cage_cash(place.code)
        payload = {"voucher_id": voucher.id, "venue": voucher.venue, "amount_minor": amount,
                   "at": "machine" if machine else "cage",
                   "machine_id": machine.id if machine else None}
        stream = voucher_stream(voucher.venue, voucher.id)
        event = NewEvent(stream=stream, type=VOUCHER_REDEEMED, payload=payload,
                         postings=(Posting(voucher_account(voucher.venue, voucher.id),
                                           amount, currency),
                                   Posting(into, -amount, currency)),
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(place, context.at))
        expected = {stream: 0}
        accounts = []
        if machine is not None:
            expected[machine_stream(machine.id)] = context.machine_version
        else:
            # The cage's own terms for its cash account, if it never opened one.
            accounts.append(dict(code=into, type=AccountType.ASSET, currency=currency,
                                 name=f"Cage cash at {place.code}"))
        return Decision([event], expected, accounts=accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> VoucherResult:
        p = events[0].payload
        return VoucherResult(p["voucher_id"], p["venue"], p["amount_minor"], p["at"],
                             p["machine_id"], events[0].position, replayed)


REDEEM_VOUCHER = RedeemVoucher()
