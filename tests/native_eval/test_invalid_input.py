"""Bad input of every kind raises ValueError naming the problem, never a crash."""

from __future__ import annotations

import pytest

import native_eval

BOARD = "2c 7d 9h Js 4d"


@pytest.mark.parametrize("card", ["Xx", "1h", "ah", "AH", "10h", "A", "Ahh", "Az", "é♠"])
def test_unknown_card_is_named(card: str) -> None:
    """An unknown card raises ValueError quoting it."""
    with pytest.raises(ValueError, match="unknown card"):
        native_eval.evaluate(["Ks", "Kd", "2c", "3c", card])
    with pytest.raises(ValueError, match="unknown card"):
        native_eval.best_hand("holdem", ["Ks", card], BOARD)


def test_non_string_cards_are_rejected() -> None:
    """A card that is not a string, or cards that are not a sequence, raise ValueError."""
    with pytest.raises(ValueError, match="two-character string"):
        native_eval.evaluate(["Ks", "Kd", "2c", "3c", 5])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="two-character string"):
        native_eval.evaluate([b"Ks", "Kd", "2c", "3c", "4c"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="cards must be"):
        native_eval.evaluate(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cards must be"):
        native_eval.best_hand("holdem", None, BOARD)  # type: ignore[arg-type]


def test_duplicate_card_in_evaluate() -> None:
    """The same card twice in one call raises ValueError naming it."""
    with pytest.raises(ValueError, match="duplicate card Ks"):
        native_eval.evaluate("Ks Kd 2c 3c Ks")


def test_duplicate_between_hole_and_board() -> None:
    """A hole card also on the board is a duplicate."""
    with pytest.raises(ValueError, match="duplicate card 9h"):
        native_eval.best_hand("holdem", "9h Ad", BOARD)


def test_duplicate_between_two_hands_in_showdown() -> None:
    """A card held by two seats is a duplicate."""
    with pytest.raises(ValueError, match="duplicate card As"):
        native_eval.showdown("holdem", BOARD, {1: "As Ad", 2: "As Kd"}, [(10, [1, 2])], 1)


def test_duplicate_between_board_and_hand_in_showdown() -> None:
    """A card on the board and in a hand is a duplicate."""
    with pytest.raises(ValueError, match="duplicate card 2c"):
        native_eval.showdown("holdem", BOARD, {1: "As Ad", 2: "2c Kd"}, [(10, [1, 2])], 1)


def test_duplicate_between_the_two_double_flop_boards() -> None:
    """The two Double Flop boards may not share a card."""
    with pytest.raises(ValueError, match="duplicate card 2c"):
        native_eval.showdown("double_flop", (BOARD, "2c 3d 5h 6s 8c"), {1: "As Ad", 2: "Kc Kd"}, [(10, [1, 2])], 1)


@pytest.mark.parametrize("cards", ["Ks Kd 2c 3c", "Ks Kd 2c 3c 4c 5c 6c 7c", ""])
def test_evaluate_needs_five_to_seven_cards(cards: str) -> None:
    """evaluate takes 5, 6 or 7 cards."""
    with pytest.raises(ValueError, match="wrong number of cards"):
        native_eval.evaluate(cards)


@pytest.mark.parametrize(
    ("variant", "hole", "board"),
    [
        ("holdem", "As", BOARD),
        ("holdem", "As Ks Qs", BOARD),
        ("holdem", "As Ks", "2c 7d"),
        ("holdem", "As Ks", "2c 7d 9h Js 4d 5d"),
        ("omaha", "As Ks Qs", BOARD),
        ("omaha5", "As Ks Qs Js", BOARD),
        ("courchevel", "As Ks Qs Js Ts 3s", BOARD),
        ("stud", "As Ks Qs Js Ts 3s", ""),
        ("stud", "As Ks Qs Js Ts 3s 3h", "5c"),
        ("stud", "As Ks Qs Js", "5c 5d 5h"),
        ("razz", "As Ks Qs Js Ts 3s 3h 3d", ""),
        ("soko", "As Ks Qs Js", ""),
        ("soko", "As Ks Qs Js Ts", "2c 3c 4c"),
        ("five_card_draw", "As Ks Qs Js Ts 9s", ""),
        ("three_card", "As Ks", ""),
        ("sviten", "As Ks Qs Js", BOARD),
        ("double_flop", "As Ks Qs", BOARD),
    ],
)
def test_wrong_card_count_for_the_variant(variant: str, hole: str, board: str) -> None:
    """best_hand rejects a hand or board of the wrong size for the variant."""
    with pytest.raises(ValueError, match="wrong number of cards"):
        native_eval.best_hand(variant, hole, board)


def test_showdown_needs_the_full_board() -> None:
    """A showdown happens after the river: the board holds five cards."""
    with pytest.raises(ValueError, match="holds 5 cards, got 3"):
        native_eval.showdown("holdem", "2c 7d 9h", {1: "As Ad", 2: "Kc Kd"}, [(10, [1, 2])], 1)


def test_showdown_wrong_hand_size_names_the_seat() -> None:
    """A seat with the wrong number of cards is named."""
    with pytest.raises(ValueError, match="seat 2 holds 3 cards, expected 4"):
        native_eval.showdown("omaha", BOARD, {1: "As Ad Ac Ah", 2: "Kc Kd Ks"}, [(10, [1, 2])], 1)


def test_stud_and_draw_games_take_no_board() -> None:
    """Draw and Sökö hands have no board; stud takes at most two shortage cards."""
    with pytest.raises(ValueError, match="no board"):
        native_eval.showdown("five_card_draw", "2c", {1: "As Ad Ac Ah Ks", 2: "Kc Kd Qs Qh Qd"}, [(10, [1, 2])], 1)
    with pytest.raises(ValueError, match="at most 2 community cards"):
        native_eval.showdown("stud", "2c 3c 4c", {1: "As Ad Ac Ah", 2: "Kc Kd Qs Qh"}, [(10, [1, 2])], 1)


def test_double_flop_needs_a_pair_of_boards() -> None:
    """Double Flop takes exactly two boards of five cards."""
    with pytest.raises(ValueError, match="pair of boards"):
        native_eval.showdown("double_flop", BOARD, {1: "As Ad", 2: "Kc Kd"}, [(10, [1, 2])], 1)
    with pytest.raises(ValueError, match="two boards of 5 cards"):
        native_eval.showdown("double_flop", (BOARD, "2d 3d 5h"), {1: "As Ad", 2: "Kc Kd"}, [(10, [1, 2])], 1)


@pytest.mark.parametrize("variant", ["texas", "Holdem", "", "omaha_hi_lo"])
def test_unknown_variant(variant: str) -> None:
    """An unknown variant id raises ValueError quoting it."""
    with pytest.raises(ValueError, match="unknown variant"):
        native_eval.best_hand(variant, "As Ks", BOARD)
    with pytest.raises(ValueError, match="unknown variant"):
        native_eval.showdown(variant, BOARD, {1: "As Ad"}, [(10, [1])], 1)


def test_variant_must_be_a_string() -> None:
    """A non-string variant raises ValueError."""
    with pytest.raises(ValueError, match="variant must be a string"):
        native_eval.best_hand(1, "As Ks", BOARD)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pots", "message"),
    [
        ([], "at least one pot"),
        ([(10, [1, 3])], "eligible seat 3 has no hand"),
        ([(10, [])], "no eligible seat"),
        ([(10, [1, 1])], "listed twice"),
        ([(-1, [1, 2])], "must not be negative"),
        ([(10,)], r"must be \(amount, eligible_seats\)"),
        ([10], r"must be \(amount, eligible_seats\)"),
        ([("10", [1, 2])], "amount must be an int"),
        ([(10, [1, "2"])], "a seat must be an int"),
        ([(10, 1)], "eligible_seats must be a sequence"),
        ([(2**63, [1]), (2**63, [2])], "overflows"),
        ([(2**64, [1])], "does not fit in 64 bits"),
        ([(True, [1])], "amount must be an int"),
    ],
)
def test_malformed_pots(pots: list[object], message: str) -> None:
    """Malformed pots raise ValueError saying what is wrong."""
    with pytest.raises(ValueError, match=message):
        native_eval.showdown("holdem", BOARD, {1: "As Ad", 2: "Kc Kd"}, pots, 1)  # type: ignore[arg-type]


def test_malformed_hands_and_button() -> None:
    """No hands, non-mapping hands, non-int seats and buttons raise ValueError."""
    with pytest.raises(ValueError, match="at least one hand"):
        native_eval.showdown("holdem", BOARD, {}, [(10, [1])], 1)
    with pytest.raises(ValueError, match="mapping of seat to cards"):
        native_eval.showdown("holdem", BOARD, ["As Ad"], [(10, [1])], 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a seat must be an int"):
        native_eval.showdown("holdem", BOARD, {"1": "As Ad"}, [(10, [1])], 1)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="button must be an int"):
        native_eval.showdown("holdem", BOARD, {1: "As Ad"}, [(10, [1])], "1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="button must be an int"):
        native_eval.showdown("holdem", BOARD, {1: "As Ad"}, [(10, [1])], True)


@pytest.mark.parametrize("hand_size", [4, 8, 0, -7])
def test_batch_hand_size_must_be_5_6_or_7(hand_size: int) -> None:
    """evaluate_batch accepts hand sizes 5, 6 and 7 only."""
    with pytest.raises(ValueError, match="hand_size must be 5, 6 or 7"):
        native_eval.evaluate_batch(bytes(range(56)), hand_size)


def test_batch_length_must_be_a_multiple_of_the_hand_size() -> None:
    """A partial last hand is rejected."""
    with pytest.raises(ValueError, match="do not divide into hands of 7"):
        native_eval.evaluate_batch(bytes(range(15)), 7)


def test_batch_code_above_51_names_the_hand() -> None:
    """A code that is not a card (52 or more) is reported with its hand."""
    codes = bytearray(range(7)) * 20
    codes[7 * 17 + 3] = 200
    with pytest.raises(ValueError, match="code 200 in hand 17"):
        native_eval.evaluate_batch(codes, 7)


def test_batch_duplicate_card_within_a_hand_names_the_hand() -> None:
    """A card twice in one hand is reported with its hand; different hands may share cards."""
    codes = bytearray(range(7)) * 20
    codes[7 * 5 + 6] = 0
    with pytest.raises(ValueError, match="duplicate card 2s in hand 5"):
        native_eval.evaluate_batch(codes, 7)


def test_batch_needs_a_byte_buffer() -> None:
    """A list or a string is not a buffer of codes."""
    with pytest.raises(ValueError, match="bytes-like buffer"):
        native_eval.evaluate_batch(list(range(7)), 7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bytes-like buffer"):
        native_eval.evaluate_batch("0123456", 7)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, 7463, -1, 2**70, -(2**70)])
def test_category_of_an_impossible_value(value: int) -> None:
    """category rejects values outside 1..7462."""
    with pytest.raises(ValueError, match="hand value"):
        native_eval.category(value)


def test_category_needs_an_int() -> None:
    """category rejects non-int values."""
    with pytest.raises(ValueError, match="value must be an int"):
        native_eval.category("7462")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="value must be an int"):
        native_eval.category(True)


def test_card_names_rejects_codes_above_51() -> None:
    """card_names names a code that is not a card."""
    with pytest.raises(ValueError, match="code 52"):
        native_eval.card_names(bytes([0, 52]))
