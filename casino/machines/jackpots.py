"""Machine jackpots: posted by the venue, fed per qualifying round, paid on a hit.

Seed 002:L1387-1389: every slot and special machine may pay mystery
("yllätysvoittotyyppinen": drawn as a surprise, no combination needed) or
combination jackpots (triggered by the winning combination that entitles
to it); taking part may need a stake or other terms the game instructions
state. The seed gives no rate, seed or reset: they are the venue's posted
configuration (`terms`), recorded with the jackpot, never constants here.

A jackpot has
- a type: mystery or combination;
- a scope: a single machine (its own pool), a machine within a group (each
  machine of the group its own pool, the group's terms) or a machine group
  (one pool shared by the group);
- who draws it: the machine or an external device (a hit names who drew
  it, and must match);
- an amount: fixed (`fixed_minor`), by multiplier (`multiplier` times the
  hit round's total stake) or progressive (the pool: seeded with
  `seed_minor` when posted, grown by `contribution_bp` of every qualifying
  round's total, re-seeded with `reset_minor` after a hit).

Money (debit positive):

    posted / linked  house/<venue>/jackpot_funding +S   pool -S    (progressive seed)
    round            machine/<m>/jackpot_contributions +C   pool -C
    hit (progressive) pool +P   machine/<m>/credit -P (online: the gaming account)
                      house/<venue>/jackpot_funding +R   pool -R   (re-seed)
    hit (fixed, multiplier) house/<venue>/jackpot_funding +P   credit -P

P is the amount capped at the venue's maximum win (002:L3493-3497, the
machine's maximum win); decision machines.jackpot.max_win: what the cap
cuts from a progressive pool stays in the pool for the next hit, and a
fixed or multiplied amount above the cap is not owed.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino.accounts import gaming_account
from casino.compliance.pipeline import venue_day
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from casino.wallet import PlayerCredit, accounts_to_open, credit_players
from ledger import NewEvent, Posting, RecordedEvent
from ledger.read import Account, AccountType, stream_version

from .errors import MachinesError, MachinesErrorCode as Code
from .events import (
    JACKPOT_CONFIGURED,
    JACKPOT_HIT_PAID,
    JACKPOT_HIT_REJECTED,
    SCHEMA_VERSION,
    SOURCE,
    credit_account,
    jackpot_funding_account,
    jackpot_pool_account,
    jackpot_stream,
    round_key,
)
from .models import (
    ONLINE_KINDS,
    JackpotAmount,
    JackpotDrawnBy,
    JackpotScope,
    JackpotType,
    Machine,
    MachineJackpot,
    MachineJackpotHit,
    MachineRound,
)

JACKPOT_ID = re.compile(r"^[A-Za-z0-9._-]{1,40}$")
JACKPOT_MACHINES_MAX = 500
CONTRIBUTION_BP_MAX = 10_000
AMOUNT_MINOR_MAX = 10**10
MULTIPLIER_MAX = 100_000


def _invalid(message: str, **details: Any) -> MachinesError:
    return MachinesError(Code.INVALID_REQUEST, message, **details)


def _call(actor: str, key: str | None) -> Call:
    return Call(actor=actor, key=key, source=SOURCE)


def pool_name(jackpot_id: str, scope: str, machine_id: str) -> str:
    """The pool a machine's contributions and hits use: the group's, or its own."""
    return jackpot_id if scope == JackpotScope.MACHINE_GROUP else f"{jackpot_id}.{machine_id}"


def pools_of(jackpot_id: str, venue: str, scope: str, machines: Sequence[str]
             ) -> dict[str, str]:
    """Each machine's pool account."""
    return {m: jackpot_pool_account(venue, pool_name(jackpot_id, scope, m)) for m in machines}


def pool_terms(code: str, currency: str, jackpot_id: str) -> dict[str, Any]:
    return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                name=f"Machine jackpot {jackpot_id} pool", must_not_go_negative=True)


def funding_terms(venue: str, currency: str) -> dict[str, Any]:
    return dict(code=jackpot_funding_account(venue), type=AccountType.EXPENSE,
                currency=currency, name=f"Jackpot seeding at {venue}")


def seed_postings(venue: str, pools: Sequence[str], seed_minor: int, currency: str
                  ) -> list[Posting]:
    """The venue funds each new pool with the posted seed."""
    postings = []
    for pool in pools:
        if seed_minor:
            postings += [Posting(jackpot_funding_account(venue), seed_minor, currency),
                         Posting(pool, -seed_minor, currency)]
    return postings


# ---------------------------------------------------------------------------
# Posting a jackpot
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JackpotResult:
    jackpot_id: str
    venue: str
    type: str
    scope: str
    drawn_by: str
    amount: str
    terms: Mapping[str, Any]
    machines: tuple[str, ...]
    pools: Mapping[str, str]
    position: int
    replayed: bool = False


def _terms(amount: str, terms: Mapping[str, Any], type_: str) -> dict[str, Any]:
    """Validate the venue's posted terms for the amount kind (pure)."""
    def whole(name: str, low: int, high: int, default: int | None = None) -> int:
        value = terms.get(name, default)
        if type(value) is not int or not low <= value <= high:
            raise _invalid(f"terms.{name}: a whole number from {low} to {high}",
                           field=f"terms.{name}")
        return value

    known = {"contribution_bp", "seed_minor", "reset_minor", "fixed_minor", "multiplier",
             "qualifying_stake_minor", "combination"}
    unknown = sorted(set(terms) - known)
    if unknown:
        raise _invalid(f"unknown terms: {', '.join(unknown)}", field="terms")
    clean: dict[str, Any] = {"qualifying_stake_minor": whole("qualifying_stake_minor", 0,
                                                             AMOUNT_MINOR_MAX, 0)}
    if amount == JackpotAmount.PROGRESSIVE:
        clean["contribution_bp"] = whole("contribution_bp", 1, CONTRIBUTION_BP_MAX)
        clean["seed_minor"] = whole("seed_minor", 0, AMOUNT_MINOR_MAX)
        clean["reset_minor"] = whole("reset_minor", 0, AMOUNT_MINOR_MAX, clean["seed_minor"])
    elif amount == JackpotAmount.FIXED:
        clean["fixed_minor"] = whole("fixed_minor", 1, AMOUNT_MINOR_MAX)
    else:
        clean["multiplier"] = whole("multiplier", 1, MULTIPLIER_MAX)
    if type_ == JackpotType.COMBINATION:
        combination = terms.get("combination")
        if not isinstance(combination, str) or not 1 <= len(combination) <= 80:
            raise _invalid("a combination jackpot names its combination (terms.combination)",
                           field="terms.combination")
        clean["combination"] = combination
    return clean


def configure_jackpot(*, jackpot_id: str, venue: str, name: str, type: str, scope: str,
                      drawn_by: str, amount: str, terms: Mapping[str, Any],
                      machines: Sequence[str], actor: str,
                      idempotency_key: str | None = None) -> JackpotResult:
    """Post a machine jackpot at a venue with its machines and terms (002:L1387-1389).

    400 machines.invalid_request for a bad type, scope, amount or terms (a
    single-machine jackpot has one machine); 404 machines.unknown_machine
    for a machine not at the venue; 409 machines.jackpot_exists.
    A progressive jackpot's pools are opened and seeded by the venue.
    """
    if not isinstance(jackpot_id, str) or not JACKPOT_ID.match(jackpot_id):
        raise _invalid("jackpot_id: 1-40 letters, digits, '.', '_' or '-'",
                       field="jackpot_id")
    for field, value, choices in (("type", type, JackpotType), ("scope", scope, JackpotScope),
                                  ("drawn_by", drawn_by, JackpotDrawnBy),
                                  ("amount", amount, JackpotAmount)):
        if value not in choices.values:
            raise _invalid(f"{field}: one of {', '.join(choices.values)}", field=field)
    members = sorted({str(m) for m in machines})
    if not 1 <= len(members) <= JACKPOT_MACHINES_MAX:
        raise _invalid(f"a jackpot has 1 to {JACKPOT_MACHINES_MAX} machines", field="machines")
    if scope == JackpotScope.SINGLE_MACHINE and len(members) != 1:
        raise _invalid("a single-machine jackpot has one machine", field="machines")
    arguments = {"jackpot_id": jackpot_id, "venue": venue, "name": str(name), "type": type,
                 "scope": scope, "drawn_by": drawn_by, "amount": amount,
                 "terms": _terms(amount, terms, type), "machines": members}
    return run(CONFIGURE_JACKPOT, arguments, _call(actor, idempotency_key))


@dataclass(frozen=True, slots=True)
class ConfigureContext:
    arguments: Mapping[str, Any]
    place: Venue
    at: dt.datetime


class ConfigureJackpot(BaseCommand[ConfigureContext, JackpotResult]):
    name = "machines.configure_jackpot"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> ConfigureContext:
        if stream_version(jackpot_stream(arguments["jackpot_id"])):
            raise MachinesError(Code.JACKPOT_EXISTS,
                                f"jackpot {arguments['jackpot_id']} is posted",
                                jackpot_id=arguments["jackpot_id"])
        place = rules.venue(arguments["venue"])
        found = set(Machine.objects.filter(id__in=arguments["machines"], venue=place.code)
                    .values_list("id", flat=True))
        missing = sorted(set(arguments["machines"]) - found)
        if missing:
            raise MachinesError(Code.UNKNOWN_MACHINE,
                                f"no machine {missing[0]!r} at {place.code}",
                                machine_id=missing[0])
        return ConfigureContext(arguments, place, call.moment())

    def decide(self, context: ConfigureContext) -> Decision:
        a, place = context.arguments, context.place
        pools = pools_of(a["jackpot_id"], place.code, a["scope"], a["machines"])
        distinct = sorted(set(pools.values()))
        postings: list[Posting] = []
        if a["amount"] == JackpotAmount.PROGRESSIVE:
            postings = seed_postings(place.code, distinct, a["terms"]["seed_minor"],
                                     place.currency)
        stream = jackpot_stream(a["jackpot_id"])
        event = NewEvent(stream=stream, type=JACKPOT_CONFIGURED,
                         payload={**a, "venue": place.code, "currency": place.currency,
                                  "pools": pools},
                         postings=tuple(postings), schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=venue_day(place, context.at))
        accounts = [pool_terms(code, place.currency, a["jackpot_id"]) for code in distinct]
        accounts.append(funding_terms(place.code, place.currency))
        return Decision([event], {stream: 0}, accounts=accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> JackpotResult:
        p = events[0].payload
        return JackpotResult(p["jackpot_id"], p["venue"], p["type"], p["scope"],
                             p["drawn_by"], p["amount"], p["terms"], tuple(p["machines"]),
                             p["pools"], events[0].position, replayed)


CONFIGURE_JACKPOT = ConfigureJackpot()


# ---------------------------------------------------------------------------
# A hit
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HitResult:
    jackpot_id: str
    machine_id: str
    round_id: str
    amount_minor: int
    paid_minor: int
    capped_minor: int
    reseed_minor: int
    position: int
    replayed: bool = False


def pay_jackpot_hit(*, jackpot_id: str, machine_id: str, round_id: str, drawn_by: str,
                    combination: str | None = None, actor: str,
                    idempotency_key: str | None = None) -> HitResult:
    """Check a hit against the jackpot's terms, pay it and re-seed (002:L1387-1389).

    The hit names the round it came with (the machine's round id): the round
    must be on the record as played, on a machine of the jackpot, at or
    above the qualifying stake; it is drawn by whom the jackpot says; a
    combination jackpot's hit names its combination. A hit that fails is
    recorded (`machines.jackpot_hit_rejected`, 422 with the reason). Paid
    onto the machine's credit at once (002:L1381; online: the player's
    gaming account up to its ceiling), capped at the venue's maximum win.
    A round's hit of a jackpot is paid once: another claim for it is 409
    machines.jackpot_already_paid (the jackpot's stream version guards the
    pay-out against a concurrent one). Keyed by the caller's key, or else by
    `machine:<machine>/<round>/jackpot/<jackpot>/<drawn by>/<combination>`.
    """
    arguments = {"jackpot_id": jackpot_id, "machine_id": machine_id, "round_id": round_id,
                 "drawn_by": drawn_by, "combination": combination}
    # One hit per jackpot and round; a refused claim (another drawer, another
    # combination) does not block the right one.
    key = idempotency_key or (f"{round_key(machine_id, round_id)}/jackpot/{jackpot_id}/"
                              f"{drawn_by}/{combination or ''}")
    return run(PAY_HIT, arguments, _call(actor, key))


@dataclass(frozen=True, slots=True)
class HitContext:
    arguments: Mapping[str, Any]
    jackpot: MachineJackpot
    machine: Machine | None
    place: Venue
    version: int
    round: Mapping[str, Any] | None
    pool: str | None
    pool_minor: int
    win_max: tuple[int, str] | None
    credits: Mapping[str, PlayerCredit]
    at: dt.datetime
    day: dt.date


class PayHit(BaseCommand[HitContext, HitResult]):
    name = "machines.pay_jackpot_hit"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> HitContext:
        jackpot = MachineJackpot.objects.filter(id=arguments["jackpot_id"]).first()
        if jackpot is None:
            raise MachinesError(Code.UNKNOWN_JACKPOT, f"no jackpot {arguments['jackpot_id']!r}",
                                jackpot_id=arguments["jackpot_id"])
        version = stream_version(jackpot_stream(jackpot.id))
        if MachineJackpotHit.objects.filter(
                key=f"{jackpot.id}/{arguments['machine_id']}/{arguments['round_id']}").exists():
            raise MachinesError(Code.JACKPOT_ALREADY_PAID,
                                f"round {arguments['round_id']} of {arguments['machine_id']}"
                                f" hit {jackpot.id} already", jackpot_id=jackpot.id,
                                round_id=arguments["round_id"])
        machine = Machine.objects.filter(id=arguments["machine_id"],
                                         jackpot_links__jackpot=jackpot).first()
        played = MachineRound.objects.filter(
            key=f"{arguments['machine_id']}/{arguments['round_id']}", status="played").values(
            "total_minor", "player_id").first()
        place = rules.venue(jackpot.venue)
        at = call.moment()
        pool, pool_minor = None, 0
        if machine is not None:
            pool = jackpot_pool_account(jackpot.venue, pool_name(jackpot.id, jackpot.scope,
                                                                 machine.id))
            pool_minor = Account.objects.filter(code=pool).values_list(
                "balance_minor", flat=True).first() or 0
        version_in_force = rules.rulebook_in_force(place.rulebook_id,
                                                   at.astimezone(dt.timezone.utc).date())
        row = rules.win_limit(version_in_force)
        win_max = (row.win_minor_max, row.cite) if row else None
        context = HitContext(arguments, jackpot, machine, place, version, played, pool,
                             pool_minor, win_max, {}, at, venue_day(place, at))
        if (machine is not None and machine.kind in ONLINE_KINDS and played is not None
                and self._failure(context) is None):
            player = played["player_id"]
            credits = credit_players({player: self._amounts(context)[1]},
                                     currency=jackpot.currency, venue=place.code,
                                     open_payouts_due=False)
            context = HitContext(arguments, jackpot, machine, place, version, played, pool,
                                 pool_minor, win_max, credits, at, context.day)
        return context

    @staticmethod
    def _failure(context: HitContext) -> tuple[str, str] | None:
        """Why the hit is not the jackpot's, or None (pure)."""
        a, jackpot, terms = context.arguments, context.jackpot, context.jackpot.terms
        if context.machine is None:
            return ("not_linked", f"machine {a['machine_id']} does not take part in"
                                  f" jackpot {jackpot.id}")
        if context.round is None:
            return ("round_not_played", f"no played round {a['round_id']} on"
                                        f" {a['machine_id']}")
        if a["drawn_by"] != jackpot.drawn_by:
            return ("drawn_by", f"jackpot {jackpot.id} is drawn by the {jackpot.drawn_by},"
                                f" not the {a['drawn_by']}")
        if (jackpot.type == JackpotType.COMBINATION
                and a["combination"] != terms.get("combination")):
            return ("combination", f"a combination jackpot is triggered by"
                                   f" {terms.get('combination')!r} (002:L1389)")
        if context.round["total_minor"] < terms.get("qualifying_stake_minor", 0):
            return ("not_qualifying", f"the round staked {context.round['total_minor']},"
                                      f" under the qualifying"
                                      f" {terms['qualifying_stake_minor']} (002:L1389)")
        if jackpot.amount == JackpotAmount.PROGRESSIVE and context.pool_minor <= 0:
            return ("pool_empty", f"the pool of {jackpot.id} holds nothing")
        return None

    @staticmethod
    def _amounts(context: HitContext) -> tuple[int, int, int]:
        """Return (amount, paid, capped) for a hit that passed (pure)."""
        jackpot, terms = context.jackpot, context.jackpot.terms
        if jackpot.amount == JackpotAmount.PROGRESSIVE:
            amount = context.pool_minor
        elif jackpot.amount == JackpotAmount.FIXED:
            amount = terms["fixed_minor"]
        else:
            amount = terms["multiplier"] * context.round["total_minor"]
        paid = amount if context.win_max is None else min(amount, context.win_max[0])
        return amount, paid, amount - paid

    def check(self, context: HitContext) -> Rejection | None:
        failure = self._failure(context)
        if failure is None:
            return None
        reason, message = failure
        a = context.arguments
        payload = {"jackpot_id": context.jackpot.id, "machine_id": a["machine_id"],
                   "round_id": a["round_id"], "venue": context.jackpot.venue,
                   "reason": reason, "message": message, "cite": "002:L1387-1389"}
        event = NewEvent(stream=jackpot_stream(context.jackpot.id), type=JACKPOT_HIT_REJECTED,
                         payload=payload, schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=context.day)
        return Rejection(event, lambda position: _hit_rejected(payload, position))

    def decide(self, context: HitContext) -> Decision:
        jackpot, machine, currency = context.jackpot, context.machine, context.jackpot.currency
        amount, paid, capped = self._amounts(context)
        funding = jackpot_funding_account(jackpot.venue)
        source = context.pool if jackpot.amount == JackpotAmount.PROGRESSIVE else funding
        postings = [Posting(source, paid, currency)]
        accounts: list[Mapping[str, Any]] = [funding_terms(jackpot.venue, currency)]
        player = context.round.get("player_id") or None
        if machine.kind in ONLINE_KINDS:
            postings += list(context.credits[player].postings)
            accounts += accounts_to_open(context.credits.values())
        else:
            postings.append(Posting(credit_account(machine.id), -paid, currency))
        reseed = 0
        if jackpot.amount == JackpotAmount.PROGRESSIVE:
            reseed = jackpot.terms.get("reset_minor", 0)
            if reseed:
                postings += [Posting(funding, reseed, currency),
                             Posting(context.pool, -reseed, currency)]
        payload = {"jackpot_id": jackpot.id, "machine_id": machine.id,
                   "venue": jackpot.venue, "round_id": context.arguments["round_id"],
                   "player_id": player, "type": jackpot.type, "amount": jackpot.amount,
                   "drawn_by": jackpot.drawn_by, "pool": context.pool,
                   "pool_before_minor": context.pool_minor, "amount_minor": amount,
                   "paid_minor": paid, "capped_minor": capped,
                   "win_cap": ({"limit_minor": context.win_max[0], "cite": context.win_max[1]}
                               if capped else None),
                   "reseed_minor": reseed}
        stream = jackpot_stream(jackpot.id)
        event = NewEvent(stream=stream, type=JACKPOT_HIT_PAID, payload=payload,
                         postings=tuple(postings), schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=context.day)
        return Decision([event], {stream: context.version}, accounts=accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> HitResult:
        event = events[0]
        if event.type == JACKPOT_HIT_REJECTED:
            raise _hit_rejected(event.payload, event.position)
        p = event.payload
        return HitResult(p["jackpot_id"], p["machine_id"], p["round_id"], p["amount_minor"],
                         p["paid_minor"], p["capped_minor"], p["reseed_minor"],
                         event.position, replayed)


def _hit_rejected(payload: Mapping[str, Any], position: int | None) -> MachinesError:
    return MachinesError(Code.JACKPOT_HIT_REJECTED, payload["message"],
                         jackpot_id=payload["jackpot_id"], machine_id=payload["machine_id"],
                         round_id=payload["round_id"], reason=payload["reason"],
                         cite=payload["cite"], rejection_position=position)


PAY_HIT = PayHit()


def link_terms_for_registration(jackpot: MachineJackpot, machine_id: str
                                ) -> tuple[list[dict[str, Any]], list[Posting]]:
    """A machine linked at registration: its own pool opened and seeded, if it has one."""
    if jackpot.scope == JackpotScope.MACHINE_GROUP:
        return [], []
    code = jackpot_pool_account(jackpot.venue, pool_name(jackpot.id, jackpot.scope,
                                                         machine_id))
    accounts = [pool_terms(code, jackpot.currency, jackpot.id),
                funding_terms(jackpot.venue, jackpot.currency)]
    postings = []
    if jackpot.amount == JackpotAmount.PROGRESSIVE:
        postings = seed_postings(jackpot.venue, [code], jackpot.terms.get("seed_minor", 0),
                                 jackpot.currency)
    return accounts, postings
