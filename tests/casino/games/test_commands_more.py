"""Commands for the newer games: progressive contributions, side-bet and raise rules,
the Baccara bank, and the Part IV maximum win per venue."""

from __future__ import annotations

import shutil

import pytest

from casino.accounts import gaming_account
from casino.games import commands, signals
from casino.games.errors import GamesError
from casino.games.events import (
    BET_REJECTED,
    HOLDEM_BONUS_PROGRESSIVE,
    house_commission,
    house_games,
    table_stakes,
)
from casino.games.models import Bet, Round
from casino.jackpots.accounts import pending_account
from casino.rules.commands import load_rulebook
from ledger import open_account, rebuild_projections
from ledger.models import AccountType, Event

from .conftest import balance, funded_player, key
from .rows import DATA

VENUE = "casino-helsinki"


def table(game, venue=VENUE, config=None, stake_max=1_000_00):
    return commands.open_table(venue=venue, game=game, config=config or {},
                               stake_minor_min=100, stake_minor_max=stake_max, actor="floor",
                               idempotency_key=key("table"))


def open_round(table_id):
    return commands.open_round(table_id=table_id, actor="floor", idempotency_key=key("round"))


def bet(round_id, player_id, kind, stake, **spec):
    return commands.place_bet(round_id=round_id, player_id=player_id, kind=kind, spec=spec,
                              stake_minor=stake, actor="floor", idempotency_key=key("bet"))


def close(round_id):
    commands.close_betting(round_id=round_id, actor="floor", idempotency_key=key("close"))


def finish(round_id, outcome):
    commands.record_outcome(round_id=round_id, outcome=outcome, actor="floor",
                            idempotency_key=key("outcome"))
    return commands.settle_round(round_id=round_id, actor="floor",
                                 idempotency_key=key("settle"))


THB_CONFIG = {"ante_rule": "b", "bonus_table": "i"}


def test_thb_progressive_feeds_the_pool_and_announces_a_royal_flush(
        venues, django_capture_on_commit_callbacks):
    """002:L2297: 15 % of each progressive stake to the pending account; the hit is signalled."""
    hits = []

    def receiver(sender, **kwargs):
        hits.append(kwargs)

    signals.progressive_hit.connect(receiver)
    try:
        t = table("texas_holdem_bonus_progressive", config=THB_CONFIG)
        alice, bob = funded_player(), funded_player()
        r = open_round(t.table_id)
        for player in (alice, bob):
            bet(r.round_id, player.id, "ante", 10_00, box=1 if player is alice else 2)
            bet(r.round_id, player.id, "progressive", 5_00, box=1 if player is alice else 2)
        close(r.round_id)
        bet(r.round_id, alice.id, "flop", 20_00, box=1)
        # Bob folds. Alice's hole cards and the flop make a royal flush.
        with django_capture_on_commit_callbacks(execute=True):
            result = finish(r.round_id, {"dealer": "Qs 7d", "board": "Qh Jh Th 2c 3d",
                                         "boxes": {"1": "Ah Kh", "2": "4c 5c"}})
        assert result.state == "settled"
    finally:
        signals.progressive_hit.disconnect(receiver)
    pending = pending_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)
    assert balance(pending) == 75 + 75
    round_ = Round.objects.get(id=r.round_id)
    assert round_.contribution_minor == 150
    # Alice: ante 1:1 (a royal is a straight or better), flop 1:1, progressive kept.
    assert balance(gaming_account(alice.id)) == 1_000_00 - 35_00 + 20_00 + 40_00
    assert balance(gaming_account(bob.id)) == 1_000_00 - 15_00
    assert balance(table_stakes(t.table_id)) == 0
    house = balance(house_games(VENUE, "texas_holdem_bonus_progressive"))
    assert house == 35_00 + 15_00 - 60_00 - 150
    progressive = Bet.objects.get(round_id=r.round_id, player_id=alice.id, kind="progressive")
    assert (progressive.result, progressive.row, progressive.returned_minor) == (
        "jackpot", "royal_flush", 0)
    assert [(h["bet_id"], h["hit"]["pool_basis_points"], h["hit"]["kind"]) for h in hits] == [
        (progressive.id, 10000, HOLDEM_BONUS_PROGRESSIVE)]


def test_a_pending_account_the_jackpots_app_opened_is_reused(venues):
    code = pending_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)
    open_account(code=code, type=AccountType.LIABILITY, currency="EUR",
                 name="opened by the jackpots app", must_not_go_negative=True)
    t = table("texas_holdem_bonus_progressive", config=THB_CONFIG)
    player = funded_player()
    r = open_round(t.table_id)
    bet(r.round_id, player.id, "ante", 10_00, box=1)
    bet(r.round_id, player.id, "progressive", 10_00, box=1)
    close(r.round_id)
    finish(r.round_id, {"dealer": "Qs 7d", "board": "9h 5s 2c Jd Kh", "boxes": {"1": "4c 3h"}})
    assert balance(code) == 150


def test_a_side_bet_alone_is_refused_and_recorded(venues):
    """002:L2160, L2319: no bonus, trips or progressive without the ante (and blind)."""
    t = table("ultimate_texas_holdem_progressive", config={"trips_table": "ii"})
    player = funded_player()
    r = open_round(t.table_id)
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "trips", 5_00, box=1)
    assert (error.value.code, error.value.status) == ("games.side_bet_alone", 422)
    assert Event.objects.order_by("-position").first().type == BET_REJECTED
    bet(r.round_id, player.id, "ante", 10_00, box=1)
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "progressive", 5_00, box=1)   # the blind is missing
    assert error.value.details["requires"] == ["blind:1"]
    bet(r.round_id, player.id, "blind", 10_00, box=1)
    bet(r.round_id, player.id, "trips", 5_00, box=1)
    bet(r.round_id, player.id, "progressive", 5_00, box=1)


def test_uth_play_is_3x_or_4x_preflop_and_only_once(venues):
    """002:L2309, L2327."""
    t = table("ultimate_texas_holdem", config={"trips_table": "i"})
    player = funded_player()
    r = open_round(t.table_id)
    bet(r.round_id, player.id, "ante", 10_00, box=1)
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "blind", 5_00, box=1)
    assert error.value.code == "games.raise_not_allowed"
    bet(r.round_id, player.id, "blind", 10_00, box=1)
    close(r.round_id)
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "play", 20_00, box=1, street="preflop")
    assert error.value.code == "games.raise_not_allowed"
    assert bet(r.round_id, player.id, "play", 40_00, box=1, street="preflop").stake_minor == (
        40_00)
    with pytest.raises(GamesError):
        bet(r.round_id, player.id, "play", 10_00, box=1, street="river")   # one play bet
    # Straight against a dealer pair: ante, play 1:1; blind 1x.
    finish(r.round_id, {"dealer": "2s 2d", "board": "7h 6s 5c 3d Kh",
                        "boxes": {"1": "9c 8d"}})
    assert balance(gaming_account(player.id)) == 1_000_00 + 10_00 + 10_00 + 40_00


def test_baccara_the_bank_covers_the_punto_side_and_the_house_keeps_the_commission(venues):
    """002:L2811-2815, decision games.baccara.cover."""
    t = table("baccara")
    banker, p1, p2 = funded_player(), funded_player(), funded_player()
    r = open_round(t.table_id)
    bet(r.round_id, banker.id, "banco", 100_00)
    bet(r.round_id, p1.id, "punto", 70_00)
    partial = bet(r.round_id, p2.id, "punto", 50_00)
    assert (partial.stake_minor, partial.void_minor) == (30_00, 20_00)
    with pytest.raises(GamesError) as error:
        bet(r.round_id, p2.id, "punto", 10_00)
    assert error.value.code == "games.stake_above_maximum"
    close(r.round_id)
    finish(r.round_id, {"punto": "Th Kd 2c", "banco": "7c Ks"})
    assert balance(gaming_account(banker.id)) == 1_000_00 + 100_00 - 5_00
    assert balance(gaming_account(p1.id)) == 1_000_00 - 70_00
    assert balance(house_commission(VENUE, "baccara")) == 5_00
    assert balance(house_games(VENUE, "baccara")) == 0


def test_pai_gow_and_oasis_tables_settle_through_the_commands(venues):
    t = table("pai_gow_poker")
    player = funded_player()
    r = open_round(t.table_id)
    bet(r.round_id, player.id, "bet", 100_00, box=1)
    close(r.round_id)
    finish(r.round_id, {"dealer": "Ks Kd 8c 8h Ac 5d 2s",
                        "boxes": {"1": {"front": "Qc Qd", "back": "As Ah 9s 9d 3c"}}})
    assert balance(gaming_account(player.id)) == 1_000_00 + 95_00
    assert balance(house_commission(VENUE, "pai_gow_poker")) == 5_00
    t = table("oasis_stud_poker")
    r = open_round(t.table_id)
    bet(r.round_id, player.id, "ante", 10_00, box=1)
    close(r.round_id)
    bet(r.round_id, player.id, "bet", 20_00, box=1)
    finish(r.round_id, {"dealer": "As Kc 8d 4h 3c", "boxes": {"1": "7c 7d 5h 5s 2c"}})
    assert balance(gaming_account(player.id)) == 1_095_00 + 10_00 + 40_00


def _low_cap_rulebook(tmp_path, win_minor_max: int):
    """ray-partner-premises v2: v1 with a lower Part IV maximum win, same date."""
    source = DATA / "ray-partner-premises.v1.toml"
    text = source.read_text()
    assert text.count("version = 1\n") >= 1 and "win_minor_max = 1000000" in text
    text = text.replace("version = 1\n", "version = 2\n", 1).replace(
        "win_minor_max = 1000000", f"win_minor_max = {win_minor_max}")
    target = tmp_path / "ray-partner-premises.v2.toml"
    target.write_text(text)
    shutil.copytree(DATA / "ray-partner-premises.v1.d", tmp_path / "ray-partner-premises.v2.d")
    return load_rulebook(target)


def test_the_part_iv_maximum_win_applies_per_venue(venues, tmp_path):
    """Decision games.max_win (002:L3493-3497): each venue's own cap, per player and round.

    The shipped caps (EUR 10,000 at partner premises, EUR 100,000 in halls)
    cannot be reached under their EUR 4 number-field stakes, so the partner
    premises get a version with a EUR 50 cap, loaded as any new version is.
    """
    _low_cap_rulebook(tmp_path, 50_00)
    results = {}
    for venue in ("partner-kioski", "hall-helsinki"):
        t = table("roulette", venue=venue, stake_max=10_00)
        big, small = funded_player(venue=venue), funded_player(venue=venue)
        r = open_round(t.table_id)
        bet(r.round_id, big.id, "straight", 4_00, numbers=[17])
        bet(r.round_id, small.id, "split", 1_00, numbers=[17, 20])
        close(r.round_id)
        finish(r.round_id, {"number": 17})
        settled = {e.payload["player_id"]: e.payload for e in Event.objects.filter(
            type="games.player_settled", stream=f"round/{t.table_id}/1")}
        results[venue] = (balance(gaming_account(big.id)), settled[big.id]["win_capped_minor"],
                          balance(gaming_account(small.id)))
    # Partner premises: 30 x EUR 4 = EUR 120 is cut to the EUR 50 cap; 15 x EUR 1 is not.
    assert results["partner-kioski"] == (1_000_00 + 50_00, 70_00, 1_000_00 + 15_00)
    # The hall pays the same bets in full.
    assert results["hall-helsinki"] == (1_000_00 + 120_00, 0, 1_000_00 + 15_00)


def test_rebuild_reproduces_rounds_with_contributions(venues):
    t = table("texas_holdem_bonus_progressive", config=THB_CONFIG)
    player = funded_player()
    r = open_round(t.table_id)
    bet(r.round_id, player.id, "ante", 10_00, box=1)
    bet(r.round_id, player.id, "progressive", 10_00, box=1)
    close(r.round_id)
    bet(r.round_id, player.id, "flop", 20_00, box=1)
    finish(r.round_id, {"dealer": "Qs 7d", "board": "9h 9s 2c 5d Kh", "boxes": {"1": "9c 9d"}})

    def snapshot():
        return list(Round.objects.values()), list(Bet.objects.values())

    live = snapshot()
    rebuild_projections()
    assert snapshot() == live
