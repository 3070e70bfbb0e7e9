"""Every Part IV cap of seed 002, typed by hand from the digest.

Independent of casino/rules/data: the data test compares the TOML rows with
these sets, and the pipeline test stakes at and above every one of them.
"""

# ---------------------------------------------------------------------------
# Part IV of seed 002, typed by hand from the digest (section 10).
# (rulebook_id, game, bet_unit, stake_minor_max, cite)
# ---------------------------------------------------------------------------

# Section 8 applies to RAY gaming halls and partner premises alike, except the
# slot-machine sentence at L3371, which splits by premises.
_SECTION_8_COMMON = [
    ("roulette", "number_field", 4_00, "002:L3339"),
    ("roulette", "side_field", 10_00, "002:L3339"),
    ("lucky_dice", "number_field", 4_00, "002:L3343"),
    ("lucky_dice", "side_field", 10_00, "002:L3343"),
    ("poker_pvp", "opening_stake", 2_00, "002:L3347"),
    ("poker_pvp_tournament", "entry_fee", 50_00, "002:L3349"),
    ("fast_poker", "box", 20_00, "002:L3351"),
    ("triple_bet_poker", "box", 20_00, "002:L3353"),
    ("dynamic_poker", "box", 20_00, "002:L3355"),
    ("riverside_poker", "box", 20_00, "002:L3357"),
    ("blackjack", "box", 20_00, "002:L3359"),
    ("blackjack", "side_game", 5_00, "002:L3359"),
    ("red_dog", "box", 10_00, "002:L3361"),
    ("bulldog", "box", 10_00, "002:L3363"),
    ("slot_tournament", "entry_fee", 20_00, "002:L3375"),
    ("pajatso_multishot", "single_stake", 4_00, "002:L3377"),
    ("terminal_roulette", "position_number_field", 2_00, "002:L3379"),
    ("terminal_roulette", "position_side_field", 10_00, "002:L3379"),
    ("electronic_poker_table", "opening_stake", 2_00, "002:L3381"),
    ("special_machine_blackjack", "main_and_side_total", 6_00, "002:L3383"),
    ("special_machine_blackjack", "side_game", 2_00, "002:L3383"),
]
_SECTION_8_HALL_SLOTS = [
    ("slot_machine", "single_stake", 2_00, "002:L3371"),
    ("slot_machine", "round_total", 8_00, "002:L3371"),
]
_SECTION_8_PARTNER_SLOTS = [
    ("slot_machine", "single_stake", 1_00, "002:L3371"),
    ("slot_machine", "round_total", 2_00, "002:L3371"),
]
_SECTION_9 = [
    ("roulette", "numbers_1", 600_00, "002:L3395"),
    ("roulette", "numbers_2", 1_200_00, "002:L3395"),
    ("roulette", "numbers_3", 1_800_00, "002:L3395"),
    ("roulette", "numbers_4", 2_400_00, "002:L3395"),
    ("roulette", "numbers_5", 3_000_00, "002:L3395"),
    ("roulette", "numbers_6", 3_600_00, "002:L3395"),
    ("roulette", "side_field", 9_000_00, "002:L3395"),
    ("money_wheel", "bet", 4_000_00, "002:L3397"),
    ("sic_bo", "bet", 7_000_00, "002:L3401"),
    ("poker_pvp", "opening_stake", 20_000_00, "002:L3405"),
    ("poker_pvp_tournament", "entry_fee", 20_000_00, "002:L3405"),
    ("oasis_stud_poker", "box", 7_000_00, "002:L3407"),
    ("texas_holdem_bonus", "box", 7_000_00, "002:L3409"),
    ("texas_holdem_bonus_progressive", "box", 7_000_00, "002:L3411"),
    ("ultimate_texas_holdem", "box", 7_000_00, "002:L3413"),
    ("ultimate_texas_holdem_progressive", "box", 7_000_00, "002:L3415"),
    ("pai_gow_poker", "box", 7_000_00, "002:L3417"),
    ("three_card_poker", "box", 7_000_00, "002:L3419"),
    ("punto_banco", "bet", 7_000_00, "002:L3421"),
    ("baccara", "bet", 7_000_00, "002:L3423"),
    ("blackjack", "box", 7_000_00, "002:L3425"),
    ("red_dog", "box", 7_000_00, "002:L3427"),
    ("bulldog", "box", 7_000_00, "002:L3429"),
    ("table_game_tournament", "entry_fee", 7_000_00, "002:L3431"),
    ("slot_machine", "line_or_option", 20_00, "002:L3439"),
    ("automatic_roulette", "numbers_1", 200_00, "002:L3441"),
    ("automatic_roulette", "numbers_2", 400_00, "002:L3441"),
    ("automatic_roulette", "numbers_3", 600_00, "002:L3441"),
    ("automatic_roulette", "numbers_4", 800_00, "002:L3441"),
    ("automatic_roulette", "numbers_5", 1_000_00, "002:L3441"),
    ("automatic_roulette", "numbers_6", 1_200_00, "002:L3441"),
    ("automatic_roulette", "side_field", 2_000_00, "002:L3441"),
    ("automatic_poker", "opening_stake", 4_000_00, "002:L3443"),
    ("automatic_poker_tournament", "entry_fee", 4_000_00, "002:L3443"),
    ("slot_tournament", "entry_fee", 2_000_00, "002:L3445"),
]
_SECTION_10 = [
    ("wheel_and_number_draw", "betting_option", 400_00, "002:L3457"),
    ("dice_vs_house", "betting_option", 500_00, "002:L3459"),
    ("card_vs_house", "betting_option", 500_00, "002:L3461"),
    ("poker_pvp", "opening_stake", 1_000_00, "002:L3467"),
    ("card_pvp_other", "betting_option", 500_00, "002:L3469"),
    ("dice_pvp", "betting_option", 500_00, "002:L3471"),
    ("slot_game", "round_total", 20_00, "002:L3477"),
    ("slot_game_long_round", "round_total", 100_00, "002:L3479"),
    ("table_game_tournament", "entry_fee", 1_000_00, "002:L3483"),
    ("poker_pvp_tournament", "entry_fee", 5_000_00, "002:L3485"),
    ("slot_tournament", "entry_fee", 500_00, "002:L3487"),
]

PART_IV_STAKE_CAPS = (
    {("ray-gaming-hall", *row) for row in _SECTION_8_COMMON + _SECTION_8_HALL_SLOTS}
    | {("ray-partner-premises", *row) for row in _SECTION_8_COMMON + _SECTION_8_PARTNER_SLOTS}
    | {("ray-casino", *row) for row in _SECTION_9}
    | {("ray-online", *row) for row in _SECTION_10}
)

# Section 11. (rulebook_id, win_minor_max, cite)
PART_IV_WIN_CAPS = {
    ("ray-partner-premises", 10_000_00, "002:L3493"),
    ("ray-gaming-hall", 100_000_00, "002:L3495"),
    ("ray-online", 1_000_000_00, "002:L3497"),
    ("ray-casino", 10_000_000_00, "002:L3499"),
}

