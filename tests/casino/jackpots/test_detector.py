"""The hit detector alone (casino.jackpots.engine.hits): triggers by variant.

Criteria 000:L2880-2938 (values from the Veikkaus rulebook figures); the
hold'em loser plays both hole cards (000:L2898, decision
jackpot.holdem_hole_cards); the two best qualifying hands (000:L2845-2846).
"""

from __future__ import annotations

import pytest

from casino.jackpots.engine import Criteria, detect, threshold_value

HOLDEM = [Criteria(1, "full_house:aces_over_kings",
                   threshold_value("texas_holdem", "full_house:aces_over_kings")),
          Criteria(2, "full_house:aces_over_jacks",
                   threshold_value("texas_holdem", "full_house:aces_over_jacks"))]
OMAHA = [Criteria(1, "four_of_a_kind:jacks", threshold_value("omaha", "four_of_a_kind:jacks")),
         Criteria(2, "four_of_a_kind:deuces", threshold_value("omaha", "four_of_a_kind:deuces"))]
SIX = [1, 2, 3, 4, 5, 6]
FILLER = {3: "2c 3d", 4: "4h 5h", 5: "6d 8s", 6: "9h Tc"}


def _holdem(board, hands, players=SIX, criteria=HOLDEM, variant="holdem"):
    return detect(variant=variant, board=board, hands=hands, players_dealt=players,
                  players_min=5, criteria=criteria)


def test_aces_full_of_kings_with_both_hole_cards_beaten_by_quads_is_category_1_000_L2895():
    """Loser Ah Ad on As Ks Kd: AAA-KK using both hole cards; Kc Kh makes
    four kings. Category 1; the other four dealt in are the others."""
    verdict = _holdem("As Ks Kd 7c 2h", {1: "Ah Ad", 2: "Kc Kh", **FILLER})
    hit = verdict.hit
    assert hit is not None and hit.category == 1
    assert (hit.losers, hit.winners, hit.others) == ((1,), (2,), (3, 4, 5, 6))
    assert hit.losing_hand.uses_both_hole_cards is True
    assert hit.winning_hand.category == "four_of_a_kind"


def test_the_same_full_house_played_from_the_board_does_not_trigger_000_L2898():
    """As Ac Ad Kc Kd on the board: the loser's 3h 2d play no part, so the
    hand does not qualify, though Ah 5c makes four aces."""
    verdict = _holdem("As Ac Ad Kc Kd", {1: "3h 2d", 2: "Ah 5c", **FILLER})
    assert verdict.hit is None and verdict.reason == "no_qualifying_pair"


def test_equal_valued_five_with_both_hole_cards_qualifies():
    """Kh Ks on As Ac Ad Kc 2d: AAA-KK is made with both hole cards or with
    one (same value); a five with both exists, so the hand qualifies."""
    verdict = _holdem("As Ac Ad Kc 2d", {1: "Kh Ks", 2: "Ah 5c", **FILLER})
    assert verdict.hit is not None and verdict.hit.category == 1
    assert verdict.hit.losers == (1,)


def test_aces_full_of_jacks_is_category_2_000_L2924():
    verdict = _holdem("As Js Jd 7c 2h", {1: "Ah Ad", 2: "Jc Jh", **FILLER})
    assert verdict.hit is not None and verdict.hit.category == 2
    assert verdict.hit.threshold == "full_house:aces_over_jacks"


def test_kings_full_is_no_bad_beat():
    assert _holdem("Ks Kd 7c 7d 2h", {1: "Kh 7h", 2: "Kc 7s", **FILLER}).hit is None


def test_the_two_best_qualifying_hands_are_winner_and_loser_000_L2845():
    """A royal flush (As Ts), four kings (Kc Kh) and two pair (Ah Ad): the
    royal flush wins, the four kings are the loser, the rest are others."""
    verdict = _holdem("Ks Kd Qs Js 2h", {1: "Ah Ad", 2: "Kc Kh", 3: "As Ts",
                                         4: "4h 5h", 5: "6d 8s", 6: "9h Tc"})
    hit = verdict.hit
    assert hit is not None and (hit.winners, hit.losers) == ((3,), (2,))
    assert hit.others == (1, 4, 5, 6)


def test_too_few_players_dealt_in_do_not_trigger_000_L2816():
    verdict = _holdem("As Ks Kd 7c 2h", {1: "Ah Ad", 2: "Kc Kh"}, players=[1, 2, 3, 4])
    assert verdict.hit is None and verdict.reason == "too_few_players"


@pytest.mark.parametrize("variant", ["sviten", "razz", "pineapple", "five_card_draw",
                                     "double_flop", "three_card"])
def test_unlisted_variants_never_trigger_000_L2937(variant):
    verdict = detect(variant=variant, board="", hands={1: "x", 2: "y"}, players_dealt=SIX,
                     players_min=5, criteria=HOLDEM)
    assert verdict.hit is None and verdict.reason == "variant_not_listed"


@pytest.mark.parametrize("variant", ["omaha", "omaha_hilo"])
def test_omaha_four_jacks_beaten_by_a_straight_flush_hi_lo_uses_the_high_hand_000_L3196(
        variant):
    """Jc Jd with Js Jh on the board: four jacks (category 1 in Omaha,
    000:L2891-2893); Ks Qs with Js Ts 9s: a straight flush. In hi-lo the
    same, on the high hands (decision jackpot.hi_lo)."""
    verdict = detect(variant=variant, board="Js Jh Ts 9s 2d",
                     hands={1: "Jc Jd 3c 4c", 2: "Ks Qs 5h 6h", 3: "Ac 2c 3h 4d"},
                     players_dealt=SIX, players_min=5, criteria=OMAHA)
    assert verdict.hit is not None
    assert (verdict.hit.category, verdict.hit.losers, verdict.hit.winners) == (1, (1,), (2,))


def test_the_hole_card_rule_is_the_rulebooks_000_L2898():
    """000:L2898 (figure texas_holdem.loser_uses_both_hole_cards): with the rule,
    a loser playing the board's full house is no loser; a rulebook without it
    lets the same hands trigger."""
    board, hands = "As Ac Ad Kc Kd", {1: "3h 2d", 2: "Ah 5c", **FILLER}
    assert detect(variant="holdem", board=board, hands=hands, players_dealt=SIX,
                  players_min=5, criteria=HOLDEM).hit is None
    hit = detect(variant="holdem", board=board, hands=hands, players_dealt=SIX,
                 players_min=5, criteria=HOLDEM, holdem_loser_both_hole_cards=False).hit
    assert hit is not None and hit.winners == (2,)


def test_the_number_of_qualifying_hands_is_the_rulebooks_000_L2821():
    """000:L2821-2822 (figure payout.min_qualifying_hands = 2): two qualifying
    hands trigger; a rulebook asking for three does not trigger on two."""
    board, hands = "As Ks Kd 7c 2h", {1: "Ah Ad", 2: "Kc Kh", **FILLER}
    assert _holdem(board, hands).hit is not None
    assert detect(variant="holdem", board=board, hands=hands, players_dealt=SIX,
                  players_min=5, criteria=HOLDEM, qualifying_hands_min=3).hit is None


def test_hi_lo_games_take_part_by_the_rulebooks_switch_000_L3196():
    """000:L3196-3198 (figure hi_lo_uses_high_criteria): Omaha hi-lo is judged
    on its high hands; a rulebook switching that off leaves it out."""
    from casino.jackpots.commands import variant_takes_part

    on = {"jackpot.bad_beat.hi_lo_uses_high_criteria": True}
    off = {"jackpot.bad_beat.hi_lo_uses_high_criteria": False}
    assert variant_takes_part("omaha_hilo", on) is True
    assert variant_takes_part("omaha_hilo", off) is False
    assert variant_takes_part("omaha", off) is True


@pytest.mark.parametrize("figure_key", [
    "jackpot.bad_beat.cash_games_only", "online.jackpot.bad_beat.cash_games_only",
    "jackpot.bad_beat.contribution.posting", "jackpot.bad_beat.drop.posting",
    "jackpot.bad_beat.time_charge.kept_below_min_players"])
def test_a_rulebook_contradicting_an_applied_jackpot_rule_is_named(figure_key):
    """000:L2814, L2872-2873, L2878-2879; 002:L1788, L1804, L3203: the pool
    applies these as the seeds state them; a rulebook saying otherwise is
    caught (jackpots.rule_not_applied when its pool would open)."""
    from casino.jackpots.commands import SUPPORTED_RULES, unsupported_rule

    applied, cite = SUPPORTED_RULES[figure_key]
    other = "at_once" if isinstance(applied, str) else not applied
    assert unsupported_rule({figure_key: applied}) is None
    assert unsupported_rule({figure_key: other}) == (figure_key, other, applied, cite)
