"""A land machine's batch of rounds as one write: checked in memory, appended at once.

A machine controller reports up to 1,000 rounds in one request. Run one by
one through the runner, each round costs a load (its machine's stream
version and credit, its compliance contexts), an append and a projection
update, a dozen statements; a network of machines cannot afford that. So
a land machine's batch is one runner command (`machines.report_rounds`,
under the request's key):

- load, once per batch: the machine (cached), its venue and caps, its
  stream version and credit, the rounds already on the record among the
  batch's round ids (`MachineRound`, one statement), and one compliance
  context per bet unit, player and gaming day (the checks are pure
  functions of it; the amount is set per stake);
- decide: each round, in order, exactly as `PlayRound` would: the machine's
  stake options, re-used stakes, the compliance pipeline (Part IV caps,
  maximum win, age and self-exclusion of a card-in player) and the credit,
  which the rounds before it moved; a round that passes is a
  `machines.round_played` event with its postings, a round that fails a
  `machines.round_rejected` event with its rule: each round is accepted or
  refused on its own, the others go in;
- one append of every round's event and the batch's own record
  (`machines.batch_reported`), expecting the machine stream's version, so
  a concurrent cash-out (which also writes that stream) makes the batch
  load again, never spend credit twice.

A round is the machine's: its id is its key whoever sends it. A round id
already on the record is not played again: with the same content it
answers as recorded (`replayed`), with other content it is refused with
`request.idempotency_key_reused` (nothing written for it). Online rounds
(the gaming account, the player's limits and loss caps, one player's
counters per round) go round by round through `PlayRound`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino.compliance.checks import AttemptContext, Figure, Verdict, run_checks
from casino.compliance.pipeline import Attempt, load_context, venue_day
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.runner import BaseCommand, Call, Decision
from ledger import InsufficientFunds, NewEvent, Posting, RecordedEvent
from ledger.read import Account, stream_version

from .errors import MachinesRule as Rule
from .events import (
    BATCH_REPORTED,
    ROUND_PLAYED,
    ROUND_REJECTED,
    SCHEMA_VERSION,
    SOURCE,
    batch_stream,
    coin_in_account,
    coin_out_account,
    contributions_account,
    credit_account,
    machine_stream,
)
from .models import Machine, MachineRound

KEY_REUSED = "request.idempotency_key_reused"


def round_fingerprint(r: Mapping[str, Any]) -> str:
    """What identifies a round's content: a second report must say the same."""
    content = repr((sorted((s["option"], s["unit"] or "", s["amount_minor"])
                           for s in r["stakes"]), r["total_minor"], r["reused_minor"],
                    r["win_minor"], r.get("player_id"), r.get("played_at")))
    return hashlib.sha256(content.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class BatchContext:
    machine: Machine
    place: Venue
    version: int
    credit_minor: int
    at: dt.datetime
    planned: tuple[Mapping[str, Any], ...]  # per round: outcome, and the event to append


class BatchRounds(BaseCommand[BatchContext, Any]):
    """A land machine's batch: every round decided in memory, one append."""

    name = "machines.report_rounds"
    source = SOURCE
    retry_on = (InsufficientFunds,)

    def __init__(self, machine_id: str, invalid: Mapping[str, Mapping[str, Any]],
                 record_batch: bool = True) -> None:
        self.machine_id = machine_id
        self.invalid = invalid      # round id -> the outcome of a malformed round
        # A single round (play_round) is its own record: no batch event.
        self.record_batch = record_batch

    def load(self, arguments: Mapping[str, Any], call: Call) -> BatchContext:
        from .commands import (NO_CREDIT_CITE, _adults_only_cached, _invalid, _jackpot_links,
                               _machine, caps_for)

        machine = _machine(self.machine_id)
        place = rules.venue(machine.venue)
        at = call.moment()
        version = stream_version(machine_stream(machine.id))
        credit = Account.objects.filter(code=credit_account(machine.id)).values_list(
            "balance_minor", flat=True).first() or 0
        rounds = arguments["rounds"]
        recorded = {row.round_id: row for row in MachineRound.objects.filter(
            key__in=[f"{machine.id}/{r['round_id']}" for r in rounds])}
        links = _jackpot_links(machine)
        contexts: dict[tuple, AttemptContext] = {}
        caps_by_day: dict[dt.date, Any] = {}
        planned = []
        running = credit
        for r in rounds:
            round_id = r["round_id"]
            if round_id in self.invalid:
                planned.append({"outcome": dict(self.invalid[round_id])})
                continue
            fingerprint = round_fingerprint(r)
            done = recorded.get(round_id)
            if done is not None:
                planned.append({"outcome": _recorded_outcome(done, fingerprint)})
                continue
            round_at = (dt.datetime.fromisoformat(r["played_at"]) if r.get("played_at")
                        else at)
            day = venue_day(place, round_at)
            caps = caps_by_day.get(day)
            if caps is None:
                version_in_force = rules.rulebook_in_force(
                    place.rulebook_id, round_at.astimezone(dt.timezone.utc).date())
                caps = caps_by_day[day] = caps_for(machine.kind, version_in_force.venue_type,
                                                   _adults_only_cached(place))
            stakes = []
            for stake in r["stakes"]:
                unit = stake["unit"] or caps.default_unit
                if unit not in caps.units:
                    error = _invalid(f"a {machine.kind} stake's unit is one of"
                                     f" {', '.join(sorted(caps.units))}", field="stakes",
                                     round_id=round_id)
                    planned.append({"outcome": _invalid_outcome(round_id, error)})
                    break
                stakes.append({**stake, "unit": unit})
            else:
                plan = _plan_round(machine, place, caps, r, stakes, round_at, day, running,
                                   contexts, links, fingerprint, NO_CREDIT_CITE)
                running = plan.pop("credit_after")
                planned.append(plan)
        return BatchContext(machine, place, version, credit, at, tuple(planned))

    def venue_of(self, context: BatchContext) -> Any:
        return None     # each round's own time is checked with the round

    def decide(self, context: BatchContext) -> Decision:
        events = [plan["event"] for plan in context.planned if "event" in plan]
        outcomes = [plan["outcome"] for plan in context.planned]
        if not self.record_batch:
            if not events:
                raise AlreadyRecorded(outcomes[0])
            return Decision(events, {machine_stream(context.machine.id): context.version})
        # The batch's record, compact: its round ids in order, and the outcome
        # of every round that is not a new accepted one (those are the
        # round_played events appended with it).
        payload = {"machine_id": context.machine.id,
                   "round_ids": [o["round_id"] for o in outcomes],
                   "others": {o["round_id"]: o for o in outcomes
                              if o["status"] != "accepted" or o["replayed"]},
                   "accepted": sum(o["status"] == "accepted" for o in outcomes),
                   "refused": sum(o["status"] == "refused" for o in outcomes)}
        events.append(NewEvent(stream=batch_stream(context.machine.id), type=BATCH_REPORTED,
                               payload=payload, schema_version=SCHEMA_VERSION,
                               occurred_at=context.at,
                               gaming_day=venue_day(context.place, context.at)))
        return Decision(events, {machine_stream(context.machine.id): context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Any:
        from .commands import BatchResult

        if not self.record_batch:
            e = events[0]
            accepted = e.type == ROUND_PLAYED
            outcome = {"round_id": e.payload["round_id"],
                       "status": "accepted" if accepted else "refused",
                       "code": None if accepted else "machines.round_rejected",
                       "rule": None if accepted else e.payload["rule"],
                       "message": "" if accepted else e.payload["message"],
                       "position": e.position, "replayed": replayed}
            return BatchResult(e.payload["machine_id"], int(accepted), int(not accepted),
                               (outcome,), e.position, replayed)
        batch = events[-1]
        p = batch.payload
        positions = {e.payload["round_id"]: e.position for e in events[:-1]}
        rounds = []
        for round_id in p["round_ids"]:
            outcome = p["others"].get(round_id)
            if outcome is None:
                outcome = {"round_id": round_id, "status": "accepted", "code": None,
                           "rule": None, "message": "", "position": None, "replayed": False}
            if outcome.get("position") is None and round_id in positions:
                outcome = {**outcome, "position": positions[round_id]}
            rounds.append(outcome)
        return BatchResult(p["machine_id"], p["accepted"], p["refused"], tuple(rounds),
                           batch.position, replayed)


class AlreadyRecorded(Exception):
    """A single round found on the record when it was to be appended."""

    def __init__(self, outcome: Mapping[str, Any]) -> None:
        super().__init__("already recorded")
        self.outcome = outcome


def _recorded_outcome(done: MachineRound, fingerprint: str) -> dict[str, Any]:
    if done.fingerprint != fingerprint:
        return {"round_id": done.round_id, "status": "refused", "code": KEY_REUSED,
                "rule": None, "message": "this round id was reported with other content",
                "position": None, "replayed": False}
    accepted = done.status == "played"
    return {"round_id": done.round_id, "status": "accepted" if accepted else "refused",
            "code": None if accepted else "machines.round_rejected", "rule": done.rule or None,
            "message": "" if accepted else "refused when first reported",
            "position": done.position, "replayed": True}


def _invalid_outcome(round_id: str, error) -> dict[str, Any]:
    return {"round_id": round_id, "status": "refused", "code": str(error.code),
            "rule": None, "message": str(error.message), "position": None,
            "replayed": False}


def _verdict(contexts: dict, attempt: Attempt, day: dt.date, override
             ) -> tuple[Verdict, Figure | None]:
    """The pipeline's verdict on an attempt, and the cap it met.

    The context is loaded once per unit, player and gaming day, and the
    amount set per attempt; without a player the checks depend on nothing
    but the amount (no clock rule applies to a machine's stake or win), so
    a verdict is computed once per amount too.
    """
    key = (attempt.kind, attempt.bet_unit, attempt.player_id, day)
    base = contexts.get(key)
    if base is None:
        base = load_context(attempt)
        if override is not None and attempt.bet_unit:
            # Decision machines.adults_only_premises: the hall's row.
            row = rules.stake_limit(override, attempt.game, attempt.bet_unit)
            if row is not None:
                base = dataclasses.replace(base, stake_limit=Figure(row.stake_minor_max,
                                                                    row.cite))
        contexts[key] = base
    if attempt.player_id is None:
        known = contexts.get((key, attempt.amount_minor))
        if known is None:
            known = contexts[(key, attempt.amount_minor)] = run_checks(
                dataclasses.replace(base, amount_minor=attempt.amount_minor))
        return known, base.stake_limit
    return (run_checks(dataclasses.replace(base, amount_minor=attempt.amount_minor,
                                           at=attempt.at)), base.stake_limit)


def _plan_round(machine: Machine, place: Venue, caps, r: Mapping[str, Any],
                stakes: list[Mapping[str, Any]], at: dt.datetime, day: dt.date,
                credit_minor: int, contexts: dict, links, fingerprint: str,
                credit_cite: str) -> dict[str, Any]:
    """Decide one round against the credit left by the rounds before it (pure but
    for the first load of a compliance context)."""
    player, total, reused, win = (r["player_id"], r["total_minor"], r["reused_minor"],
                                  r["win_minor"])
    override = None
    if caps.rulebook_id:
        override = rules.rulebook_in_force(caps.rulebook_id,
                                           at.astimezone(dt.timezone.utc).date())
    base = dict(kind="stake", venue=place.code, currency=place.currency, player_id=player,
                game=caps.game, category=caps.category, at=at)
    largest: dict[str, int] = {}
    for stake in stakes:
        if caps.units[stake["unit"]]:
            largest[stake["unit"]] = max(largest.get(stake["unit"], 0), stake["amount_minor"])
    attempts = [Attempt(bet_unit=unit, amount_minor=amount, **base)
                for unit, amount in largest.items()]
    if caps.round_unit:
        amount = sum(s["amount_minor"] for s in stakes if s["unit"] in caps.round_units)
        if amount:
            attempts.append(Attempt(bet_unit=caps.round_unit, amount_minor=amount, **base))
    if win:
        attempts.append(Attempt(kind="win", venue=place.code, currency=place.currency,
                                amount_minor=win, at=at))
    limits: dict[str, tuple[int, str]] = {}
    verdicts = []
    for attempt in attempts:
        verdict, cap = _verdict(contexts, attempt, day, override)
        if cap is not None:
            limits[attempt.bet_unit] = (cap.value, cap.cite)
        verdicts.append(verdict)
    rulebook = machine.rulebook

    def rejected(rule, message, amount, limit, cite, hint, passed=(),
                 book=rulebook) -> dict[str, Any]:
        payload = {"machine_id": machine.id, "venue": place.code, "round_id": r["round_id"],
                   "player_id": player, "rule": rule, "message": message,
                   "amount_minor": amount, "limit_minor": limit, "rulebook": book,
                   "cite": cite, "hint": hint, "checks_passed": list(passed),
                   "fingerprint": fingerprint}
        event = NewEvent(stream=machine_stream(machine.id), type=ROUND_REJECTED,
                         payload=payload, schema_version=SCHEMA_VERSION, occurred_at=at,
                         gaming_day=day)
        return {"event": event, "credit_after": credit_minor, "outcome": {
            "round_id": r["round_id"], "status": "refused", "code": "machines.round_rejected",
            "rule": rule, "message": message, "position": None, "replayed": False}}

    if machine.paylines and len(stakes) > machine.paylines:
        return rejected(Rule.STAKE_NOT_OFFERED, f"{len(stakes)} stakes on a machine of"
                        f" {machine.paylines} paylines", len(stakes), machine.paylines,
                        "decision machines.stake_options",
                        "A round stakes at most once per payline.")
    if machine.stake_options:
        offered = set(machine.stake_options)
        for stake in stakes:
            if stake["amount_minor"] not in offered:
                return rejected(Rule.STAKE_NOT_OFFERED,
                                f"a stake of {stake['amount_minor']} cents is not one of the"
                                f" machine's stake options", stake["amount_minor"], None,
                                "decision machines.stake_options",
                                "The machine offers only its registered stake options.")
    if reused > win:
        return rejected(Rule.REUSED_ABOVE_WINS, "re-used stakes come from the round's own"
                        " wins, and the round won less", reused, win, "002:L3373",
                        "Check the machine's round record.")
    passed: list[str] = []
    for verdict in verdicts:
        if not verdict.allowed:
            f = verdict.failure
            return rejected(f.code, f.message, f.amount_minor, f.limit_minor, f.cite, f.hint,
                            passed + list(verdict.checks_passed), f.rulebook)
        passed.extend(verdict.checks_passed)
    fresh = total - reused
    if fresh > credit_minor:
        return rejected(Rule.INSUFFICIENT_CREDIT, f"the round stakes {fresh} cents of fresh"
                        f" money and the machine holds {credit_minor}", fresh, credit_minor,
                        credit_cite, "A machine plays from its credit only; insert cash first.")
    currency = machine.currency
    postings = []
    if win:     # 002:L1381: the win is on the credit at once
        postings += [Posting(coin_out_account(machine.id), win, currency),
                     Posting(credit_account(machine.id), -win, currency)]
    if total:
        postings += [Posting(credit_account(machine.id), total, currency),
                     Posting(coin_in_account(machine.id), -total, currency)]
    contributions = {}
    for link in links:
        if (link.amount != "progressive" or not link.contribution_bp
                or total < max(link.qualifying_stake_minor, 1)):
            continue
        amount = total * link.contribution_bp // 10_000
        if amount:
            contributions[link.jackpot_id] = amount
            postings += [Posting(contributions_account(machine.id), amount, currency),
                         Posting(link.pool_account, -amount, currency)]
    payload = {"machine_id": machine.id, "venue": place.code, "round_id": r["round_id"],
               "player_id": player, "stakes": list(stakes), "total_minor": total,
               "reused_minor": reused, "win_minor": win,
               "caps": {unit: list(cap) for unit, cap in limits.items()},
               "verdict": {"rulebook": rulebook, "checks_passed": sorted(set(passed))},
               "fingerprint": fingerprint}
    if contributions:
        payload["jackpot_contributions"] = contributions
    event = NewEvent(stream=machine_stream(machine.id), type=ROUND_PLAYED, payload=payload,
                     postings=tuple(postings), schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=day)
    return {"event": event, "credit_after": credit_minor - total + win, "outcome": {
        "round_id": r["round_id"], "status": "accepted", "code": None, "rule": None,
        "message": "", "position": None, "replayed": False}}
