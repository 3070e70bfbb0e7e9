"""Issue 22, games engines: the options the first wave left out, row by row.

Punto Banco's minimum commission (002:L2799); Oasis Stud Poker versions B, C
and D with their pay tables (002:L2104-2140), the table's euro win cap
(002:L2039) and the progressive bonus (002:L2041); player-banked Pai Gow
(002:L2623); Baccara's bank continuation, passing, banco solo, avec and avec
la table (002:L2817-2827, L2869). Expected multipliers are
typed from the seed lines and compared with the shipped rows first.
"""

from __future__ import annotations

import pytest

from casino.games.engine.baccarat import Baccara, PuntoBanco
from casino.games.engine.common import BetIn, BetInvalid, OutcomeInvalid
from casino.games.engine.oasis import OasisStudPoker
from casino.games.engine.oasis_wild import wild_class, wild_value
from casino.games.engine.pai_gow import PaiGowPoker

from .rows import CASINO, rows, tables

OASIS = OasisStudPoker()
PUNTO_BANCO = PuntoBanco()

# ---------------------------------------------------------------------------
# Punto Banco: the minimum commission (002:L2799)
# ---------------------------------------------------------------------------


def _banco(config, stake):
    clean = PUNTO_BANCO.configure(config, tables(CASINO))
    bets = [BetIn("b", "banco", {}, stake)]
    outcome = PUNTO_BANCO.check_outcome({"punto": "2h 3d", "banco": "9h Kd"}, clean, bets,
                                        tables(CASINO))
    return PUNTO_BANCO.settle(bets, outcome, tables(CASINO), clean)[0]


def test_a_banco_win_pays_at_least_the_posted_minimum_commission():
    """002:L2799, decision games.punto_banco.commission_min: 5 % of EUR 10 is 0.50, the
    posted minimum EUR 1 is taken instead; 5 % of EUR 100 (EUR 5) is above it."""
    small = _banco({"commission_minor_min": 1_00}, 10_00)
    assert (small.commission_minor, small.returned_minor) == (1_00, 19_00)
    assert small.detail["commission_min_cite"] == "002:L2799"
    large = _banco({"commission_minor_min": 1_00}, 100_00)
    assert (large.commission_minor, large.returned_minor) == (5_00, 195_00)
    none = _banco({}, 10_00)
    assert (none.commission_minor, none.returned_minor) == (50, 19_50)


def test_the_minimum_commission_never_takes_more_than_the_win():
    """A EUR 0.50 banco win against a EUR 1 minimum: the stake comes back whole."""
    tiny = _banco({"commission_minor_min": 1_00}, 50)
    assert (tiny.commission_minor, tiny.returned_minor, tiny.result) == (50, 50, "push")


def test_the_minimum_commission_needs_the_commission_version():
    with pytest.raises(BetInvalid):
        PUNTO_BANCO.configure({"banco": "no_commission_6", "commission_minor_min": 100},
                              tables(CASINO))
    with pytest.raises(BetInvalid):
        PUNTO_BANCO.configure({"commission_minor_min": 0}, tables(CASINO))


# ---------------------------------------------------------------------------
# Oasis versions B-D (002:L2104-2140)
# ---------------------------------------------------------------------------

B_PAYS = {"royal_flush": 100, "straight_flush": 50, "four_of_a_kind": 20, "full_house": 7,
          "flush": 5, "straight": 3, "three_of_a_kind": 2, "two_pair": 1, "pair": 1}
C_PAYS = {"royal_flush_natural": 100, "royal_flush_wild": 50, "five_of_a_kind": 30,
          "straight_flush": 10, "four_of_a_kind": 3, "full_house": 3, "flush": 2,
          "straight": 2, "three_of_a_kind": 1, "two_pair": 1, "pair": 1}
D_PAYS = {"royal_flush": 1000, "straight_flush": 200, "four_of_a_kind": 50, "full_house": 11,
          "flush": 8, "straight": 5, "three_of_a_kind": 3, "two_pair": 2, "pair": 1}
STAKE = 1_000
B_HANDS = {"royal_flush": "Ah Kh Qh Jh Th", "straight_flush": "9s 8s 7s 6s 5s",
           "four_of_a_kind": "9c 9d 9h 9s 3c", "full_house": "Qc Qd Qh 4s 4c",
           "flush": "Ad 9d 7d 4d 3d", "straight": "9c 8h 7h 6s 5c",
           "three_of_a_kind": "Jc Jd Jh Ks 3c", "two_pair": "Jc Jd 5h 5s 3c",
           "pair": "Tc Td Kh 5s 3c"}
C_HANDS = {"royal_flush_natural": "Ah Kh Qh Jh Th", "royal_flush_wild": "Ah Kh Qh Jh 2c",
           "five_of_a_kind": "9c 9d 9h 2s 2c", "straight_flush": "9s 8s 7s 6s 2c",
           "four_of_a_kind": "Qc Qd Qh 2s 4c", "full_house": "Qc Qd 4h 2s 4c",
           "flush": "Ad 9d 7d 2d 3d", "straight": "9c 8h 7h 2s 5c",
           "three_of_a_kind": "Kc Kd 2h 5s 3c", "two_pair": "Kc Kd 5h 5s 3c",
           "pair": "Kc 2d 9h 5s 3c"}


def _oasis(version, kinds, box, dealer=None, community=None, stake=STAKE, **config):
    clean = OASIS.configure({"version": version, **config}, tables(CASINO))
    bets = [BetIn(k, k, {"box": 1}, stake * (2 if k == "bet" else 1)) for k in kinds]
    facts = {"boxes": {"1": box}}
    if dealer is not None:
        facts["dealer"] = dealer
    if community is not None:
        facts["community"] = community
    outcome = OASIS.check_outcome(facts, clean, bets, tables(CASINO))
    return {s.bet_id: s for s in OASIS.settle(bets, outcome, tables(CASINO), clean)}


def test_the_version_pay_tables_are_the_seeds():
    """002:L2106-2114, L2118-2128, L2132-2140."""
    for key, pays in (("bet_b", B_PAYS), ("bet_c", C_PAYS), ("bet_d", D_PAYS)):
        assert {r["id"]: r["pays"] for r in rows(CASINO, f"games.oasis_stud_poker.{key}")
                } == pays, key
    versions = {r["id"]: r for r in rows(CASINO, "games.oasis_stud_poker.versions")}
    assert {v: r["pair_rank_min"] for v, r in versions.items()} == {"b": 8, "c": 8, "d": 10}
    assert (versions["b"]["exchanges_max"], versions["c"]["wild"]) == (2, "2")


def test_version_b_pays_every_row_against_a_pair_of_eights():
    """002:L2104: the dealer opens with a pair of eights; the bet pays by B's table."""
    dealer = "8d 8c 6d 4h 2h"
    for hand, pays in B_PAYS.items():
        won = _oasis("b", ["ante", "bet"], B_HANDS[hand], dealer)
        assert (won["ante"].returned_minor, won["bet"].returned_minor, won["bet"].row) == (
            2 * STAKE, 2 * STAKE * (1 + pays), hand), hand


def test_version_b_dealer_below_eights_does_not_qualify():
    """002:L2104 with 002:L2007: a pair of sevens does not open; ante 1:1, bet pushes."""
    result = _oasis("b", ["ante", "bet"], B_HANDS["pair"], "7h 7d 6c 4s 2h")
    assert (result["ante"].returned_minor, result["bet"].result) == (2 * STAKE, "push")
    assert result["ante"].detail["dealer_qualified"] is False


def test_version_b_exchange_is_one_ante_fee_and_there_is_no_bought_game():
    """Decision games.oasis_stud_poker.version_b_fee; 002:L2104."""
    result = _oasis("b", ["ante", "bet", "swap"], B_HANDS["flush"], "8h 8c 6c 4s 2h")
    assert (result["swap"].returned_minor, result["swap"].row) == (0, "swap_fee")
    config = OASIS.configure({"version": "b"}, tables(CASINO))
    swap = OASIS.bet_kind("swap", {"box": 1}, tables(CASINO), config)
    assert (swap.raise_rule, swap.in_play) == ("equal", True)
    for kind in ("buy", "bonus"):
        with pytest.raises(BetInvalid):
            OASIS.bet_kind(kind, {"box": 1}, tables(CASINO), config)


def test_version_c_ranks_deuces_wild_and_pays_every_row():
    """002:L2116-2128: every two is a joker; five of a kind and the wild royal rank."""
    for hand, cards in C_HANDS.items():
        assert wild_class(wild_value(cards.split())) == hand, hand
    dealer = "8d 8c 6h 5d 3s"
    for hand, pays in C_PAYS.items():
        won = _oasis("c", ["ante", "bet"], C_HANDS[hand], dealer)
        assert (won["bet"].returned_minor, won["bet"].row) == (2 * STAKE * (1 + pays),
                                                               hand), hand
    # A natural royal beats a wild one, and a wild pair of eights opens for the dealer.
    assert wild_value("Ah Kh Qh Jh Th".split()) > wild_value("As Ks Qs Js 2c".split())
    lost = _oasis("c", ["ante", "bet"], "8c 2d 9h 5s 3c", "Ah 2h 9c 5d 4c")
    assert (lost["ante"].result, lost["bet"].result) == ("lose", "lose")


def test_version_c_has_no_exchanges():
    config = OASIS.configure({"version": "c"}, tables(CASINO))
    with pytest.raises(BetInvalid):
        OASIS.bet_kind("swap", {"box": 1}, tables(CASINO), config)


def test_version_d_pays_three_bets_from_a_pair_of_tens():
    """002:L2130-2140: three own cards and two community cards, no ante, no dealer."""
    won = _oasis("d", ["bet_1", "bet_2", "bet_3"], "Qh Jh Th", community="Ah Kh")
    assert {s.returned_minor for s in won.values()} == {STAKE * (1 + 1000)}
    tens = _oasis("d", ["bet_1", "bet_2", "bet_3"], "Tc Td 5h", community="9s 2c")
    assert {(s.row, s.returned_minor) for s in tens.values()} == {("pair", 2 * STAKE)}
    nines = _oasis("d", ["bet_1", "bet_2", "bet_3"], "9c 9d 5h", community="Ks 2c")
    assert {s.returned_minor for s in nines.values()} == {0}
    config = OASIS.configure({"version": "d"}, tables(CASINO))
    bet_2 = OASIS.bet_kind("bet_2", {"box": 3}, tables(CASINO), config)
    assert (bet_2.raise_of, bet_2.raise_rule, bet_2.in_play) == ("bet_1:3", "equal", False)
    with pytest.raises(BetInvalid):
        OASIS.bet_kind("ante", {"box": 1}, tables(CASINO), config)
    with pytest.raises(OutcomeInvalid):
        _oasis("d", ["bet_1"], "Qh Jh Th", community="Qh Kh")      # one deck


def test_the_tables_win_cap_cuts_a_boxs_win():
    """002:L2039, decision games.oasis_stud_poker.win_cap: EUR 500 posted; a flush against
    a qualified dealer wins 10 + 5 x 20 = EUR 110 on EUR 10 / 20; with EUR 50 posted the
    bet's win is cut by 60, the ante's win stays."""
    capped = _oasis("base", ["ante", "bet"], "Ad 9d 7d 4d 2d", "As Kc 8d 4h 3c",
                    win_minor_max=50_00, stake=10_00)
    assert capped["ante"].returned_minor == 20_00
    assert capped["bet"].returned_minor == 20_00 + 100_00 - 60_00
    assert capped["bet"].detail["win_cap"] == {"limit_minor": 50_00, "cut_minor": 60_00,
                                               "cite": "002:L2039"}
    free = _oasis("base", ["ante", "bet"], "Ad 9d 7d 4d 2d", "As Kc 8d 4h 3c", stake=10_00)
    assert free["bet"].returned_minor == 120_00


def test_the_progressive_bonus_feeds_the_pool_and_records_a_hit():
    """002:L2041, decision games.oasis_stud_poker.progressive: 15 % of the stake to the
    pool; a royal flush takes the whole pool, paid from it, not by the table."""
    result = _oasis("base", ["ante", "bet", "bonus"], "Ah Kh Qh Jh Th", "As Kc 8d 4h 3c",
                    bonus="progressive")
    bonus = result["bonus"]
    assert (bonus.result, bonus.returned_minor, bonus.contribution_minor) == (
        "jackpot", 0, 150)
    assert bonus.jackpot_kind == "oasis_progressive"
    assert bonus.detail["jackpot_hit"]["pool_basis_points"] == 10_000
    miss = _oasis("base", ["ante", "bet", "bonus"], "7c 7d Kh 5s 2c", "As Kc 8d 4h 3c",
                  bonus="progressive")["bonus"]
    assert (miss.result, miss.contribution_minor) == ("lose", 150)
    with pytest.raises(BetInvalid):
        OASIS.configure({"version": "c", "bonus": "progressive"}, tables(CASINO))


# ---------------------------------------------------------------------------
# Player-banked Pai Gow (002:L2623)
# ---------------------------------------------------------------------------

PAI_GOW = PaiGowPoker()
PLAYER_BANK = {"bank": "player"}
# The banker's two pair (front Q-J); box 2 beats both hands, box 3 loses both,
# the house's seven cards (house way) lose both hands to the banker.
BANKER = {"front": "Qs Jd", "back": "9c 9d 5c 5d 2s"}
BOX_WINS = {"front": "Ac Ad", "back": "Kh Kd Ks 3c 3d"}
BOX_LOSES = {"front": "4h 3h", "back": "8h 8c 6s 7h 2c"}
DEALER_7 = "Th 6d 4c 2d 7s 3s Js"          # no pair: J-T front, below the banker


def _pai_gow_bank(stakes, dealer_stake=0, previous=None, banker=BANKER):
    bets = [BetIn(f"bet-{n}", kind, {"box": box}, stake)
            for n, (kind, box, stake) in enumerate(stakes)]
    players = {b.bet_id: ("banker" if b.kind == "bank" else f"p{n}")
               for n, b in enumerate(bets)}
    boxes = {"2": BOX_WINS, "3": BOX_LOSES}
    facts = {"dealer": DEALER_7, "banker": banker, "dealer_stake_minor": dealer_stake,
             "boxes": {k: v for k, v in boxes.items()
                       if any(str(b.spec["box"]) == k for b in bets if b.kind == "bet")},
             "previous_round": previous, "round_players": players}
    outcome = PAI_GOW.check_outcome(facts, PLAYER_BANK, bets, tables(CASINO))
    return {s.bet_id: s for s in PAI_GOW.settle(bets, outcome, tables(CASINO), PLAYER_BANK)}


def _previous(banker_box_stake):
    return {"round_id": "gt-x.1", "bets": [
        {"player_id": "banker", "kind": "bet", "spec": {"box": 1},
         "stake_minor": banker_box_stake, "returned_minor": 0, "result": "lose"}]}


def test_a_player_bank_pays_the_boxes_and_the_house_takes_5_percent_of_its_net_win():
    """002:L2623: box 2 wins 100 (less 5 to the house), box 3 loses 300 to the bank,
    the dealer's 200 (capped by the banker's 200 last round) loses to the bank: the
    bank nets 300 - 100 + 200 = 400 and pays the house 5 % of it, 20."""
    result = _pai_gow_bank([("bank", 1, 1_000), ("bet", 2, 100), ("bet", 3, 300)],
                           dealer_stake=200, previous=_previous(200))
    assert result["bet-1"].returned_minor == 195
    assert result["bet-2"].returned_minor == 0
    bank = result["bet-0"]
    assert (bank.detail["bank_net_minor"], bank.commission_minor) == (400, 20)
    assert bank.returned_minor == 1_000 + 400 - 20
    assert (bank.row, bank.cite) == ("bank_net_win", "002:L2623")
    assert bank.detail["dealer_result"] == "bank_won"
    # Money is conserved: what the players get back, the commissions and the
    # house's result (the dealer's 200 lost) add up to the stakes.
    staked = 1_000 + 100 + 300
    paid = sum(s.returned_minor for s in result.values())
    commission = sum(s.commission_minor for s in result.values())
    assert staked - paid - commission == -200


def test_a_player_bank_net_loss_pays_no_commission():
    result = _pai_gow_bank([("bank", 1, 1_000), ("bet", 2, 400)])
    bank = result["bet-0"]
    assert (bank.detail["bank_net_minor"], bank.commission_minor) == (-400, 0)
    assert bank.returned_minor == 600


def test_the_dealer_plays_the_banker_with_at_most_last_rounds_stake():
    """002:L2623: 250 against a cap of 200 is refused; no previous round, no dealer."""
    with pytest.raises(OutcomeInvalid):
        _pai_gow_bank([("bank", 1, 1_000)], dealer_stake=250, previous=_previous(200))
    with pytest.raises(OutcomeInvalid):
        _pai_gow_bank([("bank", 1, 1_000)], dealer_stake=1, previous=None)
    assert _pai_gow_bank([("bank", 1, 1_000)], dealer_stake=200,
                         previous=_previous(200))["bet-0"].detail["dealer_cap_minor"] == 200


def test_the_bank_covers_the_boxes_and_the_dealer():
    """Decision games.pai_gow.player_bank."""
    with pytest.raises(OutcomeInvalid):
        _pai_gow_bank([("bank", 1, 300), ("bet", 2, 200)], dealer_stake=200,
                      previous=_previous(200))
    assert PAI_GOW.stake_room("bet", "p2", [("b", "bank", 500), ("p1", "bet", 200)],
                              config=PLAYER_BANK) == (300, "002:L2623")
    refusal = PAI_GOW.bank_refusal
    assert refusal("bank", "p2", 100, [("b", "bank", 500)], None, PLAYER_BANK)
    assert refusal("bet", "b", 100, [("b", "bank", 500)], None, PLAYER_BANK)
    assert refusal("bet", "p1", 100, [], None, PLAYER_BANK)
    assert refusal("bet", "p1", 100, [], None, {}) is None       # the house banks


def test_a_fouled_bank_loses_to_every_box_and_the_dealer():
    fouled = {"front": "Ac Ad", "back": "9c 8d 5c 4d 2s"}
    result = _pai_gow_bank([("bank", 1, 1_000), ("bet", 3, 100)], dealer_stake=100,
                           previous=_previous(100), banker=fouled)
    assert result["bet-1"].returned_minor == 195
    assert result["bet-0"].detail["bank_net_minor"] == -100 - 100


# ---------------------------------------------------------------------------
# Baccara with a player bank (002:L2817-2827, L2869)
# ---------------------------------------------------------------------------

BACCARA = Baccara()


def _last_coup(player_id, result, returned):
    return {"round_id": "gt-b.1", "bets": [
        {"player_id": player_id, "kind": "banco", "spec": {}, "stake_minor": 1_000,
         "returned_minor": returned, "result": result}]}


def test_a_continuing_bank_stakes_the_previous_bank_plus_its_winnings():
    """002:L2817: after winning 1,000 less 50 commission the bank continues at 1,950."""
    previous = _last_coup("p1", "win", 1_950)
    assert BACCARA.bank_refusal("banco", "p1", 1_950, [], previous, {}) is None
    refused = BACCARA.bank_refusal("banco", "p1", 1_000, [], previous, {})
    assert (refused["cite"], refused["limit_minor"]) == ("002:L2817", 1_950)
    # Another player takes the bank at any amount (002:L2819: the banker may pass).
    assert BACCARA.bank_refusal("banco", "p2", 500, [], previous, {}) is None


def test_the_bank_passes_after_a_punto_win():
    """002:L2819."""
    previous = _last_coup("p1", "lose", 0)
    refused = BACCARA.bank_refusal("banco", "p1", 1_000, [], previous, {})
    assert refused["cite"] == "002:L2819"
    assert BACCARA.bank_refusal("banco", "p2", 1_000, [], previous, {}) is None


def _coup(bets, punto="9h Kd", banco="2c 3s", choices=None):
    ins = [BetIn(f"{k}-{n}", k, {}, s) for n, (k, s) in enumerate(bets)]
    outcome = BACCARA.check_outcome({"punto": punto, "banco": banco,
                                     "choices": choices or {}}, {}, ins, tables(CASINO))
    return {s.bet_id: s for s in BACCARA.settle(ins, outcome, tables(CASINO), {})}


def test_banco_avec_shares_the_bank_pro_rata():
    """002:L2825: the banker's 1,000 and avec's 500 win the punto's 1,500 less 75."""
    won = _coup([("banco", 1_000), ("banco_avec", 500), ("punto", 1_500)],
                punto="2c 3s", banco="9h Kd")
    assert (won["banco-0"].returned_minor, won["banco-0"].commission_minor) == (1_950, 50)
    assert (won["banco_avec-1"].returned_minor, won["banco_avec-1"].commission_minor) == (
        975, 25)
    lost = _coup([("banco", 1_000), ("banco_avec", 500), ("punto", 600)])
    assert (lost["banco-0"].returned_minor, lost["banco_avec-1"].returned_minor) == (600, 300)
    assert lost["punto-2"].returned_minor == 1_200
    refused = BACCARA.bank_refusal("banco_avec", "p2", 400, [("p1", "banco", 1_000)], None, {})
    assert (refused["cite"], refused["limit_minor"]) == ("002:L2825", 500)


def test_banco_solo_plays_the_whole_bank_and_draws_freely():
    """002:L2823, L2869: 5 against 3 would make punto draw; in solo it may stand."""
    placed = [("p1", "banco", 1_000)]
    assert BACCARA.bank_refusal("banco_solo", "p2", 1_000, placed, None, {}) is None
    assert BACCARA.bank_refusal("banco_solo", "p2", 900, placed, None, {})["cite"] == (
        "002:L2823")
    solo = [*placed, ("p2", "banco_solo", 1_000)]
    assert BACCARA.bank_refusal("punto", "p3", 100, solo, None, {})["cite"] == "002:L2823"
    stood = _coup([("banco", 1_000), ("banco_solo", 1_000)], punto="2h 3d", banco="Ac 2s")
    assert stood["banco_solo-1"].returned_minor == 2_000
    with pytest.raises(OutcomeInvalid):
        _coup([("banco", 1_000), ("banco_solo", 1_000)], punto="2h 3d 4c", banco="9c Ks")


def test_avec_la_table_is_half_the_bank_against_it():
    """002:L2827."""
    placed = [("p1", "banco", 1_000)]
    assert BACCARA.bank_refusal("avec_la_table", "p2", 500, placed, None, {}) is None
    assert BACCARA.bank_refusal("avec_la_table", "p2", 400, placed, None,
                                {})["cite"] == "002:L2827"
    assert BACCARA.stake_room("punto", "p3", [*placed, ("p2", "avec_la_table", 500)]) == (
        500, "002:L2811")
