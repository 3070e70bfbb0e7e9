"""A small, deterministic demo gaming day built through the product's commands.

At the Helsinki poker room (rulebook veikkaus-poker-room) five players are
registered and verified; over one evening they buy chips for cash and from
their gaming accounts, redeem them, deposit and withdraw. The table's rake
is taken from the chips in play until the poker app (issue 5) records hands;
then the demo will play them.

Along the way the demo shows what the compliance pipeline and the ledger
refuse, since refusals are part of the record: a withdrawal beyond the
balance (the ledger writes nothing), and a self-excluded player trying to
buy chips (the pipeline records the refusal). One player's cash crosses the
EUR 2,000 due-diligence threshold in the gaming day, which raises one AML
alert.

Every write carries an idempotency key derived from the seed and the day,
so running the demo again writes nothing new.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from casino.cage.commands import buy_chips, deposit, redeem_chips, withdraw
from casino.players.commands import register_player, self_exclude, verify_identity
from casino.rules.commands import register_venue
from casino.rules.models import Venue
from casino.errors import CodedError
from ledger import LedgerError, Metadata, NewEvent, Posting, append, open_account
from ledger.errors import AccountExists

VENUE = "helsinki-poker-room"
ONLINE_VENUE = "ray-online"
CURRENCY = "EUR"
ZONE = ZoneInfo("Europe/Helsinki")
RAKE = f"house/{VENUE}/rake"
CHIPS = f"cage/{VENUE}/chips"
TABLE_STREAM = f"table/{VENUE}/1"
ACTOR = "demo"
PLAYERS = [
    ("Aino", "Virtanen", dt.date(1985, 3, 14)),
    ("Eero", "Korhonen", dt.date(1979, 11, 2)),
    ("Kaisa", "Mäkinen", dt.date(1992, 7, 21)),
    ("Mikko", "Nieminen", dt.date(1968, 1, 30)),
    ("Sanna", "Laine", dt.date(1999, 9, 9)),
]


@dataclass(frozen=True)
class DemoSummary:
    appended: int
    replayed: int
    refused: int


def _setup(seed: int, day: dt.date) -> list[str]:
    """Venues and players (registered, verified); one player self-excluded."""
    for code, name, rulebook in ((VENUE, "Veikkaus poker room, Helsinki", "veikkaus-poker-room"),
                                 ("casino-helsinki", "Casino Helsinki", "ray-casino"),
                                 (ONLINE_VENUE, "RAY online", "ray-online")):
        if not Venue.objects.filter(code=code).exists():
            register_venue(code=code, name=name, rulebook_id=rulebook,
                           metadata=Metadata(actor=ACTOR, source="casino.demo"))
    try:
        open_account(code=RAKE, type="revenue", currency=CURRENCY, name="Poker rake",
                     idempotency_key=f"demo-{seed}-open-rake")
    except AccountExists:
        pass
    registered_at = dt.datetime.combine(day - dt.timedelta(days=60), dt.time(12), ZONE)
    player_ids = []
    for index, (given, family, born) in enumerate(PLAYERS):
        key = f"demo-{seed}-player-{index}"
        player = register_player(
            given_name=given, family_name=family, date_of_birth=born, nationality="FI",
            document_type="passport", document_number=f"FI{seed:04d}{index:04d}",
            actor=ACTOR, idempotency_key=key, at=registered_at,
        )
        verify_identity(player_id=player.id, method="bank_id", actor=ACTOR,
                        idempotency_key=f"{key}-verified", at=registered_at)
        player_ids.append(player.id)
    # The last player excluded herself last week, for three months.
    self_exclude(player_id=player_ids[-1], months=3, venue_code=ONLINE_VENUE, actor=ACTOR,
                 idempotency_key=f"demo-{seed}-exclusion",
                 at=dt.datetime.combine(day - dt.timedelta(days=7), dt.time(12), ZONE))
    return player_ids


def _rake(amount_minor: int, at: dt.datetime, key: str):
    # Until the poker app settles hands, the demo takes the table's rake
    # straight from the chips in play: chips outstanding down, revenue up.
    return append(
        [NewEvent(stream=TABLE_STREAM, type="demo.rake_collected",
                  payload={"venue": VENUE, "amount_minor": amount_minor},
                  postings=(Posting(CHIPS, amount_minor, CURRENCY),
                            Posting(RAKE, -amount_minor, CURRENCY)),
                  occurred_at=at)],
        idempotency_key=key, metadata=Metadata(actor=ACTOR, source="casino.demo"),
    )


def run_gaming_day(seed: int = 2026, day: dt.date = dt.date(2026, 11, 20)) -> DemoSummary:
    """Play the demo evening; return how many writes were new, replayed, refused."""
    players = _setup(seed, day)
    active, excluded = players[:-1], players[-1]
    rng = random.Random(seed)
    clock = dt.datetime.combine(day, dt.time(18, 0), ZONE)
    plan: list[tuple] = []
    for player in active:
        plan.append((deposit, player, rng.randrange(100, 600, 50) * 100, {"method": "cash"}))
        plan.append((buy_chips, player, rng.randrange(50, 100, 10) * 100, {"paid_with": "account"}))
        plan.append((buy_chips, player, rng.randrange(50, 300, 10) * 100, {"paid_with": "cash"}))
    # A high roller's cash crosses EUR 2,000 in the gaming day: one AML alert.
    plan.append((buy_chips, active[0], 1_500_00, {"paid_with": "cash"}))
    plan.append((buy_chips, active[0], 800_00, {"paid_with": "cash"}))
    plan += [("rake", None, rng.randrange(1, 6) * 100, {}) for _ in range(40)]
    for player in active:
        plan.append((redeem_chips, player, rng.randrange(20, 50) * 100, {"paid_to": "cash"}))
        plan.append((withdraw, player, rng.randrange(5, 50) * 100, {"method": "cash"}))
    # Refused and recorded: a self-excluded player at the cage; refused and
    # not written at all: a withdrawal far beyond the balance.
    plan.append((buy_chips, excluded, 100_00, {"paid_with": "cash"}))
    plan.append((withdraw, active[1], 1_000_000_00, {"method": "cash"}))

    appended = replayed = refused = 0
    for index, (command, player, amount, options) in enumerate(plan):
        clock += dt.timedelta(minutes=rng.randrange(1, 4))
        key = f"demo-{seed}-{day.isoformat()}-{index}"
        try:
            if command == "rake":
                result = _rake(amount, clock, key)
                was_replayed = result.replayed
            else:
                result = command(player_id=player, venue=VENUE, amount_minor=amount,
                                 currency=CURRENCY, actor=ACTOR, idempotency_key=key,
                                 at=clock, **options)
                was_replayed = result.replayed
        except (CodedError, LedgerError):
            refused += 1
            continue
        if was_replayed:
            replayed += 1
        else:
            appended += 1
    return DemoSummary(appended=appended, replayed=replayed, refused=refused)
