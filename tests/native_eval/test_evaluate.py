"""The evaluate / category / evaluate_batch part of the native_eval contract."""

from __future__ import annotations

import array

import native_eval
from tests.native_eval.reference import code_of


def test_package_reexports_the_extension_api() -> None:
    """native_eval re-exports every public name of native_eval._native."""
    from native_eval import _native

    assert set(native_eval.__all__) == set(_native.__all__)
    for name in native_eval.__all__:
        assert getattr(native_eval, name) is getattr(_native, name)


def test_extension_is_a_release_build() -> None:
    """The installed extension was built with the release profile."""
    assert native_eval.build_profile == "release"


def test_royal_flush_is_the_top_value_and_seven_high_the_bottom() -> None:
    """Values run from 1 (7-5-4-3-2 offsuit) to 7462 (royal flush)."""
    assert native_eval.evaluate("As Ks Qs Js Ts") == 7462
    assert native_eval.evaluate("7s 5h 4d 3c 2s") == 1


def test_list_tuple_and_string_inputs_are_equivalent() -> None:
    """A list, a tuple and a space-separated string of the same cards agree."""
    cards = ["Ah", "Kd", "7c", "7s", "2h", "9d", "Tc"]
    assert native_eval.evaluate(cards) == native_eval.evaluate(tuple(cards))
    assert native_eval.evaluate(cards) == native_eval.evaluate(" ".join(cards))
    assert native_eval.evaluate(cards) == native_eval.evaluate("  Ah Kd\t7c 7s 2h 9d Tc ")


def test_wheel_is_the_lowest_straight_and_there_is_no_wrap_around() -> None:
    """A-2-3-4-5 is the lowest straight (5854); K-A-2-3-4 is only ace high."""
    wheel = native_eval.evaluate("5s 4h 3d 2c Ah")
    assert wheel == 5854
    assert native_eval.category(wheel) == "straight"
    assert native_eval.evaluate("6s 5h 4d 3c 2h") == wheel + 1
    assert native_eval.category(native_eval.evaluate("Ks Ah 2d 3c 4h")) == "high_card"
    assert native_eval.evaluate("5h 4h 3h 2h Ah") == 7453


def test_category_boundaries() -> None:
    """The first and last value of each category map to its name."""
    bounds = {
        "high_card": (1, 1277),
        "pair": (1278, 4137),
        "two_pair": (4138, 4995),
        "three_of_a_kind": (4996, 5853),
        "straight": (5854, 5863),
        "flush": (5864, 7140),
        "full_house": (7141, 7296),
        "four_of_a_kind": (7297, 7452),
        "straight_flush": (7453, 7462),
    }
    for name, (first, last) in bounds.items():
        assert native_eval.category(first) == name
        assert native_eval.category(last) == name


def test_six_and_seven_cards_take_the_best_five() -> None:
    """Extra cards never hurt: the best five of six or seven cards count."""
    five = native_eval.evaluate("Ah Ad Ac Kh Kd")
    assert native_eval.evaluate("Ah Ad Ac Kh Kd 2c") == five
    assert native_eval.evaluate("Ah Ad Ac Kh Kd 2c 3s") == five
    assert native_eval.category(native_eval.evaluate("2h 3h 4h 5h 9h Ah Kd")) == "straight_flush"


def test_equal_hands_in_different_suits_tie() -> None:
    """Suits never break ties."""
    assert native_eval.evaluate("As Kd Qc Jh 9s") == native_eval.evaluate("Ah Ks Qd Jc 9h")


def test_batch_returns_an_unsigned_short_array_of_evaluate_values() -> None:
    """evaluate_batch gives array('H') with one evaluate value per hand."""
    hands = ["As Ks Qs Js Ts 2c 3d", "7s 5h 4d 3c 2s 9h Jd", "Ah Ad Ac Kh Kd 2c 3s"]
    codes = b"".join(native_eval.card_codes(h) for h in hands)
    out = native_eval.evaluate_batch(codes, 7)
    assert isinstance(out, array.array)
    assert out.typecode == "H"
    assert list(out) == [native_eval.evaluate(h) for h in hands]


def test_batch_accepts_any_bytes_like_buffer_and_hand_sizes_5_6_7() -> None:
    """bytes, bytearray, memoryview and array('B') give the same values."""
    cards = "As Ks Qs Js Ts 2c 3d 7s 5h 4d 3c 2s 9h Jd"
    codes = native_eval.card_codes(cards)
    expected7 = [7462, native_eval.evaluate("7s 5h 4d 3c 2s 9h Jd")]
    for buf in (codes, bytearray(codes), memoryview(codes), array.array("B", codes)):
        assert list(native_eval.evaluate_batch(buf, 7)) == expected7
    six = native_eval.card_codes("As Ks Qs Js Ts 2c 7s 5h 4d 3c 2s 9h")
    assert list(native_eval.evaluate_batch(six, 6)) == [7462, native_eval.evaluate("7s 5h 4d 3c 2s 9h")]
    five = native_eval.card_codes("As Ks Qs Js Ts 7s 5h 4d 3c 2s")
    assert list(native_eval.evaluate_batch(five, 5)) == [7462, 1]


def test_empty_batch_gives_an_empty_array() -> None:
    """No codes, no values."""
    assert list(native_eval.evaluate_batch(b"", 7)) == []


def test_card_codes_follow_four_times_rank_plus_suit() -> None:
    """A card's code is 4 * rank + suit (2..A -> 0..12; s, h, d, c -> 0..3)."""
    assert native_eval.card_codes("2s 2h 2d 2c Ah As") == bytes([0, 1, 2, 3, 49, 48])
    assert native_eval.card_names(bytes([0, 1, 2, 3, 49, 51])) == ["2s", "2h", "2d", "2c", "Ah", "Ac"]
    for card in ("Td", "9c", "Qh"):
        assert native_eval.card_codes(card) == bytes([code_of(card)])


def test_variants_lists_every_supported_id() -> None:
    """VARIANTS names all variants of the contract."""
    assert set(native_eval.VARIANTS) == {
        "holdem",
        "pineapple",
        "crazy_pineapple",
        "helsinki_holdem",
        "omaha",
        "omaha5",
        "courchevel",
        "omaha_hilo",
        "omaha5_hilo",
        "stud",
        "stud_hilo",
        "razz",
        "soko",
        "five_card_draw",
        "double_flop",
        "sviten",
        "three_card",
    }
