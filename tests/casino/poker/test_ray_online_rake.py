"""RAY online poker cash tables: the rake is a percentage of the round's stakes (002:L3179).

002:L3179: in cash games RAY's compensation is a percentage (rake) of the
value of the stakes made in the game round; the amount and any rake cap are
announced in the internet games' instructions. The ray-online rulebook
declares the kind (`poker.rake_rule.standard` = online_posted_percentage,
ray-online.v1.d/poker_rake.toml); the builder reads the basis
(`online.rake.poker.basis`) and whether a cap may be posted
(`online.rake.cap_allowed`); the table posts the rate and cap (decision
online.rake.rates).
"""

from __future__ import annotations

import shutil

import pytest

from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.events import house_rake
from casino.rules.commands import load_rulebook
from casino.rules.loading import DATA_DIR
from tests.casino.poker.conftest import assert_table_balanced, balance, key, play, seat_players

VENUE = "ray-online"
BASIS = 'key = "online.rake.poker.basis"\nvalue = "percent_of_round_stakes"\n'


def _table(**posted):
    return commands.open_table(
        venue=VENUE, variant="holdem", structure="no_limit", small_blind_minor=10,
        big_blind_minor=20, seats_max=6, buy_in_minor_min=1_000, buy_in_minor_max=2_000,
        actor="floor", idempotency_key=key("table"), **posted)


def _raked_hand(table_id: str):
    """Three players limp (pot 60), the flop is bet 60 and folded to: the uncalled
    60 goes back and the round's stakes are the 60 of the pot."""
    seat_players(table_id, {1: 2_000, 2: 2_000, 3: 2_000})
    hand = commands.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key("hand"))
    play(hand.hand_id, (1, "call"), (2, "call"), (3, "check"))
    return play(hand.hand_id, (2, "bet", 60), (3, "fold"), (1, "fold"))


@pytest.mark.parametrize(("cap", "rake"), [(None, 3), (2, 2)], ids=["five_percent", "capped"])
def test_the_posted_percentage_of_the_round_stakes_is_raked(venues, cap, rake):
    """002:L3179: 5 % of the 60 staked in the round is 3; a posted cap of 2 caps it."""
    table = _table(rake_percent_basis_points=500, rake_cap_minor=cap)
    assert table.rake["kind"] == "percent"
    result = _raked_hand(table.table_id)
    assert result.state == "settled"
    assert result.rake_minor == rake
    assert balance(house_rake(VENUE)) == rake
    assert_table_balanced(table.table_id)


def test_a_table_without_its_posted_percentage_is_refused(venues):
    """The rate is the game instructions' (002:L3179): none posted, no table."""
    with pytest.raises(PokerError) as refused:
        _table()
    assert refused.value.code == "poker.rake_rule_not_offered"


def test_another_basis_in_the_rulebook_refuses_the_table(venues, tmp_path):
    """The builder computes the round's stakes only: a version whose
    online.rake.poker.basis says otherwise offers no such table."""
    text = (DATA_DIR / "ray-online.v1.toml").read_text()
    assert BASIS in text
    text = text.replace("version = 1\n", "version = 2\n", 1).replace(
        BASIS, 'key = "online.rake.poker.basis"\nvalue = "percent_of_net_win"\n')
    target = tmp_path / "ray-online.v2.toml"
    target.write_text(text)
    shutil.copytree(DATA_DIR / "ray-online.v1.d", tmp_path / "ray-online.v2.d")
    load_rulebook(target)
    with pytest.raises(PokerError) as refused:
        _table(rake_percent_basis_points=500)
    assert refused.value.code == "poker.rake_rule_not_offered"
    assert "round's stakes" in refused.value.message


@pytest.mark.parametrize(("big_blind_minor", "opens"), [(100_000, True), (100_001, False)],
                         ids=["at_cap", "over_cap"])
def test_an_online_table_over_the_opening_stake_cap_does_not_open(venues, big_blind_minor,
                                                                   opens):
    """002:L3467 through open_table, now that ray-online tables open: EUR 1,000 at most."""
    from casino.compliance.errors import AttemptRejected

    terms = dict(venue=VENUE, variant="holdem", structure="no_limit", small_blind_minor=50_000,
                 big_blind_minor=big_blind_minor, seats_max=6,
                 buy_in_minor_min=40 * big_blind_minor, buy_in_minor_max=100 * big_blind_minor,
                 rake_percent_basis_points=500, actor="floor", idempotency_key=key("table"))
    if opens:
        assert commands.open_table(**terms).stakes["big_blind_minor"] == big_blind_minor
    else:
        with pytest.raises(AttemptRejected) as refused:
            commands.open_table(**terms)
        assert refused.value.details["cite"] == "002:L3467"
