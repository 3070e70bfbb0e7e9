"""The table games read the two stake-cap switches of their rulebook (issue 14).

- 002:L139 "Panos on mitätön siltä osin, kuin se ylittää sallitun
  enimmäispanoksen." (a stake is void in so far as it exceeds the maximum):
  `stake.excess_over_max_is_void = true` at the halls; the excess is void,
  the capped part is staked. Switched off, the stake is refused whole and
  the refusal recorded.
- 002:L147 "Yhteispeli, jonka tarkoituksena on ylittää pelaajakohtainen
  enimmäispanos, ei ole sallittua." (joint play to exceed the per-player
  maximum is not allowed): `stake.pooling_to_exceed_max_allowed = false`; a
  player's chips on one position count together against the cap (decision
  games.pooling). Switched on, each placement meets the cap alone.

The hall's cap on a roulette number is EUR 4 (Part IV).
"""

import pytest

from casino.accounts import gaming_account
from casino.games.errors import GamesError
from casino.games.events import BET_REJECTED
from casino.rules import cache
from casino.rules.models import Figure as RuleFigure
from ledger.models import Event
from tests.casino.games.conftest import balance, funded_player
from tests.casino.games.test_commands import bet, open_round, roulette_table

HALL = "hall-helsinki"


@pytest.fixture
def fresh_rules_cache():
    cache.invalidate()
    yield
    cache.invalidate()


def _set(key: str, value) -> None:
    assert RuleFigure.objects.filter(rulebook__rulebook_id="ray-gaming-hall",
                                     figure_key=key).update(value=value) == 1
    cache.invalidate()


def test_the_excess_over_the_cap_is_void_only_where_the_rulebook_says_so(
        venues, fresh_rules_cache):
    """002:L139: EUR 10 on a number at a hall stakes EUR 4 and voids EUR 6;
    with the switch off the whole stake is refused and the refusal recorded."""
    table = roulette_table(venue=HALL)
    player = funded_player(venue=HALL)
    r = open_round(table.table_id)
    placed = bet(r.round_id, player.id, "straight", {"numbers": [5]}, 10_00)
    assert (placed.stake_minor, placed.void_minor) == (4_00, 6_00)
    _set("stake.excess_over_max_is_void", False)
    before = Event.objects.count()
    with pytest.raises(GamesError) as refused:
        bet(r.round_id, player.id, "straight", {"numbers": [7]}, 10_00)
    assert (refused.value.code, refused.value.details["cite"],
            refused.value.details["limit_minor"]) == ("games.stake_above_maximum", "002:L139",
                                                      4_00)
    assert Event.objects.count() == before + 1
    assert Event.objects.order_by("-position").first().type == BET_REJECTED
    assert balance(gaming_account(player.id)) == 1_000_00 - 4_00
    # At or under the cap the switch changes nothing.
    assert bet(r.round_id, player.id, "straight", {"numbers": [7]}, 4_00).stake_minor == 4_00


def test_a_players_chips_on_one_position_count_together_unless_pooling_is_allowed(
        venues, fresh_rules_cache):
    """002:L147: EUR 3 then EUR 3 on one number: the second stakes EUR 1 (EUR 4 cap);
    with pooling allowed, each placement meets the cap alone and takes EUR 3."""
    table = roulette_table(venue=HALL)
    player = funded_player(venue=HALL)
    r = open_round(table.table_id)
    bet(r.round_id, player.id, "straight", {"numbers": [5]}, 3_00)
    second = bet(r.round_id, player.id, "straight", {"numbers": [5]}, 3_00)
    assert (second.stake_minor, second.void_minor) == (1_00, 2_00)
    _set("stake.pooling_to_exceed_max_allowed", True)
    third = bet(r.round_id, player.id, "straight", {"numbers": [5]}, 3_00)
    assert (third.stake_minor, third.void_minor) == (3_00, 0)
