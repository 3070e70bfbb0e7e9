"""The informational rows each rulebook cites (issue 14 item 23), checked by hand.

Every row of `casino/rules/data/<id>.v1.d/informational.toml` is typed below
from its seed line: a row missing, added or changed in the data fails. The
game definitions among them (hand rankings, card values, hole cards, the
HexaPro blinds) are also checked against the code that implements them, so
that the rulebook and the engines cannot drift apart. Ray-partner-premises
carries the same Part I rows as ray-gaming-hall.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import native_eval
import pytest

from casino.games.engine import pai_gow
from casino.games.engine.blackjack import best_total
from casino.games.engine.common import OutcomeInvalid, rank_of
from casino.games.engine.roulette import Roulette

DATA_DIR = Path(__file__).resolve().parents[3] / "casino/rules/data"
FRAGMENT = "informational.toml"
SAME_AS = {"ray-partner-premises": "ray-gaming-hall"}

FIGURES = {
    "pslive-tournaments": {
        ("floor.decisions_final", True, "bool", "004:L5"),
        ("seating.chips_in_play_when_seat_number_filled", True, "bool", "004:L26-27"),
        ("balancing.reseat_by_double_random_draw", True, "bool", "004:L34"),
        ("button.misplaced.play_continues_after_substantial_action",
         True, "bool", "004:L45"),
        ("cards.dead_hand_retrievable_by_staff", True, "bool", "004:L59"),
        ("action.out_of_turn_fold_binding", True, "bool", "004:L61"),
        ("clock.expiry_at_action_favours_player", True, "bool", "004:L71"),
        ("call.caller_establishes_amount", True, "bool", "004:L101"),
        ("bet.multiple_same_chips_without_declaration",
         "call_when_one_chip_less_is_short", "text", "004:L105"),
        ("raise.declaration_methods", 3, "count", "004:L107-111"),
        ("bet.ambiguous_amount", "highest_legal_up_to_pot", "text", "004:L116-118"),
        ("showdown.all_in_cards_tabled", True, "bool", "004:L129"),
        ("showdown.muck_forfeits_pot", True, "bool", "004:L134-135"),
        ("penalty.most_severe", "disqualification_and_event_ban", "text", "004:L169"),
        ("penalty.carries_over_days", True, "bool", "004:L174"),
    },
    "olympic-tallinn": {
        ("tournament.raise.fifty_percent_rule", 5000, "basis_points", "003:L41"),
        ("action.time_call.dealer_may_call", True, "bool", "003:L49"),
        ("action.time_call.supervisor_may_refuse", True, "bool", "003:L50"),
        ("absent_at_deal.tournament", "dead_hand", "text", "003:L62-64"),
        ("absent_at_deal.cash",
         "folded_when_action_reaches_seat", "text", "003:L62-64"),
        ("seat.change_needs_supervisor", True, "bool", "003:L94"),
        ("seat.lost_if_absent_at_start", True, "bool", "003:L104"),
        ("seat.out_of_turn_purchase_allowed", False, "bool", "003:L106"),
        ("tournament.joker.wild", True, "bool", "003:L157"),
        ("tournament.balance.move_big_blind_to_big_blind", True, "bool", "003:L181"),
        ("tournament.balance.chips_moved_at_once", True, "bool", "003:L183"),
        ("tournament.showdown_before_river.all_cards_open", True, "bool", "003:L195"),
    },
    "veikkaus-online-poker": {
        ("deck.decks", 1, "count", "001:L22"),
        ("hexapro.deck.decks", 1, "count", "001:L558"),
        ("holdem.hole_cards", 2, "count", "001:L36"),
        ("omaha.hole_cards", 4, "count", "001:L126"),
        ("holdem.hole_cards_used_max", 2, "count", "001:L94"),
        ("betting.first_to_act_after_flop", "first_after_button", "text", "001:L40"),
        ("betting.round_ends_when_all_called_or_folded", True, "bool", "001:L44-48"),
        ("blinds.big_blind_moves_one_seat", True, "bool", "001:L232"),
        ("betting.raises_capped", False, "bool", "001:L235"),
        ("sit_out.global.from_next_hand", True, "bool", "001:L239-241"),
        ("sit_out.next_big_blind.available", True, "bool", "001:L243"),
        ("tournament.entry_fee.typical_share", 1000, "basis_points", "001:L322"),
        ("tournament.ends_when_remaining_prizes_equal", True, "bool", "001:L344"),
        ("tournament.break.start_minute", 55, "minutes", "001:L387"),
        ("disconnect.operator_liable_for_server_crash_only",
         True, "bool", "001:L391-395"),
        ("hexapro.disconnect.extra_wait", 20, "seconds", "001:L570"),
    },
    "veikkaus-poker-room": {
        ("showdown.first_to_show",
         "last_bettor_or_raiser_of_the_hand", "text", "000:L186-187"),
        ("floor.may_inspect_mucked_cards", True, "bool", "000:L220-222"),
        ("floor.may_inspect_hand", True, "bool", "000:L382-385"),
        ("chips.stack_visible", True, "bool", "000:L289-290"),
        ("decisions.final_by_veikkaus", True, "bool", "000:L466-471"),
        ("seat.change_needs_permission", True, "bool", "000:L530-531"),
        ("dealing.burn_before_new_cards", True, "bool", "000:L681-684"),
        ("misdeal.cutoff_players_acted", 2, "count", "000:L748-753"),
        ("deck.face_up_card_or_joker_skipped", True, "bool", "000:L760-763"),
        ("deck.duplicate_card_voids_hand", True, "bool", "000:L774-777"),
        ("shuffle.chemmy.deck_not_lifted", True, "bool", "000:L859-860"),
        ("raise.single_motion_or_declared", True, "bool", "000:L1442-1446"),
        ("seven_card_stud.table.max_players.cash", 8, "players", "000:L2130"),
        ("seven_card_stud.table.max_players.tournament", 9, "players", "000:L2131"),
        ("stud.deck_reserve_cards", 2, "count", "000:L2304-2308"),
        ("dealers_choice.first_round_starts_after_blinds",
         True, "bool", "000:L2540-2544"),
        ("dealers_choice.chooser",
         "first_dealt_in_after_button", "text", "000:L2554-2559"),
        ("dealers_choice.cards_before_choice", 2, "count", "000:L2569-2573"),
        ("tournament.balance.max_difference", 2, "players", "000:L3511-3513"),
    },
    "ray-gaming-hall": {
        ("games.roulette.highest_number", 36, "count", "002:L165"),
        ("games.lucky_dice.shooter_keeps_dice_until_seven",
         True, "bool", "002:L229-233"),
        ("poker_pvp.electronic_table.dealt_by_automation", True, "bool", "002:L255"),
        ("games.triple_bet_poker.player_hand",
         "three_own_two_common", "text", "002:L523"),
        ("games.triple_bet_poker.players_per_seat", 1, "players", "002:L527"),
        ("games.blackjack.player_bust_over", 21, "count", "002:L770"),
        ("games.blackjack.decks_max", 8, "count", "002:L776"),
        ("games.blackjack.ace_values", "1_or_11", "text", "002:L778"),
        ("games.blackjack.side_game_attachable", True, "bool", "002:L792"),
        ("games.blackjack.table_recorded", True, "bool", "002:L796"),
        ("games.red_dog.seats_per_player", 1, "count", "002:L1297"),
        ("games.red_dog.third_card_decides", True, "bool", "002:L1307"),
        ("games.bulldog.players_per_seat_max", 3, "players", "002:L1333"),
        ("games.bulldog.decks", 6, "count", "002:L1337"),
        ("games.bulldog.back_bettors_bound_by_raise", False, "bool", "002:L1343-1345"),
        ("special_machines.rules_as_table_games", True, "bool", "002:L1397"),
        ("games.terminal_roulette.seats_min", 2, "count", "002:L1405"),
        ("poker_pvp.electronic_table.deck_cards", 52, "count", "002:L1451"),
        ("poker_pvp.electronic_table.game", "texas_holdem", "text", "002:L1457"),
    },
    "ray-casino": {
        ("games.roulette.five_number_bet_offered", False, "bool", "002:L1604"),
        ("poker_pvp.deck_cards", 52, "count", "002:L1816"),
        ("chinese_poker.scoring_example", "one_to_three", "text", "002:L1995"),
        ("games.oasis_stud_poker.deck_cards", 52, "count", "002:L2045"),
        ("games.pai_gow_poker.deck_cards", 53, "count", "002:L2572"),
        ("games.pai_gow_poker.wheel_straight_flush_rank", 2, "count", "002:L2617"),
        ("games.punto_banco.bets", 3, "count", "002:L2750"),
        ("games.punto_banco.decks", 6, "count", "002:L2754"),
        ("games.punto_banco.first_deal",
         "punto_banco_punto_banco", "text", "002:L2756-2761"),
        ("games.punto_banco.commission_min_allowed", True, "bool", "002:L2799"),
        ("games.bulldog.players_per_seat_max", 3, "players", "002:L2909"),
        ("games.bulldog.decks", 6, "count", "002:L2911-2913"),
    },
    "ray-online": {
        ("online.registration.strong_identification", True, "bool", "002:L3057"),
        ("online.registration.terms_accepted", True, "bool", "002:L3058"),
        ("online.jackpot.forms",
         "fixed_multiplied_or_progressive", "text", "002:L3109-3111"),
    },
}
TABLES = {
    "olympic-tallinn": {
        ("poker.games_dealt", "003:L11-21"): (
            "003:L12", "003:L13", "003:L13", "003:L14", "003:L15", "003:L16",
            "003:L17", "003:L18", "003:L19", "003:L20", "003:L21",
        ),
    },
    "veikkaus-online-poker": {
        ("tournaments.hexapro.blinds", "001:L503-541"): (
            "001:L506", "001:L507", "001:L508", "001:L509", "001:L510", "001:L511",
            "001:L512", "001:L513", "001:L515", "001:L516", "001:L517", "001:L518",
            "001:L519", "001:L520", "001:L521", "001:L522", "001:L523", "001:L524",
            "001:L525", "001:L526", "001:L527", "001:L528", "001:L529", "001:L530",
            "001:L531", "001:L532", "001:L533", "001:L535-541",
        ),
    },
    "veikkaus-poker-room": {
        ("poker.dead_hand_triggers", "000:L239-275"): (
            "000:L242", "000:L245-248", "000:L251-253", "000:L257", "000:L260-263",
            "000:L264", "000:L267-270", "000:L273-275",
        ),
        ("dealing.shuffle", "000:L592-597"): (
            "000:L594", "000:L596", "000:L597",
        ),
        ("poker.misdeal_triggers", "000:L707-740"): (
            "000:L707", "000:L710-712", "000:L715-719", "000:L722-725", "000:L728",
            "000:L731-733", "000:L736-740",
        ),
    },
    "ray-gaming-hall": {
        ("poker_pvp.betting_structures", "002:L307-319"): (
            "002:L309-311", "002:L313-315", "002:L317-319",
        ),
        ("poker_pvp.card_values", "002:L325-332"): (
            "002:L327", "002:L328", "002:L329", "002:L330",
        ),
        ("poker_pvp.variants", "002:L386-448"): (
            "002:L386", "002:L388", "002:L390", "002:L396", "002:L408-412", "002:L426",
            "002:L428", "002:L432", "002:L434-438", "002:L442", "002:L444", "002:L448",
        ),
        ("poker_pvp.electronic_table.hand_ranking", "002:L1461-1505"): (
            "002:L1471-1473", "002:L1475-1477", "002:L1479-1481", "002:L1483-1485",
            "002:L1487-1489", "002:L1491-1493", "002:L1495-1497", "002:L1499-1501",
            "002:L1503-1505",
        ),
    },
    "ray-casino": {
        ("poker_pvp.card_values", "002:L1818-1823"): (
            "002:L1818", "002:L1819", "002:L1820", "002:L1821",
        ),
        ("poker_pvp.hand_ranking", "002:L1829-1871"): (
            "002:L1829", "002:L1833", "002:L1835-1837", "002:L1839-1841",
            "002:L1843-1847", "002:L1849-1851", "002:L1853-1855", "002:L1857-1859",
            "002:L1861-1863", "002:L1865-1867", "002:L1869-1871",
        ),
        ("poker_pvp.variants", "002:L1945-1971"): (
            "002:L1945-1955", "002:L1959", "002:L1961", "002:L1969", "002:L1971",
        ),
        ("games.oasis_stud_poker.card_values", "002:L2047-2052"): (
            "002:L2047", "002:L2048", "002:L2049", "002:L2051",
        ),
        ("games.pai_gow_poker.card_values", "002:L2575-2579"): (
            "002:L2575", "002:L2576", "002:L2577", "002:L2578",
        ),
    },
}
DECISIONS = {
    ("olympic-tallinn", "absent_at_deal.tournament", "003:L177-178"),
}


def _fragment(rulebook_id: str) -> dict:
    with (DATA_DIR / f"{rulebook_id}.v1.d" / FRAGMENT).open("rb") as fh:
        return tomllib.load(fh)


def _table(rulebook_id: str, key: str) -> list[dict]:
    return next(t["rows"] for t in _fragment(rulebook_id)["tables"] if t["key"] == key)


def _figure(rulebook_id: str, key: str):
    return next(f["value"] for f in _fragment(rulebook_id)["figures"] if f["key"] == key)


BOOKS = sorted({*FIGURES, *TABLES, *SAME_AS})


@pytest.mark.parametrize("rulebook_id", BOOKS)
def test_every_informational_figure_has_the_typed_value_unit_and_cite(rulebook_id):
    """The figures equal the rows typed from the seed lines, no more, no fewer."""
    expected = FIGURES.get(SAME_AS.get(rulebook_id, rulebook_id), set())
    actual = {(f["key"], f["value"], f["unit"], f["cite"])
              for f in _fragment(rulebook_id).get("figures", [])}
    assert actual == expected, (sorted(actual - expected), sorted(expected - actual))


@pytest.mark.parametrize("rulebook_id", BOOKS)
def test_every_informational_table_has_the_typed_rows_and_cites(rulebook_id):
    """Each table's own cite and its rows' cites, in order."""
    expected = TABLES.get(SAME_AS.get(rulebook_id, rulebook_id), {})
    actual = {(t["key"], t["cite"]): tuple(row["cite"] for row in t["rows"])
              for t in _fragment(rulebook_id).get("tables", [])}
    assert actual == expected


def test_the_informational_decisions_are_there_with_their_cites():
    actual = {(rid, d["topic"], d["cite"]) for rid in BOOKS
              for d in _fragment(rid).get("decisions", [])}
    assert actual == DECISIONS


@pytest.mark.parametrize("rulebook_id", BOOKS)
def test_every_row_of_an_informational_fragment_says_why(rulebook_id):
    """No code reads these rows, so each one is marked informational."""
    data = _fragment(rulebook_id)
    unmarked = [row["key"] for section in ("figures", "tables") for row in data.get(section, [])
                if "informational" not in row]
    assert not unmarked


# ---------------------------------------------------------------------------
# The game definitions against the code
# ---------------------------------------------------------------------------

# One hand per category, best first within the standard high ranking.
STANDARD = {
    "high_card": "Ah Jd 8c 5s 3h", "pair": "9h 9d Kc 5s 3h", "two_pair": "9h 9d 5c 5s Kh",
    "three_of_a_kind": "9h 9d 9c Ks 3h", "straight": "9h 8d 7c 6s 5h",
    "flush": "Ah Jh 8h 5h 3h", "full_house": "9h 9d 9c 5s 5h",
    "four_of_a_kind": "9h 9d 9c 9s 3h", "straight_flush": "9h 8h 7h 6h 5h",
}
SOKO = {**STANDARD, "four_straight": "9h 8d 7c 6s 2h", "four_flush": "Ah Jh 8h 5h 3c"}


@pytest.mark.parametrize("rulebook_id, key", [
    ("ray-casino", "poker_pvp.hand_ranking"),
    ("ray-gaming-hall", "poker_pvp.electronic_table.hand_ranking"),
])
def test_the_printed_hand_ranking_is_the_evaluators(rulebook_id, key):
    """002:L1829-1871, L1471-1505: each hand beats the one ranked below it."""
    rows = sorted(_table(rulebook_id, key), key=lambda row: row["rank"])
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    soko = any(row.get("soko_only") for row in rows)
    values = []
    for row in rows:
        cards = SOKO[row["hand"]].split()
        hand = native_eval.best_hand("soko", cards) if soko else None
        values.append(hand.value if hand else native_eval.evaluate(cards))
        category = hand.category if hand else native_eval.category(values[-1])
        assert category == row["hand"], row
    assert values == sorted(values) and len(set(values)) == len(values)


@pytest.mark.parametrize("rulebook_id, key", [
    ("ray-gaming-hall", "poker_pvp.card_values"),
    ("ray-casino", "poker_pvp.card_values"),
    ("ray-casino", "games.oasis_stud_poker.card_values"),
    ("ray-casino", "games.pai_gow_poker.card_values"),
])
def test_card_values_are_the_engines_with_the_ace_high_or_low(rulebook_id, key):
    """An ace counts 14 or 1 (A-2-3-4-5 is a straight); K, Q, J count 13, 12, 11."""
    values = {row["card"]: row["values"] for row in _table(rulebook_id, key)}
    assert values == {"ace": [1, 14], "king": [13], "queen": [12], "jack": [11]}
    assert [rank_of(c) for c in ("As", "Ks", "Qs", "Js")] == [14, 13, 12, 11]
    assert [pai_gow.rank(c) for c in ("As", "Ks", "Qs", "Js")] == [14, 13, 12, 11]
    assert native_eval.category(native_eval.evaluate("Ah 2d 3c 4s 5h".split())) == "straight"


def test_the_wheel_is_the_second_best_straight_flush_in_pai_gow():
    """002:L2617: A-2-3-4-5 suited ranks right below A-K-Q-J-10."""
    assert _figure("ray-casino", "games.pai_gow_poker.wheel_straight_flush_rank") == 2
    wheel = pai_gow._straight_key({14, 2, 3, 4, 5})
    assert pai_gow._straight_key({14, 13, 12, 11, 10}) > wheel > pai_gow._straight_key(
        {13, 12, 11, 10, 9})


def test_hole_cards_and_hands_are_the_evaluators():
    """001:L36, L94, L126, 002:L386, L396: two hole cards in Hold'em, used 0-2;
    four in Omaha, exactly two used."""
    assert (_figure("veikkaus-online-poker", "holdem.hole_cards"),
            _figure("veikkaus-online-poker", "omaha.hole_cards")) == (2, 4)
    board = "Kh Qh 9h 4h 2c".split()
    # One heart in hand: a Hold'em flush, no Omaha flush (two hole cards needed).
    assert native_eval.best_hand("holdem", ["Ah", "3c"], board).category == "flush"
    assert native_eval.best_hand("omaha", ["Ah", "3c", "7d", "8s"], board).category != "flush"
    assert native_eval.best_hand("holdem", ["2d", "3c"], "Ah Kh Qh Jh Th".split()).category in (
        "straight_flush", "royal_flush")    # no hole card used
    with pytest.raises(ValueError):
        native_eval.best_hand("omaha", ["Ah", "3c"], board)
    variants = {(row["variant"], key): value for row in _table("ray-gaming-hall",
                "poker_pvp.variants") for key, value in row.items() if key != "variant"}
    assert variants[("texas_holdem", "hole_cards")] == 2
    assert (variants[("omaha", "hole_cards")], variants[("omaha", "hole_cards_used")]) == (4, 2)


def test_hexapro_blinds_double_and_rise_with_antes_from_level_two():
    """001:L503-541: 28 levels, big blind twice the small, antes from level 2."""
    rows = _table("veikkaus-online-poker", "tournaments.hexapro.blinds")
    assert [row["level"] for row in rows] == list(range(1, 29))
    assert all(row["big_blind"] == 2 * row["small_blind"] for row in rows)
    assert [row["small_blind"] for row in rows] == sorted({row["small_blind"] for row in rows})
    assert rows[0]["ante"] == 0 and all(row["ante"] > 0 for row in rows[1:])
    assert (rows[-1]["small_blind"], rows[-1]["big_blind"], rows[-1]["ante"]) == (2000, 4000, 500)


def test_single_zero_roulette_has_no_five_number_bet():
    """002:L165, L1604: numbers 0-36; the five-number bet needs a 38-number wheel."""
    assert _figure("ray-gaming-hall", "games.roulette.highest_number") == 36
    assert _figure("ray-casino", "games.roulette.five_number_bet_offered") is False
    with (DATA_DIR / "ray-casino.v1.d" / "games.toml").open("rb") as fh:
        payouts = next(t["rows"] for t in tomllib.load(fh)["tables"]
                       if t["key"] == "games.roulette.payouts")
    # The one five-number row is tied to the 38-pocket wheel (decision games.roulette.wheel).
    assert [row["wheel"] for row in payouts if row["numbers"] == 5] == ["double_zero"]
    game = Roulette()
    assert game.check_outcome({"number": 36}, {}, [], {}) == {"number": 36}
    with pytest.raises(OutcomeInvalid):
        game.check_outcome({"number": 37}, {}, [], {})


def test_blackjack_counts_an_ace_as_one_or_eleven_and_busts_over_21():
    """002:L770, L778; the dealer's 22 in P-S is their dealer_bust_over row."""
    assert _figure("ray-gaming-hall", "games.blackjack.ace_values") == "1_or_11"
    assert (best_total(["Ah", "6d"]), best_total(["Ah", "6d", "9c"])) == (17, 16)
    assert best_total(["Kh", "6d", "9c"]) > _figure("ray-gaming-hall",
                                                    "games.blackjack.player_bust_over")
    with (DATA_DIR / "ray-gaming-hall.v1.d" / "games.toml").open("rb") as fh:
        versions = next(t["rows"] for t in tomllib.load(fh)["tables"]
                        if t["key"] == "games.blackjack.versions")
    over_22 = {row["id"] for row in versions if row["dealer_bust_over"] == 22}
    assert over_22 == {"p", "q", "r", "s"}
