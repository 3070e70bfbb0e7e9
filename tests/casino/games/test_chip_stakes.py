"""House-game stakes in chips: the EUR 7,000 punto banco bet (issue 14).

002:L3421: the largest punto banco stake on one placement is EUR 7,000.
002:L1543: at the casino a stake is a value chip or table chip placed on the
table. The gaming account holds at most EUR 5,000 (002:L3070), so a single
EUR 7,000 stake is paid in chips bought for cash at the casino's cage
(decision games.stake_means): the stake leaves the chip float, and the
round's return, or a void's refund, goes back to it in chips.
"""

from __future__ import annotations

import pytest

from casino.accounts import chips_outstanding
from casino.cage.commands import buy_chips
from casino.accounts import gaming_account
from casino.compliance.errors import AttemptRejected
from casino.games import commands
from casino.games.errors import GamesError
from casino.games.events import house_games, table_stakes
from casino.games.models import RoundSnapshot
from casino.roles import Role
from ledger import rebuild_projections, verify_chain
from tests.casino.api.conftest import client_for, post

from .conftest import balance, funded_player, key
from .http_rounds import API, open_table, round_postings

VENUE = "casino-helsinki"
FLOAT = chips_outstanding(VENUE)


def _chips(player_id: str, amount_minor: int) -> None:
    buy_chips(player_id=player_id, venue=VENUE, amount_minor=amount_minor, currency="EUR",
              paid_with="cash", actor="cage", idempotency_key=key("chips"))


def _table(stake_max: int = 7_000_00):
    return commands.open_table(venue=VENUE, game="punto_banco", stake_minor_min=100,
                               stake_minor_max=stake_max, actor="floor",
                               idempotency_key=key("table")).table_id


def _round(table_id: str) -> str:
    return commands.open_round(table_id=table_id, actor="floor",
                               idempotency_key=key("round")).round_id


@pytest.fixture
def controller(venues):
    return client_for(Role.TABLE_CONTROLLER)


def test_one_seven_thousand_euro_punto_stake_in_chips_settles_in_chips_002_L3421(controller):
    """002:L3421: EUR 7,000 on one punto placement, one stake, over HTTP: the
    chips leave the float, the punto win (1:1) comes back as EUR 14,000 in
    chips, the gaming account is untouched, and the round reconciles."""
    player = funded_player(1_000_00, venue=VENUE)
    _chips(player.id, 7_000_00)
    assert balance(FLOAT) == 7_000_00
    table = open_table(controller, "punto_banco", stake_max="7000.00")
    response = post(controller, f"{API}/tables/{table['table_id']}/rounds", {}, key=key("r"))
    round_id = response.json()["round_id"]
    placed = post(controller, f"{API}/rounds/{round_id}/bets",
                  {"player_id": player.id, "kind": "punto", "spec": {}, "stake": "7000.00",
                   "paid_with": "chips"}, key=key("b"))
    assert placed.status_code == 201, placed.json()
    assert (placed.json()["stake_minor"], placed.json()["void_minor"]) == (7_000_00, 0)
    assert balance(FLOAT) == 0
    assert balance(table_stakes(table["table_id"])) == 7_000_00
    closed = post(controller, f"{API}/rounds/{round_id}/close", {}, key=key("c"))
    assert closed.status_code in (200, 201), closed.json()
    recorded = post(controller, f"{API}/rounds/{round_id}/outcome",
                    {"outcome": {"punto": "9h Kd", "banco": "2h 3d"}}, key=key("o"))
    assert recorded.status_code in (200, 201), recorded.json()
    settled = post(controller, f"{API}/rounds/{round_id}/settle", {}, key=key("s"))
    assert settled.status_code in (200, 201), settled.json()
    body = controller.get(f"{API}/rounds/{round_id}").json()
    assert body["state"] == "settled"
    assert (body["staked_minor"], body["returned_minor"]) == (7_000_00, 14_000_00)
    sums = reconcile_chips(round_id)
    assert sums[FLOAT] == -7_000_00                     # 7,000 out, 14,000 back
    assert sums[house_games(VENUE, "punto_banco")] == 7_000_00
    assert sums.get(table_stakes(table["table_id"]), 0) == 0
    assert gaming_account(player.id) not in sums
    assert balance(FLOAT) == 14_000_00
    assert balance(gaming_account(player.id)) == 1_000_00
    assert verify_chain().ok


def reconcile_chips(round_id: str) -> dict[str, int]:
    sums: dict[str, int] = {}
    for account, amount in round_postings(round_id):
        sums[account] = sums.get(account, 0) + amount
    return sums


def test_the_same_stake_from_the_gaming_account_cannot_be_taken_002_L3070(venues):
    """The contrast: the account holds at most EUR 5,000 (002:L3070), so EUR
    7,000 from it is refused (no credit), while in chips it is staked."""
    player = funded_player(5_000_00, venue=VENUE)
    round_id = _round(_table())
    with pytest.raises(GamesError) as refused:
        commands.place_bet(round_id=round_id, player_id=player.id, kind="punto", spec={},
                           stake_minor=7_000_00, actor="floor", idempotency_key=key())
    assert refused.value.code == "games.insufficient_funds"
    _chips(player.id, 7_000_00)
    placed = commands.place_bet(round_id=round_id, player_id=player.id, kind="punto",
                                spec={}, stake_minor=7_000_00, paid_with="chips",
                                actor="floor", idempotency_key=key())
    assert placed.stake_minor == 7_000_00


def test_a_chip_stake_above_seven_thousand_is_void_above_the_cap_002_L3421(venues):
    """002:L3421: EUR 7,500 in chips stakes EUR 7,000; the EUR 500 above the
    cap is void and never leaves the float."""
    player = funded_player(venue=VENUE)
    _chips(player.id, 7_500_00)
    round_id = _round(_table())
    placed = commands.place_bet(round_id=round_id, player_id=player.id, kind="punto",
                                spec={}, stake_minor=7_500_00, paid_with="chips",
                                actor="floor", idempotency_key=key())
    assert (placed.stake_minor, placed.void_minor, placed.cap_minor) == (
        7_000_00, 500_00, 7_000_00)
    assert balance(FLOAT) == 500_00


def test_a_voided_round_returns_chip_stakes_in_chips(venues):
    """A void returns each stake the way it came: chips to the float, the
    account's stake to the account; the snapshot rebuilds the same."""
    chip_player, account_player = funded_player(venue=VENUE), funded_player(venue=VENUE)
    _chips(chip_player.id, 300_00)
    round_id = _round(_table())
    commands.place_bet(round_id=round_id, player_id=chip_player.id, kind="punto", spec={},
                       stake_minor=300_00, paid_with="chips", actor="floor",
                       idempotency_key=key())
    commands.place_bet(round_id=round_id, player_id=account_player.id, kind="banco",
                       spec={}, stake_minor=200_00, actor="floor", idempotency_key=key())
    snapshot = RoundSnapshot.objects.get(round_id=round_id).state
    assert [b.get("paid_with", "account") for b in snapshot["bets"]] == ["chips", "account"]
    rebuild_projections()
    assert RoundSnapshot.objects.get(round_id=round_id).state == snapshot
    commands.void_round(round_id=round_id, reason="misdeal", actor="floor",
                        idempotency_key=key())
    assert balance(FLOAT) == 300_00
    assert balance(gaming_account(chip_player.id)) == 1_000_00
    assert balance(gaming_account(account_player.id)) == 1_000_00
    assert balance(table_stakes(round_id.rsplit(".", 1)[0])) == 0


def test_chips_the_cage_never_sold_stake_nothing(venues):
    """002:L1541: no chips on credit: a chip stake above the float is refused."""
    player = funded_player(venue=VENUE)
    _chips(player.id, 100_00)
    round_id = _round(_table())
    with pytest.raises(GamesError) as refused:
        commands.place_bet(round_id=round_id, player_id=player.id, kind="punto", spec={},
                           stake_minor=200_00, paid_with="chips", actor="floor",
                           idempotency_key=key())
    assert refused.value.code == "games.insufficient_funds"
    assert balance(FLOAT) == 100_00


def test_one_round_is_staked_in_one_means(venues):
    """Decision games.stake_means: a player's second stake in the round in
    another means is refused (400), so the return has one destination."""
    player = funded_player(venue=VENUE)
    _chips(player.id, 100_00)
    round_id = _round(_table())
    commands.place_bet(round_id=round_id, player_id=player.id, kind="punto", spec={},
                       stake_minor=50_00, paid_with="chips", actor="floor",
                       idempotency_key=key())
    with pytest.raises(GamesError) as refused:
        commands.place_bet(round_id=round_id, player_id=player.id, kind="punto", spec={},
                           stake_minor=10_00, actor="floor", idempotency_key=key())
    assert refused.value.code == "games.invalid_request"
    assert refused.value.details["field"] == "paid_with"


def test_a_self_excluded_player_cannot_stake_chips_002_L3086(venues):
    """Chips pass the same compliance pipeline as the account: refused, recorded."""
    from casino.players.commands import self_exclude

    player = funded_player(venue=VENUE)
    _chips(player.id, 100_00)
    self_exclude(player_id=player.id, months=1, venue_code="ray-online", actor="test")
    round_id = _round(_table())
    with pytest.raises(AttemptRejected) as refused:
        commands.place_bet(round_id=round_id, player_id=player.id, kind="punto", spec={},
                           stake_minor=50_00, paid_with="chips", actor="floor",
                           idempotency_key=key())
    assert refused.value.failure.code == "compliance.self_excluded"
    assert balance(FLOAT) == 100_00
