"""A full evening of poker cash games through the HTTP API, reconciled with the ledger.

Two tables play HANDS hands each, driven by a seeded random.Random: a
9-handed no-limit hold'em table at poker-helsinki (the Veikkaus room rake,
000:L430-461, and the bad-beat drop, 000:L2869-2872) and a 6-max pot-limit
Omaha table at an online venue (the rake table's pl100 row, 001:L731-733).
Every action is drawn from the engine's `legal_actions` for a copy of the
hand's state that the test keeps itself (the same engine the server runs; the
server's pot and stacks are checked against it after every request), all-ins
included. Cards are dealt from a shuffled deck; some hold'em showdowns use a
board that plays (a broadway straight no flush can beat) to force split pots.
The claimed awards are what `native_eval.showdown` says, so hands settle;
one showdown per table is claimed wrongly and settled by a compliance
officer's decision, and one hand per table is voided as a misdeal. Odd hands
are sent as one complete hand history (an electronic table's single
request), even hands action by action.

The reconciliation is independent of the server's records: per hand the test
sums, from what it sent and computed, each seat's awards plus its uncalled
bet returned minus its contributions, and the rake and drop. Then: each
player's cash-outs minus buy-ins equal their sum over the hands; the rake
and drop totals equal the house rake and jackpot pending balances; the
table's stacks account is 0 once everyone has cashed out; the hash chain
verifies.

Set-up (players and their deposits) uses commands; everything at the table
goes through the API with a table controller's token.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, field

import native_eval
import pytest

from casino.cage.commands import deposit
from casino.accounts import gaming_account
from casino.poker import engine
from casino.poker.commands import _rule_from
from casino.poker.events import house_rake, jackpot_pending, table_stacks
from casino.roles import Role
from casino.rules.commands import register_venue
from ledger import verify_chain
from tests.casino.api.conftest import client_for, post
from tests.casino.conftest import make_player
from tests.casino.poker.conftest import balance, funded_player, key

HANDS = int(os.environ.get("POKER_SCENARIO_HANDS", "200"))
SEED = 20261122
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"]
# A board that plays for every hold'em hand: no two hole cards beat broadway
# here (two diamonds on the board, so no flush; no straight flush).
TIE_BOARD = ["Th", "Jd", "Qs", "Kc", "Ad"]
HOLE_CARDS = {"holdem": 2, "omaha": 4}
ONLINE = "veikkaus-online"
# Under the online gaming account's ceiling of EUR 5,000 (002:L3070).
DEPOSIT_MINOR = 500_00


def money(minor: int) -> str:
    return f"{minor // 100}.{minor % 100:02d}"


@dataclass
class TableRun:
    """One table's evening as the test drives and records it."""

    client: object
    officer: object
    rng: random.Random
    table_id: str
    venue: str
    variant: str
    structure: str
    stakes: dict
    buy_in_minor_min: int
    rake_rule: object
    drop_rule: object | None
    paid_with: str
    seats: dict[int, str] = field(default_factory=dict)          # seat -> player
    stacks: dict[int, int] = field(default_factory=dict)         # seat -> chips
    bought_in: Counter = field(default_factory=Counter)          # player -> minor
    cashed_out: Counter = field(default_factory=Counter)         # player -> minor
    net: Counter = field(default_factory=Counter)                # player -> minor
    rake_minor: int = 0
    drop_minor: int = 0
    stats: Counter = field(default_factory=Counter)

    @property
    def big_blind(self) -> int:
        return self.stakes["big_blind_minor"]

    def post(self, url: str, body: dict, client=None) -> dict:
        response = post(client or self.client, f"/api/v1/poker/{url}", body, key=key("sc"))
        assert response.status_code == 201, (url, body, response.content)
        return response.json()

    def buy_in(self, seat: int, amount_minor: int) -> None:
        player = self.seats[seat]
        if self.paid_with == "account" and balance(gaming_account(player)) < amount_minor:
            # Set-up, not play: the cage takes another deposit.
            deposit(player_id=player, venue="poker-helsinki", amount_minor=DEPOSIT_MINOR,
                    currency="EUR", method="cash", actor="cage",
                    idempotency_key=key("deposit"))
        result = self.post(f"tables/{self.table_id}/buy-ins",
                           {"seat": seat, "player_id": player, "amount": money(amount_minor),
                            "paid_with": self.paid_with})
        self.stacks[seat] = self.stacks.get(seat, 0) + amount_minor
        assert result["stack_minor"] == self.stacks[seat]
        self.bought_in[player] += amount_minor

    def cash_out_all(self) -> None:
        for seat, player in self.seats.items():
            result = self.post(f"tables/{self.table_id}/cash-outs",
                               {"seat": seat, "player_id": player, "paid_to": self.paid_with})
            assert result["amount_minor"] == self.stacks[seat]
            self.cashed_out[player] += result["amount_minor"]
            self.stacks[seat] = 0

    # -- one hand ----------------------------------------------------------

    def play_hand(self, number: int, *, misdeal: bool = False, dispute: bool = False,
                  history: bool = False) -> bool:
        """Play one hand; return True when it went to a showdown.

        Action by action (a request for the start, each action and the
        showdown), or with `history` as one complete hand history (the
        electronic table's single request, which settles the same way).
        """
        for seat, stack in self.stacks.items():
            if stack < self.big_blind:  # busted: buy in again (000:L541-543)
                self.buy_in(seat, self.buy_in_minor_min)
        seats = sorted(self.seats)
        button = seats[number % len(seats)]
        start = dict(self.stacks)
        steps: list[dict] = []
        hand_id = None
        if not history:
            hand = self.post(f"tables/{self.table_id}/hands", {"button": button})
            hand_id = hand["hand_id"]
        state = engine.start_hand(self.variant, self.structure, engine.Stakes(**self.stakes),
                                  start, button)
        if not history:
            assert (hand["pot_minor"], hand["to_act"]) == (state.pot_minor, state.to_act)
        result = None
        while not state.is_over:
            if misdeal and len(steps) == 2:
                if history:
                    voided = self.post(f"tables/{self.table_id}/hand-histories",
                                       {"button": button, "actions": steps,
                                        "void_reason": "misdeal"})
                else:
                    voided = self.post(f"hands/{hand_id}/void", {"reason": "misdeal"})
                assert voided["state"] == "voided"
                assert voided["stacks_minor"] == {str(s): v for s, v in start.items()}
                self.stats["voided"] += 1
                return False
            kind, amount = self.choose(engine.legal_actions(state))
            body = {"seat": state.to_act, "kind": kind}
            if amount is not None:
                body["amount"] = money(amount)
            steps.append(body)
            if not history:
                result = self.post(f"hands/{hand_id}/actions", body)
            state = engine.apply(state, engine.Action(state.to_act, kind, amount))
            if not history:
                assert result["pot_minor"] == (0 if state.is_over and state.phase
                                               is engine.Phase.COMPLETE else state.pot_minor)
            if kind == "all_in":
                self.stats["all_ins"] += 1
        if history:
            self.stats["histories"] += 1

        settlement = engine.settle_hand(state)
        rake = engine.rake_for(self.rake_rule, settlement.pots,
                               reached_flop=state.reached_flop,
                               players_dealt=len(state.players))
        if self.drop_rule is not None:
            drop = engine.drop_for(self.drop_rule, settlement.pots,
                                   players_dealt=len(state.players),
                                   betting_rounds_reached=state.betting_rounds_reached,
                                   rake=rake)
            drop_minor, drop_per_pot = drop.total_minor, drop.per_pot_minor
        else:
            drop_minor, drop_per_pot = 0, tuple(0 for _ in settlement.pots)
        pots = engine.net_pots(settlement.pots, rake.per_pot_minor, drop_per_pot)
        if len(settlement.pots) > 1:
            self.stats["side_pots"] += 1
        showdown = state.phase is engine.Phase.SHOWDOWN
        history_body = {"button": button, "actions": steps} if history else None
        if showdown:
            awards, result = self.show_down(hand_id, state, pots, button, dispute=dispute,
                                            history=history_body)
        else:
            winner = state.winner_without_showdown
            awards = {winner: engine.award_without_showdown(pots, winner)}
            self.stats["won_without_showdown"] += 1
            if history:
                result = self.post(f"tables/{self.table_id}/hand-histories", history_body)
        assert result["state"] == "settled"
        assert (result["rake_minor"], result["drop_minor"]) == (rake.total_minor, drop_minor)

        returned = dict(settlement.returned_minor)
        final = {p.seat: p.stack_minor for p in state.players}
        for seat in start:
            contributed = start[seat] - final[seat]
            net = awards.get(seat, 0) + returned.get(seat, 0) - contributed
            self.net[self.seats[seat]] += net
            self.stacks[seat] = start[seat] + net
        assert result["stacks_minor"] == {str(s): v for s, v in self.stacks.items()}
        self.rake_minor += rake.total_minor
        self.drop_minor += drop_minor
        self.stats["settled"] += 1
        return showdown

    def choose(self, legal: engine.LegalActions) -> tuple[str, int | None]:
        """A random legal action: mostly calls and checks, some bets, raises, all-ins."""
        r = self.rng.random()
        if legal.all_in_kind is not None and r < 0.05:
            return "all_in", None
        if legal.call_to_minor is not None:  # facing a bet
            if legal.fold and r < 0.35:
                return "fold", None
            if legal.raise_min_minor is None or r < 0.85:
                return "call", None
            return "raise", self.amount(legal.raise_min_minor, legal.raise_max_minor)
        if legal.bet_min_minor is None or r < 0.70:
            return "check", None
        return "bet", self.amount(legal.bet_min_minor, legal.bet_max_minor)

    def amount(self, low: int, high: int) -> int:
        """Mostly small bets, now and then one near the maximum."""
        return low + int((high - low) * self.rng.random() ** 3)

    def show_down(self, hand_id: str | None, state, pots, button: int, *, dispute: bool,
                  history: dict | None = None):
        deck = list(DECK)
        self.rng.shuffle(deck)
        board = deck[:5]
        if self.variant == "holdem" and self.rng.random() < 0.2:
            board = list(TIE_BOARD)
            deck = [c for c in deck if c not in board]
        else:
            deck = deck[5:]
        holes = HOLE_CARDS[self.variant]
        hands = {seat: " ".join(deck[i * holes:(i + 1) * holes])
                 for i, seat in enumerate(state.live_seats)}
        verified = native_eval.showdown(self.variant, " ".join(board), hands,
                                        [(p.amount_minor, p.eligible_seats) for p in pots],
                                        button)
        awards = {seat: amount for seat, amount in verified.awards.items() if amount}
        if any(len(p.high_winners) > 1 for p in verified.pots):
            self.stats["split_pots"] += 1
        self.stats["showdowns"] += 1
        claimed = awards
        if dispute:  # the controller claims everything for one player
            claimed = {state.live_seats[0]: sum(awards.values())}
            if claimed == awards:
                claimed = {state.live_seats[1]: sum(awards.values())}
        body = {"board": " ".join(board), "hands": {str(s): c for s, c in hands.items()},
                "claimed_awards": [{"seat": s, "amount": money(a)}
                                   for s, a in claimed.items()]}
        if history is not None:
            result = self.post(f"tables/{self.table_id}/hand-histories",
                               {**history, "showdown": body})
            hand_id = result["hand_id"]
        else:
            result = self.post(f"hands/{hand_id}/showdown", body)
        if dispute:
            assert result["state"] == "disputed"
            assert result["awards_verified"] == {str(s): a for s, a in awards.items()}
            result = self.post(f"hands/{hand_id}/decision",
                               {"decision": "settle_verified",
                                "note": "surveillance confirms the cards"},
                               client=self.officer)
            self.stats["disputes_decided"] += 1
        assert result["awards_verified"] == {str(s): a for s, a in awards.items()}
        return awards, result


def _open(client, officer, rng, *, venue, variant, structure, small_blind, big_blind,
          seats, buy_in_min, buy_in_max, jackpot, paid_with, deposit_minor):
    table = post(client, "/api/v1/poker/tables", {
        "venue": venue, "variant": variant, "structure": structure,
        "small_blind": money(small_blind), "big_blind": money(big_blind),
        "seats_max": seats, "buy_in_min": money(buy_in_min),
        "buy_in_max": money(buy_in_max), "jackpot": jackpot,
    }, key=key("sc")).json()
    run = TableRun(client=client, officer=officer, rng=rng, table_id=table["table_id"],
                   venue=venue, variant=variant, structure=structure,
                   stakes=table["stakes"], buy_in_minor_min=buy_in_min,
                   rake_rule=_rule_from(table["rake"]),
                   drop_rule=_rule_from(table["drop"]) if table["drop"] else None,
                   paid_with=paid_with)
    for seat in range(1, seats + 1):
        run.seats[seat] = (funded_player(deposit_minor).id if paid_with == "account"
                           else make_player().id)
        run.buy_in(seat, rng.randrange(buy_in_min, buy_in_max + 1, 100))
    return run


def play_evening(hands: int, seed: int = SEED) -> list[TableRun]:
    """Open both tables, seat the players, play `hands` hands at each; no cash-out."""
    register_venue(code=ONLINE, name="Veikkaus online poker",
                   rulebook_id="veikkaus-online-poker")
    client = client_for(Role.TABLE_CONTROLLER)
    officer = client_for(Role.COMPLIANCE_OFFICER)
    rng = random.Random(seed)
    room = _open(client, officer, rng, venue="poker-helsinki", variant="holdem",
                 structure="no_limit", small_blind=100, big_blind=200, seats=9,
                 buy_in_min=10_000, buy_in_max=40_000, jackpot=True, paid_with="cash",
                 deposit_minor=0)
    online = _open(client, officer, rng, venue=ONLINE, variant="omaha",
                   structure="pot_limit", small_blind=50, big_blind=100, seats=6,
                   buy_in_min=4_000, buy_in_max=10_000, jackpot=False, paid_with="account",
                   deposit_minor=DEPOSIT_MINOR)
    for run in (room, online):
        for number in range(hands):
            # One misdeal a third of the way in; after the midpoint, the first
            # hand that shows down is claimed wrongly and decided by an officer.
            # Odd hands come as one complete history, as an electronic
            # table sends them; even hands action by action.
            run.play_hand(number, misdeal=number == hands // 3,
                          dispute=number >= hands // 2
                          and not run.stats["disputes_decided"],
                          history=number % 2 == 1)
    return [room, online]


@pytest.mark.slow
def test_an_evening_of_cash_games_reconciles_with_the_ledger(venues):
    room, online = play_evening(HANDS)
    for run in (room, online):
        run.cash_out_all()
        players = set(run.seats.values())
        for player in players:
            assert run.cashed_out[player] - run.bought_in[player] == run.net[player], player
        # Money only changes hands or goes to the house: the players' net
        # results plus the takes are zero.
        assert sum(run.net.values()) + run.rake_minor + run.drop_minor == 0
        assert balance(house_rake(run.venue)) == run.rake_minor
        assert balance(jackpot_pending(run.venue)) == run.drop_minor
        assert balance(table_stacks(run.table_id)) == 0
        table = client_for(Role.AUDITOR).get(f"/api/v1/poker/tables/{run.table_id}").json()
        assert table["table_stacks_minor"] == 0
        assert all(seat["player_id"] == "" for seat in table["seats"])
        assert run.stats["settled"] + run.stats["voided"] == HANDS
        assert run.stats["voided"] == 1
        assert run.stats["disputes_decided"] == 1
        assert run.stats["all_ins"] > 0 and run.stats["side_pots"] > 0
        assert run.stats["showdowns"] > 0 and run.stats["won_without_showdown"] > 0
        assert run.stats["histories"] >= HANDS // 2 - 1
        assert run.rake_minor > 0
    assert room.stats["split_pots"] > 0
    assert room.drop_minor > 0
    assert verify_chain().ok
