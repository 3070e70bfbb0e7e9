"""A EUR 7,000 punto banco placement at the casino (issue 14 item 3).

002:L3421 caps a punto banco placement at EUR 7,000, above the online gaming
account's EUR 5,000 ceiling (002:L3070). The ceiling belongs to the online
account (ray-online decision online.account.scope); the games take stakes
from that account, whose ledger maximum is the ceiling, so a single EUR
7,000 stake cannot be taken from it. The box still reaches the cap through
stakes the casino pools on one placement (decision games.pooling): EUR
3,500, a cash top-up at the cage, EUR 3,500 more. A single EUR 7,000 stake
is paid in chips bought for cash (decision games.stake_means,
tests/casino/games/test_chip_stakes.py).
"""

from casino.cage.commands import deposit
from casino.accounts import gaming_account
from casino.games import commands
from casino.games.models import Bet

from .conftest import balance, funded_player, key

VENUE = "casino-helsinki"


def test_a_punto_banco_placement_reaches_seven_thousand_at_the_casino(venues):
    """002:L3421: EUR 7,000 on one punto placement is staked at the casino."""
    player = funded_player(5_000_00, venue=VENUE)
    table = commands.open_table(venue=VENUE, game="punto_banco", stake_minor_min=100,
                                stake_minor_max=7_000_00, actor="floor",
                                idempotency_key=key("table"))
    round_id = commands.open_round(table_id=table.table_id, actor="floor",
                                   idempotency_key=key("round")).round_id
    for _ in range(2):
        commands.place_bet(round_id=round_id, player_id=player.id, kind="punto", spec={},
                           stake_minor=3_500_00, actor="floor", idempotency_key=key("bet"))
        deposit(player_id=player.id, venue=VENUE, amount_minor=3_500_00, currency="EUR",
                method="cash", actor="cage", idempotency_key=key("deposit"))
    staked = sum(bet.stake_minor for bet in Bet.objects.filter(round_id=round_id,
                                                               player_id=player.id))
    assert staked == 7_000_00
    assert balance(gaming_account(player.id)) == 5_000_00
