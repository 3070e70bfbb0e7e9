"""Events as sentences: a per-type formatter registry with a generic fallback.

An officer reads a timeline without knowing the event schema: each event
becomes a title ("Deposit of EUR 2,500.00 in cash at casino-helsinki"),
a few labelled lines, the rule and its citation where the payload names
them, and its postings in major units. A type without its own formatter
falls back to `generic`, which shows every payload key as `label: value`
(amounts `*_minor` in major units, nested maps flattened), so a new event
type is readable the day it is added, and a formatter is only an
improvement.

Pure: formatters take an `EventView` (plain values) and return a
`Rendered`; nothing here touches the database or Django.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ledger import book_key, book_of, local_position

LINES_MAX = 40
LIST_ITEMS_MAX = 12
DEPTH_MAX = 3


def major(amount_minor: int | None, currency: str = "", *, plus: bool = False) -> str:
    """Format minor units as major units, currency first: 123456 -> "EUR 1,234.56".

    One format on every screen (issue 17): `EUR 1,234.50`, `EUR -2.50`.
    """
    if amount_minor is None:
        return "none"
    sign = "-" if amount_minor < 0 else "+" if plus else ""
    whole, cents = divmod(abs(int(amount_minor)), 100)
    text = f"{sign}{whole:,}.{cents:02d}"
    return f"{currency} {text}".strip()


def signed_major(amount_minor: int, currency: str = "") -> str:
    """Like `major` with an explicit + for positive amounts (postings)."""
    return major(amount_minor, currency, plus=True)


@dataclass(frozen=True, slots=True)
class PostingView:
    account: str
    amount_minor: int
    currency: str


@dataclass(frozen=True, slots=True)
class EventView:
    """What a formatter may read of an event."""

    position: int
    type: str
    stream: str
    payload: Mapping[str, Any]
    metadata: Mapping[str, Any] = field(default_factory=dict)
    postings: tuple[PostingView, ...] = ()
    occurred_at: dt.datetime | None = None
    gaming_day: dt.date | None = None

    @property
    def currency(self) -> str:
        value = self.payload.get("currency")
        if isinstance(value, str):
            return value
        return self.postings[0].currency if self.postings else ""


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class Rendered:
    title: str
    lines: tuple[Line, ...] = ()
    rule: str = ""
    cite: str = ""
    tone: str = ""          # "", "refused", "alert", "decision"
    actor: str = ""
    postings: tuple[Line, ...] = ()


Formatter = Callable[[EventView], Rendered]
_registry: dict[str, Formatter] = {}


def formatter(*event_types: str) -> Callable[[Formatter], Formatter]:
    """Register a formatter for one or more event types."""
    def decorate(function: Formatter) -> Formatter:
        for event_type in event_types:
            _registry[event_type] = function
        return function
    return decorate


def registered_types() -> frozenset[str]:
    return frozenset(_registry)


def render(event: EventView) -> Rendered:
    """Render an event with its type's formatter, or the generic one.

    The actor and postings are added here, the same for every type. A
    formatter that fails on an unexpected payload (an old schema version,
    say) falls back to the generic rendering rather than hiding the event.
    """
    function = _registry.get(event.type, generic)
    try:
        rendered = function(event)
    except (KeyError, TypeError, ValueError, AttributeError):
        rendered = generic(event)
    postings = tuple(Line(p.account, signed_major(p.amount_minor, p.currency))
                     for p in event.postings)
    return Rendered(title=rendered.title, lines=rendered.lines[:LINES_MAX],
                    rule=rendered.rule or _text(event.payload.get("rule")),
                    cite=rendered.cite or _text(event.payload.get("cite")),
                    tone=rendered.tone, actor=_text(event.metadata.get("actor")),
                    postings=postings)


def label(key: str) -> str:
    """`stack_minor_after` -> "stack after"; `player_id` -> "player"."""
    words = [w for w in key.split("_") if w not in ("minor", "id")]
    return " ".join(words) or key


def value_text(key: str, value: Any, currency: str = "") -> str:
    """One payload value as text; integer amounts (`*_minor`) in major units."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and ("minor" in key.split("_") or key == "amount"):
        return major(value, currency)
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            items = [value_text(key, v, currency) for v in value[:LIST_ITEMS_MAX]]
            more = f" (+{len(value) - LIST_ITEMS_MAX} more)" if len(value) > LIST_ITEMS_MAX else ""
            return ", ".join(items) + more if items else "none"
        return f"{len(value)} entries"
    if isinstance(value, Mapping):
        value = money_figure(value)
        parts = [f"{label(str(k))} {value_text(str(k), v, currency)}"
                 for k, v in list(value.items())[:LIST_ITEMS_MAX]]
        return "; ".join(parts) if parts else "none"
    return str(value)


def money_figure(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    """A rulebook figure in minor units (`unit: minor`) with its value as money."""
    if mapping.get("unit") == "minor" and isinstance(mapping.get("value"), int):
        rest = {k: v for k, v in mapping.items() if k not in ("unit", "value")}
        return {**rest, "value_minor": mapping["value"]}
    return mapping


def flatten(payload: Mapping[str, Any], currency: str = "", prefix: str = "",
            depth: int = 0, skip: Iterable[str] = ()) -> list[Line]:
    """Every payload key as a labelled line; nested maps become `a / b` labels."""
    skipped = set(skip)
    lines: list[Line] = []
    payload = money_figure(payload)
    for key, value in payload.items():
        if key in skipped:
            continue
        name = f"{prefix}{label(str(key))}"
        if isinstance(value, Mapping) and value and depth < DEPTH_MAX:
            lines.extend(flatten(value, currency, f"{name} / ", depth + 1))
        elif (isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value)
              and depth < DEPTH_MAX):
            for index, item in enumerate(value[:LIST_ITEMS_MAX], start=1):
                lines.append(Line(f"{name} {index}", value_text(str(key), item, currency)))
        else:
            lines.append(Line(name, value_text(str(key), value, currency)))
    return lines


def generic(event: EventView) -> Rendered:
    """Any event: its type in words and every payload key."""
    app, _, what = event.type.partition(".")
    title = f"{(what or app).replace('_', ' ').capitalize()} ({app})" if what else event.type
    return Rendered(title=title, lines=tuple(flatten(event.payload, event.currency)),
                    tone="refused" if event.type.endswith("_rejected") else "")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _lines(**values: Any) -> tuple[Line, ...]:
    return tuple(Line(label(key), str(value)) for key, value in values.items()
                 if value not in (None, "", [], {}))


# Formatters of the most frequent types. Keys are read with .get where the
# older schema versions may lack them.

@formatter("compliance.attempt_rejected")
def _attempt_rejected(event: EventView) -> Rendered:
    p = event.payload
    attempt = p["attempt"]
    currency = attempt.get("currency", "")
    where = f" at {attempt['venue']}" if attempt.get("venue") else ""
    game = f" on {attempt['game']}" if attempt.get("game") else ""
    return Rendered(
        title=(f"Refused: {attempt['kind'].replace('_', ' ')} of"
               f" {major(attempt['amount_minor'], currency)}{game}{where}"),
        lines=_lines(why=p.get("message"), limit=(major(p["limit_minor"], currency)
                                                   if p.get("limit_minor") is not None
                                                   else None),
                     player_id=attempt.get("player_id"), bet_unit=attempt.get("bet_unit"),
                     rulebook=p.get("rulebook"), hint=p.get("hint"),
                     checks_passed=", ".join(p.get("checks_passed", []))),
        rule=p.get("rule", ""), cite=p.get("cite", ""), tone="refused")


@formatter("compliance.alert_raised")
def _alert_raised(event: EventView) -> Rendered:
    p = event.payload
    details = p.get("details") or {}
    currency = details.get("currency", "")
    return Rendered(title=f"Alert ({p['kind'].replace('_', ' ')}): {p['summary']}",
                    lines=tuple(flatten(details, currency, skip=("cite", "rule"))),
                    rule=_text(details.get("rule")), cite=_text(details.get("cite")),
                    tone="alert")


_CAGE_VERBS = {
    "cage.cash_deposited": "Deposit",
    "cage.cash_withdrawn": "Withdrawal",
    "cage.chips_purchased": "Chips bought",
    "cage.chips_redeemed": "Chips redeemed",
}


@formatter(*_CAGE_VERBS)
def _cage(event: EventView) -> Rendered:
    p = event.payload
    verdict = p.get("verdict") or {}
    return Rendered(
        title=(f"{_CAGE_VERBS[event.type]} of {major(p['amount_minor'], p['currency'])}"
               f" ({p['method']}) at {p['venue']}"),
        lines=_lines(player_id=p.get("player_id"), gaming_day=p.get("gaming_day"),
                     rulebook=verdict.get("rulebook"),
                     checks_passed=", ".join(verdict.get("checks_passed", []))))


@formatter("compliance.correction_proposed")
def _correction_proposed(event: EventView) -> Rendered:
    p = event.payload
    return Rendered(
        title=(f"Correction proposed: {signed_major(p['amount_minor'], p['currency'])}"
               f" to {p['account']}"),
        lines=_lines(counter_account=p["counter_account"], reason=p["reason"],
                     balance_before=major(p["balance_before_minor"], p["currency"])),
        tone="decision")


@formatter("compliance.case_opened", "compliance.case_note_added",
           "compliance.case_state_changed", "compliance.case_events_linked")
def _case(event: EventView) -> Rendered:
    p = event.payload
    case = p["case_id"]
    if event.type == "compliance.case_opened":
        title = f"Case {case} opened: {p['title']}"
        lines = _lines(alert=p.get("alert_id"), note=p.get("note"),
                       events=", ".join(f"#{n}" for n in p.get("positions", [])))
    elif event.type == "compliance.case_note_added":
        title, lines = f"Note on case {case}", _lines(note=p["text"])
    elif event.type == "compliance.case_state_changed":
        title = f"Case {case}: {p['from_state']} -> {p['to_state']}"
        lines = _lines(reason=p.get("reason"))
    else:
        title = f"Events added to case {case}"
        lines = _lines(events=", ".join(f"#{n}" for n in p.get("positions", [])))
    return Rendered(title=title, lines=lines, tone="decision")


@formatter("compliance.chain_verified")
def _chain_verified(event: EventView) -> Rendered:
    p = event.payload
    if p["ok"]:
        title = f"Hash chain verified: OK, {p['events']:,} events up to #{p['head_position']}"
    else:
        title = f"Hash chain verification FAILED at #{p['bad_position']}: {p['problem']}"
    return Rendered(title=title, lines=_lines(head_hash=p.get("head_hash")),
                    tone="" if p["ok"] else "alert")


@formatter("players.player_registered", "players.identity_verified",
           "players.self_excluded", "players.limit_set")
def _player(event: EventView) -> Rendered:
    from casino.privacy.crypto import is_sealed, opened_payload

    p = event.payload
    if is_sealed(p):    # issue 18 item 8: opened for the officer, or "erased"
        p = opened_payload(p)
    what = event.type.partition(".")[2].replace("_", " ").capitalize()
    if event.type == "players.limit_set" and isinstance(p.get("value"), int):
        kind = str(p.get("kind", "limit")).replace("_", " ")
        return Rendered(title=f"Limit set: {kind} {major(p['value'], p.get('currency', ''))}",
                        lines=tuple(flatten(p, p.get("currency", ""),
                                            skip=("kind", "value", "cite", "rule"))))
    return Rendered(title=what, lines=tuple(flatten(p, event.currency)))


@formatter("poker.player_bought_in", "poker.player_cashed_out")
def _poker_seat(event: EventView) -> Rendered:
    p = event.payload
    verb = "Bought in" if event.type == "poker.player_bought_in" else "Cashed out"
    means = p.get("paid_with") or p.get("paid_to") or ""
    return Rendered(
        title=(f"{verb}: seat {p['seat']}, {major(p['amount_minor'], event.currency)}"
               f" ({means}) at table {p['table_id']}"),
        lines=_lines(player_id=p.get("player_id"),
                     stack_after=(major(p["stack_minor_after"], event.currency)
                                  if "stack_minor_after" in p else None)))


@formatter("poker.hand_started")
def _hand_started(event: EventView) -> Rendered:
    p = event.payload
    players = ", ".join(f"seat {seat}: {player}" for seat, player in p["players"].items())
    stacks = ", ".join(f"seat {seat} {major(stack, p.get('currency', ''))}"
                       for seat, stack in p.get("stacks_minor", {}).items())
    return Rendered(title=f"Hand {p['hand_id']} started ({p.get('variant', '')}),"
                          f" button seat {p.get('button')}",
                    lines=_lines(players=players, stacks=stacks))


@formatter("poker.action_taken")
def _action_taken(event: EventView) -> Rendered:
    p = event.payload
    amount = p.get("amount_minor")
    money = f" {major(amount, event.currency)}" if isinstance(amount, int) else ""
    return Rendered(title=f"Seat {p['seat']}: {p['kind']}{money}",
                    lines=_lines(hand=p.get("hand_id"), street=p.get("phase"),
                                 pot=(major(p["pot_minor"], event.currency)
                                      if isinstance(p.get("pot_minor"), int) else None)))


@formatter("poker.hand_settled")
def _hand_settled(event: EventView) -> Rendered:
    p = event.payload
    awards = ", ".join(f"seat {seat} {major(amount, event.currency)}"
                       for seat, amount in p.get("awards_verified", {}).items())
    rake = p.get("rake") or {}
    drop = p.get("drop") or {}
    return Rendered(
        title=f"Hand {p['hand_id']} settled" + (" at showdown" if p.get("showdown") else ""),
        lines=_lines(awards_verified_by_native_eval=awards, board=" ".join(p.get("board") or []),
                     rake=major(rake["amount_minor"], event.currency)
                     if isinstance(rake.get("amount_minor"), int) else None,
                     jackpot_drop=major(drop["amount_minor"], event.currency)
                     if isinstance(drop.get("amount_minor"), int) else None),
        cite=_text(rake.get("cite")))


@formatter("poker.hand_disputed")
def _hand_disputed(event: EventView) -> Rendered:
    p = event.payload

    def awards(values: Mapping[str, int] | None) -> str:
        return ", ".join(f"seat {s} {major(a, event.currency)}" for s, a in (values or {}).items())

    return Rendered(title=f"Hand {p['hand_id']} disputed: the claimed result is not the"
                          " verified one; no money moved",
                    lines=_lines(claimed=awards(p.get("awards_claimed")),
                                 verified=awards(p.get("awards_verified"))),
                    tone="alert")


@formatter("jackpots.hit_recorded", "jackpots.hit_approved", "jackpots.hit_rejected",
           "jackpots.hit_paid")
def _jackpot_hit(event: EventView) -> Rendered:
    p = event.payload
    verb = event.type.partition(".")[2].replace("hit_", "").replace("_", " ")
    amount = p.get("amount_minor")
    money = f": {major(amount, event.currency)}" if isinstance(amount, int) else ""
    shares = ", ".join(f"{s.get('player_id')} {major(s.get('amount_minor'), event.currency)}"
                       for s in p.get("shares") or [])
    return Rendered(title=f"Jackpot hit {p['hit_id']} {verb}{money}",
                    lines=_lines(shares=shares, reason=p.get("reason"),
                                 category=p.get("category"), threshold=p.get("threshold")),
                    cite=_text(p.get("cite")),
                    tone="decision" if verb != "recorded" else "alert")


def number_in_book(position: int) -> str:
    """An event's number as officers read it: "#12" on the main book, "#12 in
    helsinki" on a venue's (a position names its book; each book counts from 1)."""
    book = book_of(position)
    local = local_position(position)
    return f"#{local}" if book == 1 else f"#{local} in {book_key(book)}"
