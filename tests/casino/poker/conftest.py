"""Fixtures for the poker app's tests: funded players and open tables."""

from __future__ import annotations

import itertools

from casino.cage.commands import buy_chips, deposit
from casino.poker import commands
from casino.poker.events import table_stacks
from casino.poker.models import Seat
from ledger.models import Account
from tests.casino.conftest import make_player

_keys = itertools.count(1)


def key(prefix: str = "k") -> str:
    """A fresh idempotency key."""
    return f"{prefix}-{next(_keys)}"


def funded_player(amount_minor: int = 1_000_00, venue: str = "poker-helsinki"):
    """A verified player with `amount_minor` in the gaming account (cash at the cage)."""
    player = make_player()
    deposit(player_id=player.id, venue=venue, amount_minor=amount_minor, currency="EUR",
            method="cash", actor="cage", idempotency_key=key("deposit"))
    return player


def officer(username: str | None = None) -> str:
    """A compliance officer's username (a user in the role's group)."""
    from django.contrib.auth.models import Group, User

    from casino.roles import Role, ensure_role_groups

    ensure_role_groups()
    user = User.objects.create_user(username or key("officer"))
    user.groups.add(Group.objects.get(name=Role.COMPLIANCE_OFFICER))
    return user.username


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def seat_stacks(table_id: str) -> dict[int, int]:
    return {s.number: s.stack_minor for s in Seat.objects.filter(table_id=table_id)
            if s.player_id}


def assert_table_balanced(table_id: str) -> None:
    """The table's ledger account holds exactly the sum of its seats' stacks."""
    total = sum(s.stack_minor for s in Seat.objects.filter(table_id=table_id))
    assert balance(table_stacks(table_id)) == total


def open_helsinki_table(*, small_blind_minor=100, big_blind_minor=200, seats_max=9,
                        buy_in_minor_min=10_000, buy_in_minor_max=40_000, jackpot=True,
                        rake="standard"):
    return commands.open_table(
        venue="poker-helsinki", variant="holdem", structure="no_limit",
        small_blind_minor=small_blind_minor, big_blind_minor=big_blind_minor,
        seats_max=seats_max, buy_in_minor_min=buy_in_minor_min,
        buy_in_minor_max=buy_in_minor_max, rake=rake, jackpot=jackpot, actor="floor",
        idempotency_key=key("table"))


def account_offered(table_id: str) -> bool:
    """Whether the table's venue moves gaming-account money (decision
    cage.gaming_account.offered: not at Tallinn or Ljubljana)."""
    from casino.poker.models import Table
    from casino.rules import queries as rules
    from casino.rules.models import RulebookVersion

    table = Table.objects.get(id=table_id)
    offered = rules.figure(RulebookVersion.objects.get(key=table.rulebook),
                           "cage.gaming_account.offered")
    return offered is None or bool(offered.value)


def chips_for(player_id: str, venue: str, amount_minor: int) -> None:
    """The player buys `amount_minor` of the venue's chips for cash at its cage."""
    buy_chips(player_id=player_id, venue=venue, amount_minor=amount_minor, currency="EUR",
              paid_with="cash", actor="cage", idempotency_key=key("chips"))


def seat_players(table_id: str, stacks: dict[int, int]) -> dict[int, str]:
    """Seat a funded player at each seat with the given buy-in; return seat -> player.

    Where the venue has no gaming account the player buys chips at its cage
    and buys in with them."""
    from casino.poker.models import Table

    players = {}
    by_account = account_offered(table_id)
    for seat, amount in stacks.items():
        player = funded_player(max(amount, 1_000_00))
        if not by_account:
            chips_for(player.id, Table.objects.get(id=table_id).venue, amount)
        commands.buy_in(table_id=table_id, seat=seat, player_id=player.id,
                        amount_minor=amount, paid_with="account" if by_account else "chips",
                        actor="floor", idempotency_key=key("buy-in"))
        players[seat] = player.id
    return players


def play(hand_id: str, *script: tuple):
    """Apply `(seat, kind)` or `(seat, kind, amount_minor)` actions through the command."""
    result = None
    for step in script:
        seat, kind, *amount = step
        result = commands.act(hand_id=hand_id, seat=seat, kind=kind,
                              amount_minor=amount[0] if amount else None, actor="dealer",
                              idempotency_key=key("act"))
    return result


def check_down(hand_id: str):
    """Check or call for whoever is to act until the betting is over."""
    while True:
        ctx = commands.load_hand(hand_id)
        state = ctx.state
        if state.is_over:
            return ctx
        p = state.player(state.to_act)
        play(hand_id, (p.seat, "call" if p.bet_minor < state.high_bet_minor else "check"))
