"""The digests' worked examples and rules, on the pure engine (no database)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from casino.tournaments.engine import (
    CancellationTerms,
    Config,
    EliminationRules,
    EngineError,
    Out,
    Phase,
    Price,
    Tournament,
    Transfer,
    icm_split,
    paid_field,
)
from casino.tournaments.engine import hexapro
from casino.tournaments.engine.cancellation import ONLINE_POLICY

from .rulebook_data import book, figure, structure

ROOM = "veikkaus-poker-room"
ONLINE = "veikkaus-online-poker"


def room_config(**overrides) -> Config:
    settings = dict(format="freezeout", entry=Price(2000, 500), payout=structure(ROOM))
    settings.update(overrides)
    return Config(**settings)


def started(config: Config, players) -> Tournament:
    t = Tournament(config)
    t.open_registration()
    for player in players:
        t.enter(player)
    t.start()
    return t


def balance(transfers, role: str) -> int:
    return (sum(t.amount_minor for t in transfers if t.target == role)
            - sum(t.amount_minor for t in transfers if t.source == role))


def test_entry_certificate_20_plus_5_splits_prize_part_and_house_fee():
    """000:L3212-3215: an entry of "20 + 5 EUR" puts 20 in the pool and 5 to the house."""
    t = Tournament(room_config())
    t.open_registration()
    transfers = t.enter("p1")
    assert balance(transfers, "pool") == 2000
    assert balance(transfers, "fees") == 500
    assert balance(transfers, "player:p1") == -2500


def test_progressive_bounty_600_plus_70_example():
    """000:L3374-3377: 600 + 70 splits 400 pool, 200 bounty, 70 fee; the eliminator
    takes the 200, keeps 100 and adds 100 to their own bounty."""
    onto = figure(ROOM, "tournament.bounty.progressive.onto_own_basis_points")
    config = room_config(format="progressive_bounty", entry=Price(40000, 7000, 20000),
                         progressive_basis_points=onto)
    t = Tournament(config)
    t.open_registration()
    entry = t.enter("a")
    assert (balance(entry, "pool"), balance(entry, "bounties"), balance(entry, "fees")) == (
        40000, 20000, 7000)
    assert -balance(entry, "player:a") == 67000
    for p in "bcd":
        t.enter(p)
    t.start()
    transfers = t.eliminate([Out("b", 1000)], {"b": ["a"]})
    assert balance(transfers, "player:a") == 10000
    assert t.players["a"].bounty_minor == 30000
    assert t.bounties_minor == 30000 + 20000 + 20000


@pytest.mark.parametrize("takers, rebuys, expected", [
    (["a", "c"], 0, {"player:a": 1000, "player:c": 0}),                 # one token, whole
    (["c", "a"], 0, {"player:a": 0, "player:c": 1000}),                 # first after button
    (["a", "c", "d"], 1, {"player:a": 1000, "player:c": 1000, "player:d": 0}),
])
def test_split_pot_shares_bounty_tokens_whole_odd_token_after_the_button(
        takers, rebuys, expected):
    """000:L3361-3364: bounty tokens are shared equally and never broken; the odd token
    goes to the first sharer after the button (the first eliminator named)."""
    config = room_config(format="bounty", entry=Price(2000, 500, 1000), rebuy=Price(
        2000, 0, 1000), re_entry=False)
    t = started(config, ["a", "b", "c", "d"])
    for _ in range(rebuys):
        t.rebuy("b")
    transfers = t.eliminate([Out("b", 1000)], {"b": takers})
    assert {role: balance(transfers, role) for role in expected} == expected
    assert all(t.amount_minor % 1000 == 0 for t in transfers)


def test_bounty_split_in_cents_for_tournaments_announced_before_the_token_rule():
    """Streams announced without `bounty_split` fold as decided: cents, odd to the first."""
    from casino.tournaments.replay import config_from

    payout = structure(ROOM)
    data = {"format": "bounty", "entry": Price(2000, 500, 1001).as_dict(),
            "payout": {"key": payout.key, "rows": payout.as_rows()}}
    assert config_from(data).bounty_split == "cents"
    assert config_from({**data, "bounty_split": "tokens"}).bounty_split == "tokens"
    t = started(room_config(format="bounty", entry=Price(2000, 500, 1001),
                            bounty_split="cents"), ["a", "b", "c"])
    transfers = t.eliminate([Out("b", 1000)], {"b": ["a", "c"]})
    assert (balance(transfers, "player:a"), balance(transfers, "player:c")) == (501, 500)


def test_rebuy_costs_the_entry_without_the_house_fee():
    """000:L3313-3315, 002:L3281: a rebuy is the entry's prize part without the fee."""
    t = started(room_config(format="rebuy", rebuy=Price(2000), rebuys_per_player_max=1),
                ["a", "b"])
    transfers = t.rebuy("a")
    assert balance(transfers, "pool") == 2000
    assert balance(transfers, "fees") == 0
    with pytest.raises(EngineError) as refused:
        t.rebuy("a")
    assert refused.value.code == "rebuys_exhausted"


def test_add_on_only_once_and_only_in_play():
    """000:L3326-3330: one add-on; a busted player must rebuy first."""
    t = started(room_config(format="rebuy", rebuy=Price(2000), add_on=Price(4000)),
                ["a", "b", "c"])
    t.eliminate([Out("c", 100)], {"c": ["a"]})
    with pytest.raises(EngineError) as refused:
        t.add_on("c")
    assert refused.value.code == "not_in_play"
    t.add_on("a")
    with pytest.raises(EngineError):
        t.add_on("a")


def test_paid_field_grows_by_one_per_two_re_entries():
    """000:L3302-3304: the player count that sets the paid places grows by 1 for
    every 2 re-entries; 50 entries and 2 re-entries pay like a field of 51."""
    step = figure(ROOM, "tournament.re_entry.paid_field_step")
    assert step == 2
    assert paid_field(50, 1, step) == 50
    assert paid_field(50, 2, step) == 51
    assert paid_field(50, 5, step) == 52
    config = room_config(format="re_entry", re_entry=True, entries_per_player_max=3,
                         re_entries_per_paid_field_step=step)
    t = started(config, [f"p{i}" for i in range(50)])
    t.eliminate([Out("p0", 10)], {"p0": ["p1"]})
    t.enter("p0", "re_entry")
    assert len(t.prizes()) == 6
    t.eliminate([Out("p0", 10)], {"p0": ["p1"]})
    t.enter("p0", "re_entry")
    assert t.paid_field == 51
    assert len(t.prizes()) == 9
    assert sum(t.prizes()) == t.pool_minor == 52 * 2000


def test_same_table_same_hand_larger_stack_places_higher_equal_stacks_share():
    """000:L3391-3394: same table, most chips at the start of the hand higher;
    equal chips split the places' prizes equally."""
    t = started(room_config(), [f"p{i}" for i in range(6)])  # 6-10: 65 / 35 %
    t.fix_pool()
    t.eliminate([Out("p0", 500, "t1"), Out("p1", 800, "t1")], {})
    t.eliminate([Out("p2", 300, "t1")], {})
    t.eliminate([Out("p3", 700, "t1"), Out("p4", 700, "t1")], {})  # tie for 2nd and 3rd
    t.finish()
    assert t.payout.places == {"p5": 1, "p3": 2, "p4": 2, "p2": 4, "p1": 5, "p0": 6}
    second = 12000 * 3500 // 10000
    assert t.payout.prizes_minor["p3"] == t.payout.prizes_minor["p4"] == second // 2
    assert sum(t.payout.prizes_minor.values()) == 12000


def test_different_tables_same_hand_tie_whatever_the_stacks():
    """000:L3397-3398, 004:L77: out at different tables in one hand: they share."""
    t = started(room_config(), [f"p{i}" for i in range(3)])
    t.fix_pool()
    t.eliminate([Out("p0", 100, "t1"), Out("p1", 9000, "t2")], {})
    t.finish()
    assert t.payout.places["p0"] == t.payout.places["p1"] == 2
    assert t.payout.prizes_minor == {"p2": 6000, "p0": 0, "p1": 0}


def test_online_equal_stacks_ranked_by_the_recorded_draw():
    """001:L346: equal stacks are ordered at random; the draw is recorded as tie_break."""
    rules = EliminationRules(different_tables=figure(ONLINE, "tournament.elimination.different_tables"),
                             equal_stacks=figure(ONLINE, "tournament.elimination.equal_stacks"))
    t = started(room_config(elimination=rules), [f"p{i}" for i in range(6)])
    t.fix_pool()
    t.eliminate([Out("p0", 100, "t1"), Out("p1", 100, "t2")], {})
    t.eliminate([Out("p2", 500, "t1", tie_break=2), Out("p3", 500, "t1", tie_break=1)], {})
    t.eliminate([Out("p4", 10)], {})
    t.finish()
    assert t.payout.places == {"p5": 1, "p4": 2, "p3": 3, "p2": 4, "p0": 5, "p1": 5}


def test_disqualified_money_stays_in_pool_and_places_below_move_up():
    """000:L3577-3578, L3614-3618, 004:L177: no prize, money in the pool, those
    below move up one place."""
    t = started(room_config(), [f"p{i}" for i in range(6)])
    t.fix_pool()
    t.eliminate([Out("p0", 10)], {})
    t.eliminate([Out("p1", 10)], {})
    t.eliminate([Out("p2", 10)], {})
    t.eliminate([Out("p3", 10)], {})   # p3 would be 3rd
    t.eliminate([Out("p4", 10)], {})
    t.disqualify("p4")                 # 2nd, found cheating after busting
    t.finish()
    assert "p4" not in t.payout.places
    assert t.payout.places["p3"] == 2
    assert t.payout.prizes_minor["p3"] == 12000 * 3500 // 10000
    assert sum(t.payout.prizes_minor.values()) == 6 * 2000


def test_excluded_player_keeps_the_place_held_when_excluded():
    """004:L175-176: 15 left, excluded player gets 15th place."""
    t = started(room_config(), [f"p{i}" for i in range(40)])
    t.fix_pool()
    for i in range(25):
        t.eliminate([Out(f"p{i}", 10)], {})
    assert len(t.alive) == 15
    t.exclude("p30")
    for i in range(25, 40):
        if f"p{i}" != "p30" and len(t.alive) > 1:
            t.eliminate([Out(f"p{i}", 10)], {})
    t.finish()
    assert t.payout.places["p30"] == 15


def test_tallinn_fewer_than_seven_entrants_cannot_start_and_are_refunded():
    """003:L163, L171-174: minimum 7 players; fewer at the start: refund."""
    minimum = figure("olympic-tallinn", "tournament.min_entrants")
    t = Tournament(room_config(min_entrants=minimum))
    t.open_registration()
    for p in "abcdef":
        t.enter(p)
    with pytest.raises(EngineError) as refused:
        t.start()
    assert refused.value.code == "too_few_entrants"
    transfers = t.cancel()
    assert t.phase == Phase.CANCELLED
    assert all(balance(transfers, f"player:{p}") == 2500 for p in "abcdef")


def test_cancel_before_start_refunds_every_entry_in_full():
    """001:L419-421: full buy-in back, several entries included."""
    t = Tournament(room_config(format="progressive_bounty", entry=Price(1000, 100, 500),
                               progressive_basis_points=5000))
    t.open_registration()
    t.enter("a")
    transfers = t.cancel()
    assert balance(transfers, "player:a") == 1600
    assert t.pool_minor == t.fees_minor == t.bounties_minor == 0


def test_interrupted_before_the_money_half_equal_half_by_chips_fees_back():
    """001:L423-427: fees (rebuys and add-ons included) back to the players left;
    half of the pool equally, half by chips."""
    assert figure(ONLINE, "tournament.cancel.before_itm.equal_split") == 5000
    t = started(room_config(format="rebuy", rebuy=Price(2000)), ["a", "b", "c", "d"])
    t.rebuy("a")
    t.eliminate([Out("d", 10)], {})
    transfers = t.cancel({"a": 3000, "b": 2000, "c": 1000})
    pool = 5 * 2000
    # a: 1,666.67 + 2,500 = 4,166.67; b: 3,333.33; c: 2,500: the odd cent to a.
    assert t.payout.prizes_minor == {"a": 4167, "b": 3333, "c": 2500}
    assert sum(t.payout.prizes_minor.values()) == pool
    assert t.payout.fees_refunded_minor == {"a": 500, "b": 500, "c": 500}
    assert balance(transfers, "player:d") == 0


def test_interrupted_in_the_money_away_from_the_final_table_lowest_prize_plus_chips():
    """001:L431-432: each remaining player gets the lowest open prize, the rest by chips."""
    t = started(room_config(seats_per_table=3), [f"p{i}" for i in range(25)])  # 5 paid
    t.fix_pool()
    for i in range(21):
        t.eliminate([Out(f"p{i}", 10)], {})
    assert t.phase == Phase.IN_THE_MONEY and len(t.alive) == 4
    prizes = t.prizes()
    t.cancel({"p21": 100, "p22": 100, "p23": 100, "p24": 100})
    assert t.payout.method == "lowest_prize_and_chips"
    assert t.payout.prizes_minor["p20"] == prizes[4]
    open_money = sum(prizes[:4])
    assert sorted(t.payout.prizes_minor[p] for p in ("p21", "p22", "p23", "p24")) == [
        open_money // 4] * 4


def test_interrupted_at_the_final_table_splits_by_icm():
    """001:L433: at the final table the open prizes go by ICM."""
    t = started(room_config(), [f"p{i}" for i in range(12)])  # 3 paid: 50/30/20
    t.fix_pool()
    for i in range(9):
        t.eliminate([Out(f"p{i}", 10)], {})
    prizes = t.prizes()
    stacks = {"p9": 5000, "p10": 3000, "p11": 2000}
    t.cancel(stacks)
    assert t.payout.method == "icm"
    expected = icm_split(sum(prizes), list(stacks.values()), prizes)
    assert [t.payout.prizes_minor[p] for p in stacks] == expected


def test_interrupted_bounty_tournament_pays_each_player_their_own_bounty():
    """001:L444: every player receives their own bounty value."""
    t = started(room_config(format="progressive_bounty", entry=Price(1000, 100, 1000),
                            progressive_basis_points=5000), ["a", "b", "c"])
    t.eliminate([Out("c", 10)], {"c": ["a"]})
    transfers = t.cancel({"a": 2, "b": 1})
    assert t.payout.bounties_minor == {"a": 1500, "b": 1000}
    assert t.bounties_minor == 0 and t.pool_minor == 0
    assert balance(transfers, "bounties") == -2500


def test_deal_needs_every_remaining_player_and_shares_the_open_prizes():
    """004:L19, 000:L3401-3403: a deal needs all remaining players' consent."""
    t = started(room_config(), [f"p{i}" for i in range(6)])
    t.fix_pool()
    for i in range(3):
        t.eliminate([Out(f"p{i}", 10)], {})
    open_money = sum(t.prizes()[:3])
    with pytest.raises(EngineError) as refused:
        t.record_deal({"p3": open_money, "p4": 0, "p5": 0}, consents=["p3", "p4"])
    assert refused.value.code == "deal_without_consent"
    with pytest.raises(EngineError):
        t.record_deal({"p3": open_money - 1, "p4": 0, "p5": 0}, consents=["p3", "p4", "p5"])
    t.record_deal({"p3": 4000, "p4": 4000, "p5": open_money - 8000},
                  consents=["p3", "p4", "p5"])
    t.finish()
    assert t.payout.method == "deal"
    assert t.payout.prizes_minor["p3"] == 4000
    assert sum(t.payout.prizes_minor.values()) == 12000


def test_satellite_pays_seats_and_the_remainder_in_cash():
    """000:L3344-3345, 003:L153: the pool buys seats of the target's value."""
    config = room_config(format="satellite", satellite_seat_minor=5000)
    t = started(config, [f"p{i}" for i in range(7)])  # pool 14,000: 2 seats + 4,000
    t.fix_pool()
    for i in range(6):
        t.eliminate([Out(f"p{i}", 10)], {})
    t.finish()
    assert t.payout.seats == ("p6", "p5")
    assert t.payout.prizes_minor["p4"] == 4000


def test_online_sng_fee_table_five_handed_50_is_48_50_plus_1_50():
    """001:L691: EUR 50 five-handed Sit & Go = 48.50 prize part + 1.50 fee."""
    prize = figure(ONLINE, "tournament.fee.sng_5_handed.eur50.prize_pool_part")
    fee = figure(ONLINE, "tournament.fee.sng_5_handed.eur50.fee_part")
    assert Price(prize, fee).total_minor == 5000
    assert (prize, fee) == (4850, 150)


def hexapro_rows() -> list[hexapro.PrizeRow]:
    rows = []
    for row in book(ONLINE)["figures"]:
        if row["key"].startswith("hexapro.probability_per_100000."):
            label = row["key"].rsplit(".", 1)[1]
            rows.append(hexapro.PrizeRow(label, hexapro.multiplier_of(label), row["value"]))
    return rows


def test_hexapro_prize_table_and_its_6_853_percent_rake():
    """001:L480-489: the prize table's probabilities sum to 100,000 and leave the
    house exactly 6.853 % of three buy-ins."""
    rows = hexapro_rows()
    assert len(rows) == 7
    assert hexapro.house_share(rows) == Fraction(figure(ONLINE, "hexapro.rake"), 1_000_000)
    assert hexapro.house_share(rows) == Fraction(6853, 100_000)
    for row in rows:
        for level in ("eur1", "eur10", "eur100"):
            buy_in = figure(ONLINE, f"hexapro.buy_in.{level}")
            assert figure(ONLINE, f"hexapro.prize.{level}.{row.label}") == row.multiplier * buy_in


def test_hexapro_split_winner_takes_all_up_to_10x_else_80_12_8():
    """001:L493: up to 10x the winner takes all; above, 80 / 12 / 8 %."""
    split = [figure(ONLINE, f"hexapro.payout.{p}") for p in ("first", "second", "third")]
    wta = figure(ONLINE, "hexapro.payout.winner_takes_all_max_multiplier")
    assert hexapro.shares_for(Fraction(10), wta, split) == (10_000,)
    assert hexapro.shares_for(Fraction(25), wta, split) == (8000, 1200, 800)
    t = started(Config(format="hexapro", entry=Price(1000), payout=structure(ROOM),
                       min_entrants=3), ["a", "b", "c"])
    transfers = t.draw_prize_pool(25000, hexapro.shares_for(Fraction(25), wta, split))
    assert balance(transfers, "pool") == 22000 and t.house_funded_minor == 22000
    t.eliminate([Out("c", 100)], {})
    t.eliminate([Out("b", 100)], {})
    t.finish()
    assert t.payout.prizes_minor == {"a": 20000, "b": 3000, "c": 2000}


def test_hexapro_draw_follows_the_table_and_a_small_pool_is_the_house_fee():
    """001:L487: 1.5x pays 1.5 buy-ins of 3 collected; the 1.5 left is the house's."""
    rows = hexapro_rows()
    drawn = [hexapro.draw(rows, random.Random(seed)).label for seed in range(200)]
    assert set(drawn) <= {r.label for r in rows}
    t = started(Config(format="hexapro", entry=Price(1000), payout=structure(ROOM),
                       min_entrants=3), ["a", "b", "c"])
    transfers = t.draw_prize_pool(1500, (10_000,))
    assert balance(transfers, "fees") == 1500


def test_interrupted_hexapro_pays_ten_percent_each_then_icm():
    """001:L436-442 (decision hexapro.cancel_share): 10 % each, the rest by ICM."""
    t = started(Config(format="hexapro", entry=Price(1000), payout=structure(ROOM),
                       min_entrants=3), ["a", "b", "c"])
    t.draw_prize_pool(100000, (8000, 1200, 800))
    t.cancel({"a": 500, "b": 500, "c": 500})
    assert t.payout.method == "hexapro_icm"
    assert sorted(t.payout.prizes_minor.values()) == [33333, 33333, 33334]


def _figures(rulebook_id: str) -> dict:
    return {row["key"]: row["value"] for row in book(rulebook_id)["figures"]}


def test_cancellation_terms_are_read_from_the_online_figures():
    """001:L426, L441: the engine's default terms are the shipped figures, read by key."""
    terms = CancellationTerms.from_figures(_figures(ONLINE))
    assert terms == ONLINE_POLICY == CancellationTerms(5000, 5000, 1000)
    with pytest.raises(EngineError) as caught:
        CancellationTerms.from_figures({"tournament.cancel.before_itm.equal_split": 5000})
    assert caught.value.code == "invalid_cancellation_terms"
    assert caught.value.details["missing"] == [
        "hexapro.cancel.share_per_remaining_player", "tournament.cancel.before_itm.chip_split",
        "tournament.cancel.refund_item"]
    with pytest.raises(EngineError):
        CancellationTerms.from_figures({**_figures(ONLINE),
                                        "tournament.cancel.refund_item": "whole_buy_in"})
    with pytest.raises(EngineError):
        CancellationTerms(6000, 5000, 1000)          # more than the pool


def test_other_cancellation_terms_change_the_interruption_payout():
    """A version with other shares pays otherwise: all by chips, and 20 % each in HexaPro."""
    by_chips = CancellationTerms(0, 10_000, 2000)
    t = started(room_config(cancellation=by_chips), ["a", "b", "c", "d"])
    t.eliminate([Out("d", 10)], {})
    t.cancel({"a": 3000, "b": 2000, "c": 1000})
    assert t.payout.prizes_minor == {"a": 4000, "b": 2667, "c": 1333}
    hexa = started(Config(format="hexapro", entry=Price(1000), payout=structure(ROOM),
                          min_entrants=3, cancellation=by_chips), ["a", "b", "c"])
    hexa.draw_prize_pool(100000, (8000, 1200, 800))
    hexa.cancel({"a": 1000, "b": 400, "c": 100})
    assert min(hexa.payout.prizes_minor.values()) >= 20000
    assert sum(hexa.payout.prizes_minor.values()) == 100000


def test_online_prize_paid_at_the_bust_cannot_be_disqualified_away():
    """001:L366 (decision tournaments.prizes.paid_at_bust): the busting player in a
    paid place is paid at once; that player can no longer be disqualified, and the
    finish pays only what is still due."""
    config = Config(format="freezeout", entry=Price(1000, 100), payout=structure(ONLINE),
                    prizes_paid_at="bust")
    t = started(config, "abcdef")
    t.fix_pool()
    assert t.eliminate([Out(p, 10) for p in "cdef"], {}) == []
    transfers = t.eliminate([Out("b", 10)], {})
    assert transfers == [Transfer("pool", "player:b", 2100, "prize")]
    with pytest.raises(EngineError) as refused:
        t.disqualify("b")
    assert refused.value.code == "prize_already_paid"
    final = t.finish()
    assert [(tr.target, tr.amount_minor) for tr in final] == [("player:a", 3900)]
    assert t.pool_minor == 0
