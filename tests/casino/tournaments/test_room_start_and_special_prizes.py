"""The Veikkaus poker room's start and special-prize rules (seed 000).

- 000:L3240: a tournament starts only when every table has at least three
  players (figure tournament.start.min_players_per_table; decision
  tournaments.start.min_players_per_table: the fewest tables, balanced).
- 000:L3410-3413: part of the pool may be paid as special prizes announced
  in the structure with their share (figure
  tournament.special_prizes.offered; decisions tournaments.special_prizes
  and tournaments.special_prizes.unawarded).
"""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.tournaments import commands
from casino.tournaments.engine import Config, EngineError, Out, Phase, Price, Tournament
from casino.tournaments.errors import TournamentError
from casino.tournaments.events import prize_pool
from casino.tournaments.models import Tournament as TournamentRow
from casino.tournaments.replay import dump_state, fold, load_state
from ledger import rebuild_projections, verify_chain
from ledger.models import Event

from .conftest import balance, funded_player, key
from .rulebook_data import figure, structure

ROOM = "veikkaus-poker-room"
ROOM_VENUE = "poker-helsinki"
PER_TABLE = figure(ROOM, "tournament.start.min_players_per_table")


def room_config(**overrides) -> Config:
    settings = dict(format="freezeout", entry=Price(2000, 500), payout=structure(ROOM),
                    min_players_per_table=PER_TABLE)
    settings.update(overrides)
    return Config(**settings)


def registered(config: Config, players: int) -> Tournament:
    t = Tournament(config)
    t.open_registration()
    for n in range(players):
        t.enter(f"p{n}")
    return t


# ---------------------------------------------------------------------------
# 000:L3240: at least three players a table
# ---------------------------------------------------------------------------

def test_the_room_rulebook_asks_three_players_a_table():
    """000:L3240: 'vähintään kolme pelaajaa' at every table."""
    assert PER_TABLE == 3


@pytest.mark.parametrize(("entrants", "seats", "starts"), [
    pytest.param(2, 9, False, id="two_at_one_table_case"),
    pytest.param(3, 9, True, id="three_at_one_table_case"),
    pytest.param(5, 4, False, id="five_at_two_tables_of_4_leave_two_case"),
    pytest.param(6, 4, True, id="six_at_two_tables_of_4_case"),
    pytest.param(10, 9, True, id="ten_at_two_tables_of_9_case"),
    pytest.param(7, 3, False, id="seven_at_three_tables_of_3_case"),
])
def test_a_room_tournament_starts_only_with_three_at_every_table(entrants, seats, starts):
    """000:L3240: the entrants sit at the fewest tables of `seats`, balanced;
    the start needs three at each, or it is refused and registration goes on."""
    t = registered(room_config(seats_per_table=seats), entrants)
    if starts:
        t.start()
        assert t.phase == Phase.RUNNING
        return
    with pytest.raises(EngineError) as refused:
        t.start()
    assert refused.value.code == "too_few_players_per_table"
    assert refused.value.details["cite"] == "000:L3240"
    assert t.phase == Phase.REGISTERING
    t.enter("late")
    if entrants + 1 >= PER_TABLE * -(-(entrants + 1) // seats):
        t.start()
        assert t.phase == Phase.RUNNING


def test_a_rulebook_without_the_figure_starts_two_players():
    """The rule is seed 000's: a tournament without the figure (online,
    Tallinn, PSLive) starts with its minimum entrants."""
    t = registered(room_config(min_players_per_table=0), 2)
    t.start()
    assert t.phase == Phase.RUNNING


def test_a_table_smaller_than_the_minimum_is_refused_at_announce():
    """A table of two can never seat three (000:L3240): the config is refused."""
    with pytest.raises(EngineError) as refused:
        room_config(seats_per_table=2)
    assert refused.value.code == "invalid_format"


def test_starting_two_room_entrants_is_refused_and_recorded(venues):
    """000:L3240 at the poker room: two entrants do not start, the refusal is
    recorded, and a third entrant lets the tournament start."""
    t = commands.announce(venue=ROOM_VENUE, name="Freezeout", format="freezeout",
                          entry={"prize_minor": 50_00, "fee_minor": 10_00}, actor="td",
                          idempotency_key=key("announce")).tournament_id
    assert TournamentRow.objects.get(id=t).config["min_players_per_table"] == 3
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(3)]
    for p in players[:2]:
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    with pytest.raises(TournamentError) as refused:
        commands.start(tournament_id=t, actor="td", idempotency_key=key())
    assert refused.value.code == "tournaments.too_few_players_per_table"
    [recorded] = Event.objects.filter(type="tournaments.request_rejected")
    assert recorded.payload["rule"] == "tournaments.too_few_players_per_table"
    assert recorded.payload["details"]["cite"] == "000:L3240"
    assert TournamentRow.objects.get(id=t).state == "registering"
    commands.register(tournament_id=t, player_id=players[2].id, actor="cage",
                      idempotency_key=key())
    assert commands.start(tournament_id=t, actor="td",
                          idempotency_key=key()).state == "running"


def test_an_online_tournament_starts_two_players(venues):
    """The online rulebook has no per-table minimum (000:L3240 is the room's):
    two entrants start a heads-up."""
    from casino.rules.commands import register_venue

    register_venue(code="veikkaus-online", name="veikkaus-online",
                   rulebook_id="veikkaus-online-poker")
    t = commands.announce(venue="veikkaus-online", name="Heads-up", format="freezeout",
                          entry={"prize_minor": 9_00, "fee_minor": 1_00}, actor="td",
                          idempotency_key=key("announce")).tournament_id
    assert TournamentRow.objects.get(id=t).config["min_players_per_table"] == 0
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for _ in range(2):
        commands.register(tournament_id=t, player_id=funded_player().id, actor="web",
                          idempotency_key=key())
    assert commands.start(tournament_id=t, actor="td",
                          idempotency_key=key()).state == "running"


# ---------------------------------------------------------------------------
# 000:L3410-3413: special prizes from the pool
# ---------------------------------------------------------------------------

FIRST_OUT = ("first_out", 500)      # 5 % of the pool to the first player out


def fixed(players: int = 6, specials=(FIRST_OUT,), **overrides) -> Tournament:
    t = registered(room_config(special_prizes=tuple(specials), **overrides), players)
    t.start()
    t.fix_pool()
    return t


def test_the_room_rulebook_offers_special_prizes():
    """000:L3410-3413: 'Osa palkintopotista voidaan jakaa ... erikoispalkintojen
    muodossa'."""
    assert figure(ROOM, "tournament.special_prizes.offered") is True


def test_a_special_prize_is_set_aside_and_paid_once_to_its_winner():
    """000:L3410-3413: six entries of 20 + 5 make a pool of 120; 5 % (6.00)
    is the first player out's; the payout table shares 114."""
    t = fixed()
    assert t.pool_minor == 12_000
    assert t.special_minor == {"first_out": 600}
    assert sum(t.prizes()) == 11_400
    t.eliminate([Out("p5")], {})
    transfers = t.award_special_prize("first_out", "p5")
    assert [(x.source, x.target, x.amount_minor, x.reason) for x in transfers] == [
        ("pool", "player:p5", 600, "special_prize")]
    assert t.pool_minor == 11_400 and sum(t.prizes()) == 11_400
    with pytest.raises(EngineError) as twice:
        t.award_special_prize("first_out", "p4")
    assert twice.value.code == "special_prize_awarded"
    for n in (4, 3, 2, 1):
        t.eliminate([Out(f"p{n}")], {})
    paid = t.finish()
    assert sum(x.amount_minor for x in paid if x.source == "pool") == 11_400
    assert t.pool_minor == 0


def test_an_unannounced_special_prize_or_a_disqualified_winner_is_refused():
    """Only the prizes the structure announces (000:L3412-3413); a disqualified
    player wins nothing (000:L3577-3578)."""
    t = fixed()
    with pytest.raises(EngineError) as unknown:
        t.award_special_prize("best_hand", "p1")
    assert unknown.value.code == "unknown_special_prize"
    t.disqualify("p5")
    with pytest.raises(EngineError) as disqualified:
        t.award_special_prize("first_out", "p5")
    assert disqualified.value.code == "not_in_play"


def test_a_special_prize_waits_for_the_fixed_pool():
    """The share is of the pool as fixed: before that no amount is known."""
    t = registered(room_config(special_prizes=(FIRST_OUT,)), 6)
    t.start()
    with pytest.raises(EngineError) as early:
        t.award_special_prize("first_out", "p1")
    assert early.value.code == "wrong_phase"


def test_a_special_prize_not_awarded_goes_back_to_the_payout_table():
    """Decision tournaments.special_prizes.unawarded: at the finish the 6.00
    nobody won is paid by the payout table; the pool empties to the cent."""
    t = fixed()
    for n in (5, 4, 3, 2, 1):
        t.eliminate([Out(f"p{n}")], {})
    paid = t.finish()
    assert sum(x.amount_minor for x in paid if x.source == "pool") == 12_000
    assert t.pool_minor == 0


def test_a_deal_shares_the_special_prizes_not_awarded():
    """Decision tournaments.special_prizes.unawarded: a deal shares the places'
    money and the special prizes nobody won."""
    t = fixed()
    for n in (5, 4, 3, 2):
        t.eliminate([Out(f"p{n}")], {})
    with pytest.raises(EngineError):
        t.record_deal({"p0": 6_000, "p1": 5_400}, ["p0", "p1"])
    t.record_deal({"p0": 6_300, "p1": 5_700}, ["p0", "p1"])
    paid = t.finish()
    assert {x.target: x.amount_minor for x in paid} == {"player:p0": 6_300,
                                                         "player:p1": 5_700}


@pytest.mark.parametrize(("specials", "reserved"), [
    pytest.param((("a", 0),), 0, id="zero_share_case"),
    pytest.param((("a", 100), ("a", 200)), 0, id="same_name_case"),
    pytest.param((("a", 6000), ("b", 3000)), 1000, id="whole_pool_with_reserve_case"),
])
def test_special_prize_shares_leave_the_payout_table_something(specials, reserved):
    """The structure's shares are above 0, named once, and with the reserve
    below the whole pool."""
    with pytest.raises(EngineError) as refused:
        room_config(special_prizes=specials, reserved_basis_points=reserved)
    assert refused.value.code == "invalid_special_prizes"


def test_special_prizes_survive_the_snapshot():
    """The snapshot keeps the amounts set aside and who won them."""
    t = fixed()
    t.award_special_prize("first_out", "p3")
    again = load_state({"format": "freezeout", "entry": {"prize_minor": 2000,
                                                         "fee_minor": 500},
                        "payout": {"key": "x", "rows": _rows()},
                        "min_players_per_table": 3,
                        "special_prizes": [{"name": "first_out", "basis_points": 500}]},
                       dump_state(t))
    assert again.special_minor == t.special_minor
    assert again.special_awarded == {"first_out": "p3"}
    assert again.prizes() == t.prizes()


def _rows():
    from .rulebook_data import book

    return next(table["rows"] for table in book(ROOM)["tables"]
                if table["key"] == "tournaments.payout.standard")


def test_special_prizes_through_the_commands_and_the_ledger(venues):
    """000:L3410-3413 at the poker room: 5 % of a pool of 6 x 50 to the first
    player out, paid from the pool account; the rest by the payout table;
    the projections rebuild to the same rows."""
    t = commands.announce(venue=ROOM_VENUE, name="Freezeout", format="freezeout",
                          entry={"prize_minor": 50_00, "fee_minor": 10_00},
                          special_prizes=[{"name": "first_out", "basis_points": 500,
                                           "description": "the first player out"}],
                          actor="td", idempotency_key=key("announce")).tournament_id
    config = TournamentRow.objects.get(id=t).config
    assert config["special_prizes"] == [{"name": "first_out", "basis_points": 500,
                                         "description": "the first player out"}]
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(6)]
    for p in players:
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    first_out = players[5]
    commands.eliminate(tournament_id=t, outs=[{"player_id": first_out.id, "stack": 100}],
                       actor="td", idempotency_key=key())
    before = balance(gaming_account(first_out.id))
    commands.award_special_prize(tournament_id=t, prize="first_out",
                                 player_id=first_out.id, actor="td", idempotency_key=key())
    assert balance(gaming_account(first_out.id)) == before + 15_00
    assert balance(prize_pool(t)) == 300_00 - 15_00
    with pytest.raises(TournamentError) as twice:
        commands.award_special_prize(tournament_id=t, prize="first_out",
                                     player_id=players[0].id, actor="td",
                                     idempotency_key=key())
    assert twice.value.code == "tournaments.special_prize_awarded"
    for p in players[4:0:-1]:
        commands.eliminate(tournament_id=t, outs=[{"player_id": p.id, "stack": 100}],
                           actor="td", idempotency_key=key())
    commands.finish(tournament_id=t, actor="td", idempotency_key=key())
    assert balance(prize_pool(t)) == 0
    # 6 entrants: 65 % and 35 % of the 285 left.
    won = {p.id: balance(gaming_account(p.id)) - 1_000_00 + 60_00 for p in players}
    assert won[players[0].id] == 185_25 and won[players[1].id] == 99_75
    assert won[first_out.id] == 15_00
    stream = [(e.type, e.payload) for e in Event.objects.filter(
        stream=f"tournament/{t}").order_by("version")]
    assert fold(stream).pool_minor == 0
    assert verify_chain().ok
    live = list(TournamentRow.objects.filter(id=t).values())
    rebuild_projections()
    assert list(TournamentRow.objects.filter(id=t).values()) == live


def test_a_rulebook_without_special_prizes_refuses_them(venues):
    """000:L3410-3413 is the Veikkaus poker room's rule: Tallinn's rulebook
    offers none, and the announcement is refused (nothing written)."""
    before = Event.objects.count()
    with pytest.raises(TournamentError) as refused:
        commands.announce(venue="olympic-tallinn", name="Freezeout", format="freezeout",
                          entry={"prize_minor": 50_00, "fee_minor": 5_00},
                          special_prizes=[{"name": "first_out", "basis_points": 500}],
                          actor="td", idempotency_key=key("announce"))
    assert refused.value.code == "tournaments.special_prizes_not_offered"
    assert Event.objects.count() == before


def test_special_prizes_over_the_api(venues):
    """000:L3410-3413 through the API: the structure announces the prize with
    its share, the table controller awards it (201), and a second award of
    the same prize is a recorded 422."""
    from casino.roles import Role
    from tests.casino.api.conftest import client_for, post

    td = client_for(Role.TABLE_CONTROLLER)
    announced = post(td, "/api/v1/tournaments", {
        "venue": ROOM_VENUE, "name": "Freezeout", "format": "freezeout",
        "entry": {"prize_minor": 50_00, "fee_minor": 10_00},
        "special_prizes": [{"name": "first_out", "basis_points": 1000,
                            "description": "the first player out"}]}, key=key())
    assert announced.status_code == 201, announced.json()
    t = announced.json()["tournament_id"]
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(3)]
    for p in players:
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    url = f"/api/v1/tournaments/{t}/special-prizes"
    awarded = post(td, url, {"prize": "first_out", "player_id": players[2].id}, key=key())
    assert awarded.status_code == 201, awarded.json()
    assert awarded.json()["transfers"] == [{"source": "pool", "to": f"player:{players[2].id}",
                                            "amount_minor": 15_00,
                                            "reason": "special_prize"}]
    again = post(td, url, {"prize": "first_out", "player_id": players[1].id}, key=key())
    assert (again.status_code, again.json()["code"]) == (
        422, "tournaments.special_prize_awarded")
    assert Event.objects.filter(type="tournaments.request_rejected").count() == 1
