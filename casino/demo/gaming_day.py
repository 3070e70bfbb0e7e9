"""A small, deterministic demo gaming day built through the public ledger API.

Accounts (EUR, Helsinki card room):
  cage/helsinki/cash                asset      cash in the cage
  cage/helsinki/chips-outstanding   liability  chips in players' hands
  house/helsinki/rake               revenue    rake taken at the tables
  player/<n>                        liability  players' gaming accounts
                                               (never negative, EUR 5,000 cap)
  table/helsinki/1                  (stream only: the hold'em table's events)

Every append carries an idempotency key derived from the demo's seed, so
running the demo twice writes nothing the second time.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from ledger import LedgerError, Metadata, NewEvent, Posting, append, open_account
from ledger.errors import AccountExists

CURRENCY = "EUR"
VENUE = "helsinki-poker-room"
VENUE_ZONE = ZoneInfo("Europe/Helsinki")
CAGE_CASH = "cage/helsinki/cash"
CHIPS_OUTSTANDING = "cage/helsinki/chips-outstanding"
RAKE = "house/helsinki/rake"
TABLE_STREAM = "table/helsinki/1"
PLAYERS = ["player/aino", "player/eero", "player/kaisa", "player/mikko", "player/sanna"]
# Decision: the demo's player accounts borrow the online gaming account's
# EUR 5,000 ceiling; the rulebooks (casino/rules) will own that figure.
PLAYER_BALANCE_MAX_MINOR = 500_000
METADATA = Metadata(actor="demo", source="casino.demo")


@dataclass(frozen=True)
class DemoSummary:
    appended: int
    replayed: int
    refused: int


def _open_accounts(seed: int) -> None:
    specs = [
        (CAGE_CASH, "asset", False, None, "Cage cash"),
        (CHIPS_OUTSTANDING, "liability", True, None, "Chips in players' hands"),
        (RAKE, "revenue", False, None, "Poker rake"),
    ] + [(code, "liability", True, PLAYER_BALANCE_MAX_MINOR, code.split("/")[1].title())
         for code in PLAYERS]
    for code, type_, guarded, ceiling, name in specs:
        try:
            open_account(code=code, type=type_, currency=CURRENCY, name=name,
                         must_not_go_negative=guarded, balance_max_minor=ceiling,
                         metadata=METADATA, idempotency_key=f"demo-{seed}-open-{code}")
        except AccountExists:
            pass  # opened by an earlier demo run with another seed


def _movement(kind: str, player: str, amount_minor: int, at: dt.datetime) -> NewEvent:
    # Postings are debit-positive: (debit account, credit account).
    legs = {
        "cage.cash_deposited": (CAGE_CASH, player),
        "cage.chips_purchased": (player, CHIPS_OUTSTANDING),
        "cage.chips_redeemed": (CHIPS_OUTSTANDING, player),
        "cage.cash_withdrawn": (player, CAGE_CASH),
        "poker.rake_taken": (CHIPS_OUTSTANDING, RAKE),
    }[kind]
    stream = TABLE_STREAM if kind == "poker.rake_taken" else player
    return NewEvent(
        stream=stream,
        type=kind,
        payload={"player": player, "amount_minor": amount_minor},
        postings=(Posting(legs[0], amount_minor, CURRENCY),
                  Posting(legs[1], -amount_minor, CURRENCY)),
        occurred_at=at,
        gaming_day=at.date() if at.hour >= 6 else at.date() - dt.timedelta(days=1),
    )


def _register_venue() -> None:
    from casino.rules.commands import register_venue
    from casino.rules.models import Venue

    if not Venue.objects.filter(code=VENUE).exists():
        register_venue(code=VENUE, name="Veikkaus poker room, Helsinki",
                       rulebook_id="veikkaus-poker-room", metadata=METADATA)


def run_gaming_day(seed: int = 2026, day: dt.date = dt.date(2026, 11, 20)) -> DemoSummary:
    """Append a gaming day of cage and table money movements; return counts."""
    _register_venue()
    _open_accounts(seed)
    rng = random.Random(seed)
    clock = dt.datetime.combine(day, dt.time(18, 0), VENUE_ZONE)
    appended = replayed = refused = 0
    plan: list[tuple[str, str, int]] = []
    for player in PLAYERS:
        cash = rng.randrange(100, 1_001, 50) * 100
        chips = rng.randrange(50, cash // 100 + 1, 10) * 100
        plan += [("cage.cash_deposited", player, cash), ("cage.chips_purchased", player, chips)]
    for _ in range(40):  # hands at table 1, each raked
        plan.append(("poker.rake_taken", rng.choice(PLAYERS), rng.randrange(1, 6) * 100))
    for player in PLAYERS:
        plan.append(("cage.chips_redeemed", player, rng.randrange(10, 40) * 100))
        plan.append(("cage.cash_withdrawn", player, rng.randrange(5, 50) * 100))
    # One deliberate overdraft: the ledger refuses it and nothing is written.
    plan.append(("cage.cash_withdrawn", PLAYERS[0], 10_000_000))
    for index, (kind, player, amount) in enumerate(plan):
        clock += dt.timedelta(minutes=rng.randrange(2, 9))
        try:
            result = append([_movement(kind, player, amount, clock)], metadata=METADATA,
                            idempotency_key=f"demo-{seed}-{day.isoformat()}-{index}")
        except LedgerError:
            refused += 1
            continue
        if result.replayed:
            replayed += 1
        else:
            appended += 1
    return DemoSummary(appended=appended, replayed=replayed, refused=refused)
