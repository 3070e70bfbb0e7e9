"""Preconditions of every write endpoint, for the idempotency walk.

Each builder makes the state one write needs in the test database through
the apps' own commands, and returns a `Row`: the caller and its request,
another request (another body, or the same body at another URL where the
write takes no body), and a second API user in the same role. The walk
(test_idempotency_walk.py) sends them under one Idempotency-Key.
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

from rest_framework.test import APIClient

from casino.cage.commands import buy_chips, deposit
from casino.compliance.commands import propose_correction
from casino.compliance.models import Alert, AlertKind
from casino.games import commands as games
from casino.jackpots import commands as jackpots
from casino.poker import commands as poker
from casino.roles import Role
from casino.tournaments import commands as tournaments
from ledger import open_account
from tests.casino.api.conftest import client_for
from tests.casino.conftest import NOON, make_player
from tests.casino.jackpots.conftest import contribute, play_hand, pool_at
from tests.casino.poker.conftest import check_down, open_helsinki_table, play, seat_players

CASINO = "casino-helsinki"
ROOM = "poker-helsinki"
_keys = itertools.count(1)


def key(prefix: str = "walk") -> str:
    """A fresh idempotency key for the builders' own commands."""
    return f"walk-{prefix}-{next(_keys)}"


@dataclass(frozen=True)
class Independent:
    """The other client's request is its own: 2xx and events of its own."""


@dataclass(frozen=True)
class Refused:
    """The other client's request meets a business rule: this status and code."""

    status: int
    code: str
    why: str


@dataclass(frozen=True)
class AlreadyDone:
    """The other client's request asks for what is already so: 2xx, its own
    answer (no replay mark) and nothing to write."""

    why: str


@dataclass(frozen=True)
class NoOtherRequest:
    """The write takes no body and no path parameter: under one key every
    request is the same request, so there is no other request to send."""

    why: str


@dataclass
class Row:
    client: APIClient
    url: str
    body: dict[str, Any]
    other_url: str | None          # another request: another URL ...
    other_body: dict[str, Any] | None   # ... or another body (None: no other request)
    other_client: APIClient
    headers: dict[str, str] = field(default_factory=dict)


def pair(role: Role) -> tuple[APIClient, APIClient]:
    """Two API users (two tokens, two principals) in one role."""
    return client_for(role), client_for(role)


def _row(role: Role, url: str, body: dict, other_body: dict | None = None,
         other_url: str | None = None) -> Row:
    client, other = pair(role)
    return Row(client, url, body, other_url or url, other_body if other_body is not None
               else body, other)


# Cage ----------------------------------------------------------------------


def _funded(venue: str = CASINO, amount: int = 50_000, chips: int = 30_000):
    player = make_player()
    deposit(player_id=player.id, venue=venue, amount_minor=amount, currency="EUR",
            actor="cashier", idempotency_key=key("deposit"))
    if chips:
        buy_chips(player_id=player.id, venue=venue, amount_minor=chips, currency="EUR",
                  actor="cashier", idempotency_key=key("chips"))
    return player


def cage(endpoint: str, method_field: str) -> Callable[[], Row]:
    def build() -> Row:
        player = _funded()
        body = {"player_id": player.id, "venue": CASINO, "amount": "150.00",
                "currency": "EUR", method_field: "cash"}
        return _row(Role.CAGE, f"/api/v1/cage/{endpoint}", body, {**body, "amount": "150.01"})
    return build


# Players -------------------------------------------------------------------

REGISTRATION = {"given_name": "Aino", "family_name": "Virtanen", "date_of_birth": "1990-05-01",
                "nationality": "FI", "document_type": "passport", "document_number": "XP1234567"}


def register() -> Row:
    return _row(Role.CAGE, "/api/v1/players", REGISTRATION,
                {**REGISTRATION, "document_number": "XP7654321"})


def verify() -> Row:
    player = make_player(verified=False, limits=False)
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/players/{player.id}/verification",
                {"method": "bank_id"}, {"method": "passport"})


def self_exclude() -> Row:
    player = make_player(verified=False, limits=False)
    return _row(Role.CAGE, f"/api/v1/players/{player.id}/self-exclusion",
                {"months": 6, "venue": "ray-online"}, {"months": 3, "venue": "ray-online"})


def set_limit() -> Row:
    player = make_player(verified=False, limits=False)
    body = {"kind": "daily_spend", "value": "150.00", "venue": "ray-online"}
    return _row(Role.CAGE, f"/api/v1/players/{player.id}/limits", body,
                {**body, "value": "100.00"})


# Corrections ---------------------------------------------------------------

PROPOSAL = {"account": "player/x/account", "counter_account": "house/test/adjustments",
            "amount": "25.00", "reason": "Goodwill for a machine fault, ticket 4411"}


def _correction_accounts() -> None:
    open_account(code="player/x/account", type="liability", currency="EUR",
                 must_not_go_negative=True)
    open_account(code="house/test/adjustments", type="expense", currency="EUR")


def propose() -> Row:
    _correction_accounts()
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/corrections", PROPOSAL,
                {**PROPOSAL, "reason": "Another reason, ticket 4413"})


def decide_correction(decision: str) -> Callable[[], Row]:
    def build() -> Row:
        _correction_accounts()
        proposer = client_for(Role.COMPLIANCE_OFFICER)
        correction = propose_correction(
            account="player/x/account", counter_account="house/test/adjustments",
            amount_minor=25_00, reason="Goodwill, ticket 4412", actor=proposer.username)
        return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/corrections/{correction.id}/{decision}",
                    {"note": "Checked"}, {"note": "Checked the log again"})
    return build


# Compliance cases ------------------------------------------------------------


def _aml_alert() -> Alert:
    """A cash deposit over the AML threshold raises an aml_threshold alert."""
    player = make_player()
    deposit(player_id=player.id, venue=CASINO, amount_minor=2_500_00, currency="EUR",
            method="cash", actor="cashier", idempotency_key=key("aml"), at=NOON)
    return Alert.objects.filter(kind=AlertKind.AML_THRESHOLD).order_by("-pk").first()


def open_case() -> Row:
    alert = _aml_alert()
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/compliance/cases",
                {"alert_id": alert.id, "note": "CDD requested"},
                {"alert_id": alert.id, "note": "Source of funds requested"})


def _case() -> tuple[str, Alert]:
    from casino.compliance.cases import open_case as open_a_case

    alert = _aml_alert()
    officer = client_for(Role.COMPLIANCE_OFFICER).username
    case = open_a_case(alert_id=alert.id, note="CDD requested", actor=officer,
                       idempotency_key=key("case"))
    return case.id, alert


def case_state() -> Row:
    case_id, _ = _case()
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/compliance/cases/{case_id}/state",
                {"to": "investigating"}, {"to": "closed", "reason": "Nothing to see"})


def case_note() -> Row:
    case_id, _ = _case()
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/compliance/cases/{case_id}/notes",
                {"text": "Payslips received"}, {"text": "Bank statement received"})


def case_events() -> Row:
    case_id, alert = _case()
    first, second = _aml_alert(), _aml_alert()
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/compliance/cases/{case_id}/events",
                {"positions": [first.raised_position]}, {"positions": [second.raised_position]})


def dismiss_alert() -> Row:
    alert = _aml_alert()
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/compliance/alert-dismissals",
                {"alert_id": alert.id, "reason": "Known regular, payslips on file"},
                {"alert_id": alert.id, "reason": "Salary day, seen before"})


def verify_chain() -> Row:
    client, other = pair(Role.COMPLIANCE_OFFICER)
    return Row(client, "/api/v1/compliance/chain-verifications", {}, None, None, other)


# Games -----------------------------------------------------------------------

TABLE = {"venue": CASINO, "game": "roulette", "config": {}, "stake_min": "1.00",
         "stake_max": "100.00"}


def _game_table() -> str:
    return games.open_table(venue=CASINO, game="roulette", stake_minor_min=100,
                            stake_minor_max=10_000, actor="floor",
                            idempotency_key=key("game-table")).table_id


def _round(stage: str) -> str:
    """A roulette round with one bet, taken to `stage`: open, closed, outcome."""
    round_id = games.open_round(table_id=_game_table(), actor="floor",
                                idempotency_key=key("round")).round_id
    player = _funded(chips=0)
    games.place_bet(round_id=round_id, player_id=player.id, kind="red", spec={},
                    stake_minor=5_00, actor="floor", idempotency_key=key("bet"))
    if stage in ("closed", "outcome"):
        games.close_betting(round_id=round_id, actor="floor", idempotency_key=key("close"))
    if stage == "outcome":
        games.record_outcome(round_id=round_id, outcome={"number": 17}, actor="floor",
                             idempotency_key=key("outcome"))
    return round_id


def game_table() -> Row:
    return _row(Role.TABLE_CONTROLLER, "/api/v1/games/tables", TABLE,
                {**TABLE, "stake_max": "50.00"})


def game_round() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/games/tables/{_game_table()}/rounds", {},
                other_url=f"/api/v1/games/tables/{_game_table()}/rounds")


def game_bet() -> Row:
    round_id = games.open_round(table_id=_game_table(), actor="floor",
                                idempotency_key=key("round")).round_id
    player = _funded(chips=0)
    body = {"player_id": player.id, "kind": "red", "spec": {}, "stake": "5.00"}
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/games/rounds/{round_id}/bets", body,
                {**body, "stake": "6.00"})


def game_close() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/games/rounds/{_round('open')}/close", {},
                other_url=f"/api/v1/games/rounds/{_round('open')}/close")


def game_outcome() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/games/rounds/{_round('closed')}/outcome",
                {"outcome": {"number": 17}}, {"outcome": {"number": 18}})


def game_settle() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/games/rounds/{_round('outcome')}/settle", {},
                other_url=f"/api/v1/games/rounds/{_round('outcome')}/settle")


def game_void() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/games/rounds/{_round('open')}/void",
                {"reason": "Wheel fault"}, {"reason": "Ball left the wheel"})


# Jackpots --------------------------------------------------------------------


def open_pool() -> Row:
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/jackpots/pools", {"venue": ROOM},
                {"venue": "olympic-tallinn"})


def rollup() -> Row:
    pool_at(ROOM, dt.date(2026, 6, 13))
    for day in (13, 14, 15):
        contribute(ROOM, dt.date(2026, 6, day), [100, 100])
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/jackpots/pools/{ROOM}/bad_beat/rollups",
                {"gaming_day": "2026-06-13"}, {"gaming_day": "2026-06-14"})


def _hits(count: int) -> list[str]:
    """`count` bad-beat hits, one a table, each with the pool funded."""
    pool_at(ROOM, dt.date(2026, 6, 15))
    contribute(ROOM, dt.date(2026, 6, 15), [100_000, 100_000] * count)
    jackpots.rollup_closed_days(venue=ROOM)
    hits = []
    for _ in range(count):
        table_id = open_helsinki_table().table_id
        seat_players(table_id, {seat: 20_000 for seat in range(1, 7)})
        hand_id, _ = play_hand(table_id)
        hits.append(hand_id)
    return hits


def hit_decision(decision: str) -> Callable[[], Row]:
    def build() -> Row:
        hit, other_hit = _hits(2)
        if decision == "pay":
            # Hits are settled in the order they started: only the first is
            # approved; the other request names the second hit.
            officer = client_for(Role.COMPLIANCE_OFFICER).username
            jackpots.approve_hit(hit_id=hit, actor=officer, idempotency_key=key("ok"))
        base = "/api/v1/jackpots/hits"
        if decision == "reject":
            return _row(Role.COMPLIANCE_OFFICER, f"{base}/{hit}/reject",
                        {"reason": "Cards shown during the deal"},
                        {"reason": "Dealer error"})
        return _row(Role.COMPLIANCE_OFFICER, f"{base}/{hit}/{decision}", {},
                    other_url=f"{base}/{other_hit}/{decision}")
    return build


# Reports ---------------------------------------------------------------------


def close_day() -> Row:
    # NOON is 2026-06-16: the days before it have ended.
    return _row(Role.ACCOUNTANT, f"/api/v1/reports/closes/{ROOM}/2026-06-15", {},
                other_url=f"/api/v1/reports/closes/{ROOM}/2026-06-14")


# Tournaments -----------------------------------------------------------------

ANNOUNCEMENT = {"venue": ROOM, "name": "Monday freezeout", "format": "freezeout",
                "entry": {"prize_minor": 40_000, "fee_minor": 7_000}}


def _tournament_player():
    player = make_player()
    deposit(player_id=player.id, venue=ROOM, amount_minor=5_000_00, currency="EUR",
            method="cash", actor="cage", idempotency_key=key("t-deposit"))
    return player.id


def _tournament(stage: str = "announced", players: int = 0, **terms) -> tuple[str, list[str]]:
    """A tournament taken to `stage` (announced, registering, running, fixed)."""
    announcement = {**ANNOUNCEMENT, **terms}
    venue = announcement.pop("venue")
    t = tournaments.announce(venue=venue, **announcement, actor="td",
                             idempotency_key=key("announce")).tournament_id
    ids: list[str] = []
    if stage == "announced":
        return t, ids
    tournaments.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for _ in range(players):
        ids.append(_tournament_player())
        tournaments.register(tournament_id=t, player_id=ids[-1], actor="cage",
                             idempotency_key=key())
    if stage in ("running", "fixed"):
        tournaments.start(tournament_id=t, actor="td", idempotency_key=key())
    if stage == "fixed":
        tournaments.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    return t, ids


def _t(t: str, action: str) -> str:
    return f"/api/v1/tournaments/{t}/{action}"


def announce() -> Row:
    return _row(Role.TABLE_CONTROLLER, "/api/v1/tournaments", ANNOUNCEMENT,
                {**ANNOUNCEMENT, "name": "Tuesday freezeout"})


def open_registration() -> Row:
    return _row(Role.TABLE_CONTROLLER, _t(_tournament()[0], "registration"), {},
                other_url=_t(_tournament()[0], "registration"))


def enter() -> Row:
    t, _ = _tournament("registering")
    return _row(Role.CAGE, _t(t, "entries"), {"player_id": _tournament_player()},
                {"player_id": _tournament_player()})


REBUY_TERMS = {"format": "rebuy", "rebuy": {"prize_minor": 20_000},
               "add_on": {"prize_minor": 40_000}, "rebuys_per_player_max": 1}


def rebuy() -> Row:
    t, ids = _tournament("running", players=3, **REBUY_TERMS)
    return _row(Role.CAGE, _t(t, "rebuys"), {"player_id": ids[0]}, {"player_id": ids[1]})


def add_on() -> Row:
    t, ids = _tournament("running", players=3, **REBUY_TERMS)
    return _row(Role.CAGE, _t(t, "add-ons"), {"player_id": ids[0]}, {"player_id": ids[1]})


def start() -> Row:
    return _row(Role.TABLE_CONTROLLER, _t(_tournament("registering", players=3)[0], "start"),
                {}, other_url=_t(_tournament("registering", players=3)[0], "start"))


def fix_prize_pool() -> Row:
    return _row(Role.TABLE_CONTROLLER, _t(_tournament("running", players=3)[0], "prize-pool"),
                {}, other_url=_t(_tournament("running", players=3)[0], "prize-pool"))


def _hexapro_venue() -> str:
    from casino.rules.commands import register_venue
    from casino.rules.models import Venue

    if not Venue.objects.filter(code="veikkaus-online").exists():
        register_venue(code="veikkaus-online", name="veikkaus-online",
                       rulebook_id="veikkaus-online-poker")
    return "veikkaus-online"


def draw() -> Row:
    venue = _hexapro_venue()
    t, _ = _tournament("running", players=3, venue=venue, name="HexaPro", format="hexapro",
                       entry={"prize_minor": 100, "fee_minor": 0})
    return _row(Role.TABLE_CONTROLLER, _t(t, "draw"), {"multiplier": "x3"},
                {"multiplier": "x5"})


def eliminate() -> Row:
    t, ids = _tournament("running", players=4)
    return _row(Role.TABLE_CONTROLLER, _t(t, "eliminations"),
                {"outs": [{"player_id": ids[3], "stack": 100}], "eliminators": {}},
                {"outs": [{"player_id": ids[2], "stack": 100}], "eliminators": {}})


def disqualify() -> Row:
    t, ids = _tournament("running", players=4)
    return _row(Role.TABLE_CONTROLLER, _t(t, "disqualifications"),
                {"player_id": ids[3], "reason": "Collusion"},
                {"player_id": ids[2], "reason": "Collusion"})


def exclude() -> Row:
    t, ids = _tournament("running", players=4)
    return _row(Role.TABLE_CONTROLLER, _t(t, "exclusions"),
                {"player_id": ids[3], "reason": "Abusive language"},
                {"player_id": ids[2], "reason": "Abusive language"})


def deal() -> Row:
    t, ids = _tournament("fixed", players=3)
    from casino.tournaments.models import Tournament

    prizes = [row["prize_minor"] for row in
              _tournament_details(t)["prize_table"]]
    open_money = sum(prizes)
    body = {"amounts_minor": {ids[0]: open_money - 2, ids[1]: 1, ids[2]: 1},
            "consents": ids}
    other = {"amounts_minor": {ids[0]: open_money - 3, ids[1]: 2, ids[2]: 1},
             "consents": ids}
    assert Tournament.objects.filter(id=t).exists()
    return _row(Role.TABLE_CONTROLLER, _t(t, "deals"), body, other)


def award_special_prize() -> Row:
    """A special prize of the structure (000:L3410-3413) paid to the first player out."""
    t, ids = _tournament("fixed", players=3,
                         special_prizes=[{"name": "first_out", "basis_points": 500}])
    return _row(Role.TABLE_CONTROLLER, _t(t, "special-prizes"),
                {"prize": "first_out", "player_id": ids[2]},
                {"prize": "first_out", "player_id": ids[1]})


def _tournament_details(t: str) -> dict:
    from casino.tournaments.api.serializers import TournamentSerializer
    from casino.tournaments.models import Tournament

    return TournamentSerializer(Tournament.objects.get(id=t)).data


def finish() -> Row:
    def played_out() -> str:
        # Three players: a room tournament starts with three a table (000:L3240).
        t, ids = _tournament("fixed", players=3)
        for out in (ids[2], ids[1]):
            tournaments.eliminate(tournament_id=t, outs=[{"player_id": out, "stack": 100}],
                                  eliminators={}, actor="td", idempotency_key=key())
        return t
    return _row(Role.TABLE_CONTROLLER, _t(played_out(), "finish"), {},
                other_url=_t(played_out(), "finish"))


def cancel() -> Row:
    t, ids = _tournament("running", players=3)
    return _row(Role.TABLE_CONTROLLER, _t(t, "cancel"),
                {"stacks": {ids[0]: 3000, ids[1]: 2000, ids[2]: 1000}},
                {"stacks": {ids[0]: 2000, ids[1]: 2000, ids[2]: 2000}})


# Poker -----------------------------------------------------------------------

POKER_TABLE = {"venue": ROOM, "variant": "holdem", "structure": "no_limit",
               "small_blind": "1.00", "big_blind": "2.00", "seats_max": 9,
               "buy_in_min": "100.00", "buy_in_max": "400.00", "jackpot": True}


def _poker_table(seats: int = 0, **terms) -> tuple[str, dict[int, str]]:
    table_id = open_helsinki_table(**terms).table_id
    players = seat_players(table_id, {seat: 20_000 for seat in range(1, seats + 1)})
    return table_id, players


def poker_table() -> Row:
    return _row(Role.TABLE_CONTROLLER, "/api/v1/poker/tables", POKER_TABLE,
                {**POKER_TABLE, "buy_in_max": "300.00"})


def buy_in() -> Row:
    table_id, _ = _poker_table()
    player = _funded(ROOM, 1_000_00, chips=0)
    body = {"seat": 1, "player_id": player.id, "amount": "200.00"}
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/tables/{table_id}/buy-ins", body,
                {**body, "amount": "150.00"})


def cash_out() -> Row:
    table_id, players = _poker_table(seats=2)
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/tables/{table_id}/cash-outs",
                {"seat": 1, "player_id": players[1]}, {"seat": 2, "player_id": players[2]})


def time_charge() -> Row:
    table_id = poker.open_table(
        venue=ROOM, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000, buy_in_minor_max=40_000,
        rake="time_charge", time_charge_minor=600, time_charge_period_minutes=30,
        actor="floor", idempotency_key=key("table")).table_id
    players = seat_players(table_id, {1: 20_000, 2: 20_000})
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/tables/{table_id}/time-charges",
                {"consenting_players": []}, {"consenting_players": [players[1]]})


def start_hand() -> Row:
    table_id, _ = _poker_table(seats=3)
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/tables/{table_id}/hands",
                {"button": 1}, {"button": 2})


HISTORY = [
    {"seat": 1, "kind": "call"}, {"seat": 2, "kind": "call"}, {"seat": 3, "kind": "check"},
    {"seat": 2, "kind": "check"}, {"seat": 3, "kind": "check"}, {"seat": 1, "kind": "check"},
    {"seat": 2, "kind": "bet", "amount": "10.00"}, {"seat": 3, "kind": "fold"},
    {"seat": 1, "kind": "call"},
    {"seat": 2, "kind": "check"}, {"seat": 1, "kind": "check"},
]


def hand_history() -> Row:
    table_id, _ = _poker_table(seats=3)
    showdown = {"board": "2c 7d 9h Js 4c", "hands": {"1": "As Ah", "2": "Kd Kc"},
                "claimed_awards": [{"seat": 1, "amount": "25.00"}]}
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/tables/{table_id}/hand-histories",
                {"button": 1, "actions": HISTORY, "showdown": showdown},
                {"button": 1, "actions": HISTORY[:7] + [{"seat": 3, "kind": "fold"},
                                                         {"seat": 1, "kind": "fold"}]})


def _hand(seats: int = 3) -> str:
    table_id, _ = _poker_table(seats=seats)
    return poker.start_hand(table_id=table_id, button=1, actor="dealer",
                            idempotency_key=key("hand")).hand_id


def act() -> Row:
    # Three-handed, button 1: seat 1 acts first.
    hand_id = _hand()
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/hands/{hand_id}/actions",
                {"seat": 1, "kind": "call"}, {"seat": 1, "kind": "fold"})


def showdown() -> Row:
    table_id, _ = _poker_table(seats=2)
    hand_id = poker.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key("hand")).hand_id
    check_down(hand_id)
    hands = {"1": "As Ah", "2": "Kd Kc"}
    probe = _probe_awards(hand_id, hands)
    body = {"board": "2c 7d 9h Js 4c", "hands": hands,
            "claimed_awards": [{"seat": seat, "amount": f"{amount // 100}.{amount % 100:02d}"}
                               for seat, amount in probe.items()]}
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/hands/{hand_id}/showdown", body,
                {**body, "board": "2c 7d 9h Js 5c"})


def _probe_awards(hand_id: str, hands: dict[str, str]) -> dict[int, int]:
    from django.db import transaction

    class Rollback(Exception):
        pass

    awards: dict[int, int] = {}
    try:
        with transaction.atomic():
            probe = poker.showdown(hand_id=hand_id, board="2c 7d 9h Js 4c",
                                   hands={int(s): c for s, c in hands.items()},
                                   claimed_awards={}, actor="dealer", idempotency_key=key())
            awards = {int(seat): amount for seat, amount in probe.awards_verified.items()}
            raise Rollback
    except Rollback:
        pass
    return awards


def void_hand() -> Row:
    hand_id = _hand()
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/poker/hands/{hand_id}/void",
                {"reason": "Misdeal"}, {"reason": "Card exposed in the deal"})


def decide_dispute() -> Row:
    table_id = poker.open_table(
        venue=ROOM, variant="holdem", structure="no_limit", small_blind_minor=50,
        big_blind_minor=100, seats_max=9, buy_in_minor_min=200, buy_in_minor_max=10_000,
        jackpot=False, actor="floor", idempotency_key=key("table")).table_id
    seat_players(table_id, {1: 5000, 2: 5000, 3: 200})
    hand_id = poker.start_hand(table_id=table_id, button=3, actor="dealer",
                               idempotency_key=key("hand")).hand_id
    play(hand_id, (3, "call"), (1, "call"), (2, "check"), (1, "bet", 1000), (2, "call"),
         (3, "call"))
    check_down(hand_id)
    result = poker.showdown(hand_id=hand_id, board="2c 7d 9h Js 4c",
                            hands={1: "Ks Kd", 2: "Qs Qd", 3: "As Ad"},
                            claimed_awards={1: 2300}, actor="dealer", idempotency_key=key())
    assert result.state == "disputed"
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/poker/hands/{hand_id}/decision",
                {"decision": "settle_verified", "note": "Verified split is right"},
                {"decision": "void", "note": "Deck was marked"})


# Machines ------------------------------------------------------------------

HALL = "hall-helsinki"


def _machine(credit_minor: int = 0) -> str:
    from casino.machines import commands as machines

    machine_id = key("machine")
    machines.register_machine(machine_id=machine_id, venue=HALL, kind="slot",
                              games=["fruits"], actor="officer", idempotency_key=key())
    if credit_minor:
        machines.insert_cash(machine_id=machine_id, amount_minor=credit_minor, actor="ctl",
                             idempotency_key=key())
    return machine_id


def machine_premises() -> Row:
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/machine-premises",
                {"venue": HALL, "adults_only": True}, {"venue": HALL, "adults_only": False})


def register_machine() -> Row:
    body = {"venue": HALL, "kind": "slot", "games": ["fruits"]}
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/machines",
                {**body, "machine_id": key("machine")}, {**body, "machine_id": key("machine")})


def machine_rounds() -> Row:
    def rounds(round_id: str) -> dict:
        return {"rounds": [{"round_id": round_id, "stakes": [{"amount": "1.00"}],
                            "total": "1.00", "win": "0.50"}]}

    return _row(Role.TABLE_CONTROLLER, f"/api/v1/machines/{_machine(10_00)}/rounds",
                rounds("r-1"), rounds("r-2"))


def machine_cash_in() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/machines/{_machine()}/cash-ins",
                {"amount": "10.00"}, {"amount": "20.00"})


def machine_cash_out() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/machines/{_machine(10_00)}/cash-outs", {},
                other_url=f"/api/v1/machines/{_machine(5_00)}/cash-outs")


def voucher_redemption() -> Row:
    from casino.machines import commands as machines

    voucher = machines.cash_out(machine_id=_machine(10_00), actor="ctl",
                                idempotency_key=key()).voucher_id
    return _row(Role.CAGE, f"/api/v1/vouchers/{voucher}/redemptions", {},
                {"machine_id": _machine()})


# Venues, machine jackpots, malfunction credits, slot tournaments, meters --------


def register_venue() -> Row:
    body = {"name": "Kiosk", "rulebook_id": "ray-partner-premises",
            "venue_type": "partner_premises"}
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/venues", {**body, "code": key("kiosk")},
                {**body, "code": key("kiosk")})


def change_venue() -> Row:
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/venues/partner-kioski/changes",
                {"adults_only": True}, {"adults_only": False})


def _machine_jackpot(machines: list[str], jackpot_id: str | None = None) -> str:
    from casino.machines.jackpots import configure_jackpot

    jackpot_id = jackpot_id or key("mjp")
    configure_jackpot(jackpot_id=jackpot_id, venue=HALL, name="Mystery", type="mystery",
                      scope="machine_group", drawn_by="machine", amount="progressive",
                      terms={"contribution_bp": 100, "seed_minor": 50_00}, machines=machines,
                      actor="officer", idempotency_key=key())
    return jackpot_id


def configure_machine_jackpot() -> Row:
    body = {"venue": HALL, "name": "Mystery", "type": "mystery", "scope": "machine_group",
            "drawn_by": "machine", "amount": "progressive", "machines": [_machine()],
            "terms": {"contribution_bp": 100, "seed": "50.00"}}
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/machine-jackpots",
                {**body, "jackpot_id": key("mjp")}, {**body, "jackpot_id": key("mjp")})


def machine_jackpot_hit() -> Row:
    from casino.machines import commands as machines

    machine_id = _machine(10_00)
    for round_id in ("h-1", "h-2"):
        machines.play_round(machine_id=machine_id, round_id=round_id,
                            stakes=[{"amount_minor": 100}], total_minor=100, actor="ctl")
    jackpot_id = _machine_jackpot([machine_id])
    body = {"machine_id": machine_id, "drawn_by": "machine"}
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/machine-jackpots/{jackpot_id}/hits",
                {**body, "round_id": "h-1"}, {**body, "round_id": "h-2"})


DEVICE_RECORD = {"wins_minor": 5_00, "credits_minor": 0, "free_games": 2, "device": "board 1"}


def propose_malfunction_credit() -> Row:
    body = {"device_record": DEVICE_RECORD, "reason": "draw interrupted"}
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/machines/{_machine()}/malfunction-credits",
                body, {**body, "reason": "display fault"})


def decide_malfunction_credit(action: str):
    def build() -> Row:
        from casino.machines import malfunctions

        def proposed() -> str:
            return malfunctions.propose_malfunction_credit(
                machine_id=_machine(), device_record=DEVICE_RECORD, reason="draw interrupted",
                actor="olli", idempotency_key=key()).credit_id

        credit = proposed()
        return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/malfunction-credits/{credit}/{action}",
                    {"note": "device log checked"},
                    other_url=f"/api/v1/malfunction-credits/{proposed()}/{action}")
    return build


def _slot_tournament(state: str = "announced") -> str:
    from casino.machines import tournaments

    tournament_id = key("slots")
    tournaments.announce_slot_tournament(tournament_id=tournament_id, venue=HALL, name="Cup",
                                         entry_fee_minor=10_00, prizes={"share_bp": [10_000]},
                                         actor="officer", idempotency_key=key())
    if state == "started":
        tournaments.start_slot_tournament(tournament_id=tournament_id, actor="officer",
                                          idempotency_key=key())
    return tournament_id


def announce_slot_tournament() -> Row:
    body = {"venue": HALL, "name": "Cup", "entry_fee": "20.00",
            "prizes": {"share_bp": [6_000, 4_000]}}
    return _row(Role.COMPLIANCE_OFFICER, "/api/v1/slot-tournaments",
                {**body, "tournament_id": key("slots")},
                {**body, "tournament_id": key("slots")})


def publish_slot_prizes() -> Row:
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/slot-tournaments/{_slot_tournament()}/prizes",
                {"prizes": {"fixed": ["15.00"]}}, {"prizes": {"share_bp": [9_000]}})


def enter_slot_tournament() -> Row:
    return _row(Role.CAGE, f"/api/v1/slot-tournaments/{_slot_tournament()}/entries",
                {"player_id": make_player().id}, {"player_id": make_player().id})


def start_slot_tournament() -> Row:
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/slot-tournaments/{_slot_tournament()}/start",
                {}, other_url=f"/api/v1/slot-tournaments/{_slot_tournament()}/start")


def finish_slot_tournament() -> Row:
    return _row(Role.COMPLIANCE_OFFICER,
                f"/api/v1/slot-tournaments/{_slot_tournament('started')}/finish",
                {"ranking": []}, {"ranking": [make_player().id]})


def reconcile_machine_meters() -> Row:
    machine_id = _machine(10_00)
    return _row(Role.ACCOUNTANT, "/api/v1/machine-meters/reconciliations",
                {"venue": HALL, "gaming_day": "2026-06-16"},
                {"venue": HALL, "gaming_day": "2026-06-16",
                 "reported": {machine_id: {"cash_in_minor": 10_00}}})


def machine_pay_out() -> Row:
    return _row(Role.TABLE_CONTROLLER, f"/api/v1/machines/{_machine(10_00)}/pay-outs",
                {"to": "cash_desk"}, {"to": "account", "player_id": make_player().id})


# Posted jackpot terms, withdrawals, sit'n'go jackpots -------------------------


POSTED_TERMS = {"notice": "Gaming-area notice BB-1, poker room entrance",
                "criteria": {"1": {"texas_holdem": "full_house:aces_over_kings"}},
                "shares": {"1": {"loser_share": 4000, "winner_share": 2000,
                                 "others_share": 2000}},
                "base_guarantee": "500.00"}


def post_jackpot_terms() -> Row:
    return _row(Role.COMPLIANCE_OFFICER, f"/api/v1/jackpots/pools/{CASINO}/bad_beat/terms",
                POSTED_TERMS, {**POSTED_TERMS, "notice": "Gaming-area notice BB-2"})


ONLINE_ROOM = "poker-online"


def _online_room() -> str:
    from casino.rules.commands import register_venue
    from casino.rules.models import Venue

    if not Venue.objects.filter(code=ONLINE_ROOM).exists():
        register_venue(code=ONLINE_ROOM, name=ONLINE_ROOM, rulebook_id="veikkaus-online-poker")
    return ONLINE_ROOM


def unregister() -> Row:
    """Online, a withdrawal before the start refunds the entry (001:L310-312)."""
    t = tournaments.announce(venue=_online_room(), name="Freezeout", format="freezeout",
                             entry={"prize_minor": 10_00, "fee_minor": 1_00}, actor="td",
                             idempotency_key=key("announce")).tournament_id
    tournaments.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    ids = [_tournament_player() for _ in range(2)]
    for player_id in ids:
        tournaments.register(tournament_id=t, player_id=player_id, actor="cage",
                             idempotency_key=key())
    return _row(Role.CAGE, _t(t, "unregistrations"), {"player_id": ids[0]},
                {"player_id": ids[1]})


SITNGO_VENUE = "ray-online"


def post_sitngo_series() -> Row:
    return _row(Role.TABLE_CONTROLLER, "/api/v1/sitngo/series",
                {"venue": SITNGO_VENUE, "wins_to_trigger": 3, "fee": "0.50"},
                {"venue": SITNGO_VENUE, "wins_to_trigger": 2, "fee": "0.50"})


def _finished_sit_and_go() -> str:
    """A finished heads-up sit'n'go at RAY online (002:L3297)."""
    players = []
    for _ in range(2):
        player = make_player()
        deposit(player_id=player.id, venue=CASINO, amount_minor=500_00, currency="EUR",
                method="cash", actor="cage", idempotency_key=key("sng-deposit"))
        players.append(player.id)
    t = tournaments.announce(venue=SITNGO_VENUE, name="SNG", format="sit_and_go",
                             entry={"prize_minor": 9_50, "fee_minor": 50},
                             seats_per_table=2, actor="td",
                             idempotency_key=key("announce")).tournament_id
    tournaments.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for player_id in players:
        tournaments.register(tournament_id=t, player_id=player_id, actor="web",
                             idempotency_key=key())
    tournaments.start(tournament_id=t, actor="td", idempotency_key=key())
    tournaments.eliminate(tournament_id=t, outs=[{"player_id": players[1], "stack": 100}],
                          actor="td", idempotency_key=key())
    tournaments.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    tournaments.finish(tournament_id=t, actor="td", idempotency_key=key())
    return t


def record_sitngo_tournament() -> Row:
    from casino.sitngo.commands import post_series

    series = post_series(venue=SITNGO_VENUE, wins_to_trigger=3, fee_minor=50, actor="td",
                         idempotency_key=key("series")).series_id
    url = f"/api/v1/sitngo/series/{series}/tournaments"
    return _row(Role.TABLE_CONTROLLER, url, {"tournament_id": _finished_sit_and_go()},
                {"tournament_id": _finished_sit_and_go()})
