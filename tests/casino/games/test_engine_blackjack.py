"""Blackjack: the 19 hall versions and the casino's three, each one's differences.

The matrix below is typed from the digest (002 Part I section 6.2 and Part II
section 7.1), not read from the data; the first test compares it with the
rulebook rows, the others play hands that differ between versions.
"""

from __future__ import annotations

import pytest

from casino.games.engine.blackjack import Blackjack, side_game_combination
from casino.games.engine.common import BetIn, OutcomeInvalid

from .rows import CASINO, HALL, rows, tables

GAME = Blackjack()
STAKE = 1_000

# version: (dealer cards, ties, bust over, double, hands max, DAS, insurance,
#           even money up cards, surrender, charlie, three sevens, lose original only)
NH, HP, HNP = "no_hole", "hole_peek", "hole_no_peek"
MATRIX = {
    "a": (NH, "dealer_except_21", 21, "nine_to_eleven", 2, False, "exactly_half", [], False, False, False, False),
    "b": (NH, "push", 21, "nine_to_eleven", 3, True, "at_most_half", ["A"], False, False, False, False),
    "c": (NH, "push", 21, "any_two", 3, True, "at_most_half", ["A"], False, False, False, False),
    "d": (NH, "push", 21, "nine_to_eleven", 2, True, "at_most_half", ["A"], False, False, False, False),
    "e": (NH, "push", 21, "any_two", 2, True, "at_most_half", ["A"], False, False, False, False),
    "f": (HNP, "push", 21, "any_two", 2, True, "exactly_half", [], False, True, False, True),
    "g": (HNP, "push", 21, "any_two", 2, True, "exactly_half", [], False, False, False, True),
    "h": (NH, "dealer_except_20_21", 21, "any_two", 4, True, "at_most_half", ["A", "T"], True, False, True, False),
    "i": (NH, "dealer_except_20_21", 21, "any_two", 4, True, "at_most_half", ["A", "T"], False, False, True, False),
    "j": (NH, "dealer_except_20_21", 21, "any_two", 3, True, "at_most_half", ["A", "T"], True, False, True, False),
    "k": (NH, "dealer_except_20_21", 21, "any_two", 3, True, "at_most_half", ["A", "T"], False, False, True, False),
    "l": (NH, "dealer_except_20_21", 21, "any_two", 2, True, "at_most_half", ["A", "T"], True, False, True, False),
    "m": (NH, "dealer_except_20_21", 21, "any_two", 2, True, "at_most_half", ["A", "T"], False, False, True, False),
    "n": (HP, "dealer_except_20_21", 21, "any_two", 2, True, "at_most_half", ["A", "T"], False, False, True, False),
    "o": (HP, "dealer_except_20_21", 21, "nine_to_eleven", 2, True, "at_most_half", ["A", "T"], False, False, True, False),
    "p": (NH, "push", 22, "any_two", 3, True, "at_most_half", ["A"], True, False, False, False),
    "q": (NH, "push", 22, "any_two", 3, True, "at_most_half", ["A"], False, False, False, False),
    "r": (HP, "push", 22, "any_two", 2, True, "at_most_half", ["A"], False, False, False, False),
    "s": (HP, "push", 22, "nine_to_eleven", 2, True, "at_most_half", ["A"], False, False, False, False),
}
PAYS = {"a": ["3:2", "2:1"], "f": ["3:2"], "g": ["3:2"],
        **{v: ["1:1", "6:5", "7:5", "3:2"] for v in "bcde"},
        **{v: ["3:2", "2:1"] for v in "hijklmno"},
        **{v: ["1:1", "6:5", "3:2", "2:1"] for v in "pqrs"}}
COLUMNS = ("dealer_cards", "ties", "dealer_bust_over", "double", "hands_max",
           "double_after_split", "insurance", "even_money_up", "surrender", "ten_card_charlie",
           "three_sevens", "lose_original_only")


def config(version, book=HALL, **extra):
    return GAME.configure({"version": version, **extra}, tables(book))


def play(version, hands, dealer, *, doubles=(), insurance=0, surrender=False, even_money=False,
         book=HALL, **extra):
    """Settle one box; return {bet kind[:hand]: Settled}."""
    cfg = config(version, book, **extra)
    bets = [BetIn("box", "box", {"box": 1}, STAKE)]
    bets += [BetIn(f"split:{n}", "split", {"box": 1, "hand": n}, STAKE)
             for n in range(2, len(hands) + 1)]
    bets += [BetIn(f"double:{n}", "double", {"box": 1, "hand": n}, STAKE) for n in doubles]
    if insurance:
        bets.append(BetIn("insurance", "insurance", {"box": 1}, insurance))
    outcome = GAME.check_outcome({"dealer": dealer, "boxes": {"1": {
        "hands": hands, "surrender": surrender, "even_money": even_money}}}, cfg, bets,
        tables(book))
    return {s.bet_id: s for s in GAME.settle(bets, outcome, tables(book), cfg)}


def test_the_version_rows_match_the_digest_matrix():
    """All 19 hall versions A-S, column by column, and their posted blackjack payouts."""
    data = {row["id"]: row for row in rows(HALL, "games.blackjack.versions")}
    assert sorted(data) == sorted(MATRIX)
    for version, expected in MATRIX.items():
        assert tuple(data[version][c] for c in COLUMNS) == expected, version
        assert data[version]["blackjack_pays"] == PAYS[version], version
        assert data[version]["insured_no_double_split"] == (version == "a")


def test_the_casino_versions_match_part_ii():
    """Base game 3:2 no hole card; variant A peeks; variant B: ties to the bank, 1:1, 9-11."""
    data = {row["id"]: row for row in rows(CASINO, "games.blackjack.versions")}
    assert data["base"]["dealer_cards"] == "no_hole" and data["base"]["blackjack_pays"] == ["3:2"]
    assert data["variant_a"]["dealer_cards"] == "hole_peek"
    b = data["variant_b"]
    assert (b["ties"], b["blackjack_pays"], b["hands_max"], b["double_after_split"],
            b["double"]) == ("dealer_except_blackjack", ["1:1"], 2, False, "nine_to_eleven")


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_ties_follow_each_versions_rule(version):
    """A: dealer wins ties but 21s push; H-O: 20s and 21s push; others: all ties push."""
    ties = MATRIX[version][1]
    nineteen = play(version, [["Th", "9d"]], ["Tc", "9s"])["box"]
    twenty = play(version, [["Th", "Qd"]], ["Tc", "Ks"])["box"]
    twenty_one = play(version, [["Th", "5d", "6h"]], ["Tc", "4s", "7d"])["box"]
    assert nineteen.result == ("push" if ties == "push" else "lose")
    assert twenty.result == ("push" if ties in ("push", "dealer_except_20_21") else "lose")
    assert twenty_one.result == "push"


def test_casino_variant_b_dealer_wins_every_tie_but_two_blackjacks():
    assert play("variant_b", [["Th", "5d", "6h"]], ["Tc", "4s", "7d"], book=CASINO)[
        "box"].result == "lose"
    assert play("variant_b", [["Ah", "Kd"]], ["As", "Qs"], book=CASINO)["box"].result == "push"
    assert play("variant_b", [["Ah", "Kd"]], ["9s", "Qs"], book=CASINO)[
        "box"].returned_minor == 2_000


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_dealer_22_pushes_in_p_to_s_and_busts_elsewhere(version):
    """002:L1078: a dealer 22 pushes live hands but still pays a player blackjack."""
    settled = play(version, [["Th", "8d"]], ["Tc", "6s", "6d"])["box"]
    if MATRIX[version][2] == 22:
        assert settled.result == "push" and settled.detail["dealer_22"]
        assert play(version, [["Ah", "Kd"]], ["Tc", "6s", "6d"])["box"].result == "win"
    else:
        assert settled.returned_minor == 2_000


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_each_posted_blackjack_payout_pays_its_ratio(version):
    expected = {"3:2": 2_500, "2:1": 3_000, "1:1": 2_000, "6:5": 2_200, "7:5": 2_400}
    for ratio in PAYS[version]:
        settled = play(version, [["Ah", "Kd"]], ["9c", "8s"], blackjack_pays=ratio)["box"]
        assert (settled.returned_minor, settled.row) == (
            expected[ratio], "blackjack_" + ratio.replace(":", "_"))


def test_a_table_cannot_post_a_payout_its_version_does_not_allow():
    from casino.games.engine.common import BetInvalid

    with pytest.raises(BetInvalid):
        config("f", blackjack_pays="2:1")


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_doubling_on_any_two_or_only_on_nine_to_eleven(version):
    """A soft 18 (A+7) may be doubled only under the any-two rule; A+7+3 is then 21."""
    rule = MATRIX[version][3]
    if rule == "any_two":
        settled = play(version, [["Ah", "7d", "3c"]], ["Tc", "Ks"], doubles=[1])
        assert settled["box"].detail["total"] == 21
        assert settled["double:1"].returned_minor == 2_000
    else:
        with pytest.raises(OutcomeInvalid):
            play(version, [["Ah", "7d", "3c"]], ["Tc", "Ks"], doubles=[1])
        # A+8 is 9 with the ace at 1, and the ace stays 1: A+8+K = 19, not 29 or 19+10.
        settled = play(version, [["Ah", "8d", "Kc"]], ["Tc", "8s"], doubles=[1])
        assert settled["box"].detail["total"] == 19
        assert settled["double:1"].returned_minor == 2_000


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_the_most_hands_after_splitting(version):
    hands_max = MATRIX[version][4]
    hands = [["8h", "Td"], ["8c", "9d"], ["8s", "Kd"], ["8d", "Qd"], ["8h", "Jd"]]
    play(version, hands[:hands_max], ["Tc", "7s"])
    with pytest.raises(OutcomeInvalid):
        play(version, hands[:hands_max + 1], ["Tc", "7s"])


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_doubling_after_a_split(version):
    hands = [["5h", "6d", "Tc"], ["5c", "9d"]]
    if MATRIX[version][5]:
        assert play(version, hands, ["Tc", "7s"], doubles=[1])["double:1"].returned_minor == 2_000
    else:
        with pytest.raises(OutcomeInvalid):
            play(version, hands, ["Tc", "7s"], doubles=[1])


def test_insurance_is_exactly_half_in_a_f_g_and_at_most_half_elsewhere():
    for version, row in MATRIX.items():
        kind = GAME.bet_kind("insurance", {"box": 1}, tables(HALL), config(version))
        assert kind.raise_rule == row[6]
        assert kind.raise_of == "box:1"


def test_insurance_pays_two_to_one_on_a_dealer_blackjack():
    assert play("b", [["Th", "9d"]], ["Ac", "Ks"], insurance=500)["insurance"].returned_minor == 1_500
    assert play("b", [["Th", "9d"]], ["Ac", "7s"], insurance=500)["insurance"].returned_minor == 0
    assert play("b", [["Th", "9d"]], ["9c", "Ks"], insurance=500)["insurance"].result == "void"


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_even_money_against_the_versions_up_cards(version):
    up_cards = MATRIX[version][7]
    for up, dealer in (("A", ["Ac", "Ks"]), ("T", ["Kc", "As"])):
        if up in up_cards:
            settled = play(version, [["Ah", "Kd"]], dealer, even_money=True)["box"]
            assert (settled.returned_minor, settled.row) == (2_000, "even_money")
        else:
            with pytest.raises(OutcomeInvalid):
                play(version, [["Ah", "Kd"]], dealer, even_money=True)


@pytest.mark.parametrize("version", sorted(MATRIX))
def test_surrender_only_in_h_j_l_p_and_never_against_an_ace(version):
    if MATRIX[version][8]:
        settled = play(version, [["Th", "6d"]], ["Tc", "7s"], surrender=True)["box"]
        assert (settled.returned_minor, settled.row) == (500, "surrender")
        with pytest.raises(OutcomeInvalid):
            play(version, [["Th", "6d"]], ["Ac", "7s"], surrender=True)
    else:
        with pytest.raises(OutcomeInvalid):
            play(version, [["Th", "6d"]], ["Tc", "7s"], surrender=True)


def test_ten_card_charlie_wins_in_f_only():
    """002:L930-932: ten cards totalling 21 or less win, unless the dealer has blackjack."""
    charlie = [["Ah", "Ad", "Ac", "As", "2h", "2d", "2c", "2s", "3h", "3d"]]
    f = play("f", charlie, ["Tc", "Ks"])["box"]
    assert (f.returned_minor, f.row) == (2_000, "ten_card_charlie")
    assert play("g", charlie, ["Tc", "Ks"])["box"].returned_minor == 0
    assert play("f", charlie, ["Tc", "As"])["box"].returned_minor == 0


def test_three_sevens_pay_three_to_one_in_h_to_o_only():
    for version, row in MATRIX.items():
        settled = play(version, [["7h", "7d", "7c"]], ["Tc", "8s"])["box"]
        if row[10]:
            assert (settled.returned_minor, settled.row) == (4_000, "three_sevens")
        else:
            assert (settled.returned_minor, settled.row) == (2_000, "win")


def test_f_and_g_lose_only_the_original_stake_to_a_ten_up_blackjack():
    """002:L914: EUR 10 + EUR 10 double against a dealer blackjack loses EUR 10."""
    for version in ("f", "g"):
        settled = play(version, [["5h", "6d", "3c"]], ["Kc", "As"], doubles=[1])
        assert settled["box"].returned_minor == 0
        assert settled["double:1"].returned_minor == 1_000
    settled = play("c", [["5h", "6d", "3c"]], ["Kc", "As"], doubles=[1])
    assert settled["double:1"].returned_minor == 0


def test_peek_versions_end_the_round_on_a_dealer_blackjack():
    with pytest.raises(OutcomeInvalid):
        play("r", [["5h", "6d", "3c"]], ["Kc", "As"], doubles=[1])
    assert play("r", [["5h", "6d"]], ["Kc", "As"])["box"].returned_minor == 0


def test_a_split_ace_and_ten_is_21_not_blackjack():
    settled = play("b", [["Ah", "Kd"], ["Ac", "9d"]], ["Tc", "8s"])
    assert (settled["box"].returned_minor, settled["box"].row) == (2_000, "win")
    assert play("b", [["Ah", "Kd"], ["Ac", "9d"]], ["Tc", "As"])["box"].returned_minor == 0
    with pytest.raises(OutcomeInvalid):
        play("b", [["Ah", "2d", "5c"], ["Ac", "9d"]], ["Tc", "8s"])  # split aces: one card


def test_the_dealer_draws_to_17_and_stands_on_soft_17():
    with pytest.raises(OutcomeInvalid):
        play("b", [["Th", "8d"]], ["Tc", "6s"])           # stood on 16 with a live hand
    with pytest.raises(OutcomeInvalid):
        play("b", [["Th", "8d"]], ["Tc", "7s", "2d"])     # drew on 17
    with pytest.raises(OutcomeInvalid):
        play("b", [["Th", "8d"]], ["Ac", "6s", "2d"])     # drew on soft 17
    assert play("b", [["Th", "8d"]], ["Ac", "6s"])["box"].returned_minor == 2_000
    assert play("b", [["Th", "8d", "9c"]], ["Tc", "6s"])["box"].returned_minor == 0  # bust


def test_player_blackjack_beats_a_dealer_21_and_pushes_a_dealer_blackjack():
    assert play("h", [["Ah", "Kd"]], ["Tc", "5s", "6d"])["box"].returned_minor == 2_500
    assert play("h", [["Ah", "Kd"]], ["Tc", "As"])["box"].result == "push"


SIDE_EXAMPLES = {"pair_suited_aces": ["Ah", "Ah"], "pair_suited": ["9s", "9s"],
                 "pair_same_colour": ["9h", "9d"], "pair_mixed_colour": ["9h", "9c"],
                 "suited_ace_king": ["Ah", "Kh"], "suited_consecutive": ["8c", "9c"],
                 "suited": ["2c", "9c"]}
SIDE_PAYS = {
    "a": [50, 25, 10, 5], "b": [50, 25, 11, 5], "c": [50, 25, 10, 6], "d": [50, 25, 11, 6],
    "e": [50, None, 2], "f": [50, 3, 2], "g": [50, 4, 2], "h": [30, 4, 2], "i": [25, 4, 2]}


def test_every_side_game_row_wins_on_its_combination_and_loses_otherwise():
    """002:L1174-1285: only the highest combination pays; K-Q is no pair."""
    names = {4: ["pair_suited_aces", "pair_suited", "pair_same_colour", "pair_mixed_colour"],
             3: ["suited_ace_king", "suited_consecutive", "suited"]}
    data = rows(HALL, "games.blackjack.side_games")
    for game, pays in SIDE_PAYS.items():
        expected = {f"{game}.{n}": p for n, p in zip(names[len(pays)], pays) if p is not None}
        assert {r["id"]: r["pays"] for r in data if r["game"] == game} == expected
        for row_id, p in expected.items():
            cards = SIDE_EXAMPLES[row_id.split(".")[1]]
            cfg = config("b", side_game=game)
            bet = BetIn("side", "side_game", {"box": 1}, 100)
            box = BetIn("box", "box", {"box": 1}, STAKE)
            hands = [cards + ["Tc"] if sum(1 for c in cards if c[0] == "A") < 2 else cards]
            won = GAME.settle([box, bet], {"dealer": ["Tc", "9s"], "boxes": {"1": {
                "hands": hands, "surrender": False, "even_money": False}}}, tables(HALL), cfg)
            assert (won[1].returned_minor, won[1].row) == (100 * (1 + p), row_id)
            lost = GAME.settle([box, bet], {"dealer": ["Tc", "9s"], "boxes": {"1": {
                "hands": [["Kh", "Qc"]], "surrender": False, "even_money": False}}},
                tables(HALL), cfg)
            assert lost[1].returned_minor == 0
    assert side_game_combination(["Kh", "Qh"]) == ["suited_consecutive", "suited"]
    assert side_game_combination(["Ah", "2h"]) == ["suited"]
