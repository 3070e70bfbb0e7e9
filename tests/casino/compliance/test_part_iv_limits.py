"""Every Part IV maximum stake and win: at the limit allowed, a cent over refused.

The rows come from the hand-typed table in tests/casino/rules/part_iv_tables.py
(typed from the digest of seed 002, independent of the rulebook data), so a
wrong figure in the data fails here as well as in the data test.
"""

import pytest

from casino.compliance.pipeline import Attempt, check
from tests.casino.conftest import NOON, VENUES
from tests.casino.rules.part_iv_tables import PART_IV_STAKE_CAPS, PART_IV_WIN_CAPS


@pytest.mark.parametrize(
    "rulebook_id, game, bet_unit, stake_minor_max, cite",
    sorted(PART_IV_STAKE_CAPS),
    ids=[f"{r}:{g}.{u}" for r, g, u, _, _ in sorted(PART_IV_STAKE_CAPS)],
)
def test_stake_at_the_limit_passes_and_one_cent_more_is_refused(
    player, rulebook_id, game, bet_unit, stake_minor_max, cite
):
    """A stake equal to the cap is allowed; one cent above names the rule."""
    attempt = dict(kind="stake", venue=VENUES[rulebook_id], currency="EUR",
                   player_id=player.id, game=game, bet_unit=bet_unit, at=NOON)
    at_limit = check(Attempt(amount_minor=stake_minor_max, **attempt))
    over = check(Attempt(amount_minor=stake_minor_max + 1, **attempt))
    assert at_limit.allowed, at_limit.failure
    assert "compliance.max_stake" in at_limit.checks_passed
    assert not over.allowed
    assert over.failure.code == "compliance.max_stake"
    assert over.failure.limit_minor == stake_minor_max
    assert over.failure.cite == cite
    assert over.failure.rulebook == f"{rulebook_id}@1"


@pytest.mark.parametrize("rulebook_id, win_minor_max, cite", sorted(PART_IV_WIN_CAPS))
def test_win_at_the_cap_passes_and_one_cent_more_is_refused(
    player, rulebook_id, win_minor_max, cite
):
    """The venue-level maximum win of Part IV section 11 (002:L3489-L3499)."""
    attempt = dict(kind="win", venue=VENUES[rulebook_id], currency="EUR",
                   player_id=player.id, at=NOON)
    assert check(Attempt(amount_minor=win_minor_max, **attempt)).allowed
    over = check(Attempt(amount_minor=win_minor_max + 1, **attempt))
    assert (over.failure.code, over.failure.limit_minor, over.failure.cite) == (
        "compliance.max_win", win_minor_max, cite)


def test_a_game_without_a_cap_at_the_venue_is_not_offered(player):
    """Casino-only games have no hall cap, so a hall may not take the stake."""
    verdict = check(Attempt(kind="stake", venue="hall-helsinki", currency="EUR",
                            player_id=player.id, game="sic_bo", bet_unit="bet",
                            amount_minor=100, at=NOON))
    assert verdict.failure.code == "compliance.game_not_offered"


@pytest.mark.parametrize("rulebook_id, game, bet_unit, cap", [
    # "per_game_rules": the game's own rules may take the stake past the cap.
    ("ray-casino", "oasis_stud_poker", "box", 700_000),
    # "at_most_double": Red Dog's raise doubles a capped stake at most.
    ("ray-gaming-hall", "red_dog", "box", 1_000),
])
def test_an_in_play_raise_is_bounded_by_the_games_rules_where_the_row_allows(
    player, rulebook_id, game, bet_unit, cap
):
    """002:L3333-L3487: a cap whose row lets the game's rules raise past it does
    not refuse the raise itself (the game checks it against its own rule);
    the opening stake is still capped."""
    attempt = dict(kind="stake", venue=VENUES[rulebook_id], currency="EUR",
                   player_id=player.id, game=game, bet_unit=bet_unit, at=NOON)
    assert not check(Attempt(amount_minor=cap + 1, **attempt)).allowed
    assert check(Attempt(amount_minor=2 * cap, in_play_raise=True, **attempt)).allowed


def test_an_in_play_raise_under_a_final_cap_is_still_capped(player):
    """raise_rule "none": the cap is final, raise or not (002:L3405)."""
    attempt = dict(kind="stake", venue=VENUES["ray-casino"], currency="EUR",
                   player_id=player.id, game="poker_pvp_tournament", bet_unit="entry_fee",
                   at=NOON, in_play_raise=True)
    assert check(Attempt(amount_minor=2_000_000, **attempt)).allowed
    assert check(Attempt(amount_minor=2_000_001, **attempt)).failure.code == "compliance.max_stake"
