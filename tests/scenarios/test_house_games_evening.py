"""An evening at four house-banked tables, played through the HTTP API.

Roulette, blackjack (the casino's base game), Three Card Poker and Punto
Banco at casino-helsinki, with a seeded RNG: the wheel, the shoes and the
players' choices come from it, the dealing follows the rules typed here from
the digest (not the engine's), and every payout is computed by the server.
At the end the ledger must reconcile to the cent: each player's gaming
account is the deposit less what was staked plus what came back; each
table's holding account is empty; the house's accounts hold what the tables
kept, commissions apart; and the round read-outs agree with the ledger.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict

from casino.cage.commands import deposit
from casino.accounts import gaming_account
from casino.games.events import house_commission, house_games, table_stakes
from casino.roles import Role
from ledger import verify_chain
from ledger.models import Account
from tests.casino.api.conftest import client_for
from tests.casino.conftest import make_player

VENUE = "casino-helsinki"
DEPOSIT = 2_000_00
SEED = 20260616
_keys = itertools.count(1)


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


class Controller:
    """The table controller's HTTP client, one idempotency key per write."""

    def __init__(self):
        self.client = client_for(Role.TABLE_CONTROLLER)

    def post(self, url: str, body=None, expect=201):
        response = self.client.post(f"/api/v1/games/{url}", body or {}, format="json",
                                    headers={"Idempotency-Key": f"evening-{next(_keys)}"})
        assert response.status_code == expect, response.json()
        return response.json()

    def get(self, url: str):
        response = self.client.get(f"/api/v1/games/{url}")
        assert response.status_code == 200, response.json()
        return response.json()


def cents(minor: int) -> str:
    return f"{minor // 100}.{minor % 100:02d}"


def shoe(rng: random.Random, decks: int) -> list[str]:
    cards = [r + s for r in "23456789TJQKA" for s in "shdc"] * decks
    rng.shuffle(cards)
    return cards


# ---------------------------------------------------------------------------
# Dealing by the rules, typed from the digest
# ---------------------------------------------------------------------------


def bj_total(cards) -> int:
    hard = sum(1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0]) for c in cards)
    return hard + 10 if any(c[0] == "A" for c in cards) and hard + 10 <= 21 else hard


def baccarat_points(cards) -> int:
    return sum(0 if c[0] in "TJQK" else 1 if c[0] == "A" else int(c[0]) for c in cards) % 10


def banco_draws(banco: int, third: int | None) -> bool:
    """002:L2787-2797."""
    if third is None:
        return banco <= 5
    return {0: True, 1: True, 2: True, 3: third != 8, 4: 2 <= third <= 7,
            5: 4 <= third <= 7, 6: third in (6, 7), 7: False}[banco]


def deal_coup(cards: list[str]) -> dict:
    punto, banco = [cards.pop(), cards.pop()], []
    banco = [cards.pop(), cards.pop()]
    p, b = baccarat_points(punto), baccarat_points(banco)
    if p >= 8 or b >= 8:
        return {"punto": punto, "banco": banco}
    third = None
    if p <= 5:
        punto.append(cards.pop())
        third = baccarat_points(punto[2:])
    if banco_draws(b, third):
        banco.append(cards.pop())
    return {"punto": punto, "banco": banco}


# ---------------------------------------------------------------------------
# The evening
# ---------------------------------------------------------------------------


def test_an_evening_at_four_tables_reconciles_to_the_cent(venues):
    rng = random.Random(SEED)
    floor = Controller()
    players = []
    for _ in range(4):
        player = make_player()
        deposit(player_id=player.id, venue=VENUE, amount_minor=DEPOSIT, currency="EUR",
                method="cash", actor="cage", idempotency_key=f"evening-deposit-{player.id}")
        players.append(player.id)
    staked: dict[str, int] = defaultdict(int)
    tables = {
        "roulette": floor.post("tables", {"venue": VENUE, "game": "roulette",
                                          "stake_min": "1.00", "stake_max": "500.00"}),
        "blackjack": floor.post("tables", {"venue": VENUE, "game": "blackjack",
                                           "config": {"version": "base"},
                                           "stake_min": "5.00", "stake_max": "500.00"}),
        "three_card_poker": floor.post("tables", {"venue": VENUE, "game": "three_card_poker",
                                                  "stake_min": "5.00", "stake_max": "500.00"}),
        "punto_banco": floor.post("tables", {"venue": VENUE, "game": "punto_banco",
                                             "stake_min": "5.00", "stake_max": "500.00"}),
    }
    rounds: dict[str, list[str]] = defaultdict(list)

    def bet(round_id, player_id, kind, spec, stake):
        placed = floor.post(f"rounds/{round_id}/bets", {"player_id": player_id, "kind": kind,
                                                        "spec": spec, "stake": cents(stake)})
        staked[player_id] += placed["stake_minor"]
        return placed

    def play(game, place_bets, outcome_of):
        round_id = floor.post(f"tables/{tables[game]['table_id']}/rounds")["round_id"]
        rounds[game].append(round_id)
        state = place_bets(round_id)
        floor.post(f"rounds/{round_id}/close")
        outcome = outcome_of(round_id, state)
        floor.post(f"rounds/{round_id}/outcome", {"outcome": outcome})
        settled = floor.post(f"rounds/{round_id}/settle")
        assert settled["state"] == "settled"
        return settled

    # Roulette: straight-ups, splits, dozens and even chances.
    inside = [("straight", {"numbers": [n]}) for n in (0, 7, 17, 32)] + [
        ("split", {"numbers": [17, 20]}), ("corner", {"numbers": [1, 2, 4, 5]})]
    outside = [("red", {}), ("black", {}), ("even", {}), ("dozen", {"which": 2}),
               ("column", {"which": 1}), ("quarter", {"which": 3})]
    for _ in range(8):
        def roulette_bets(round_id):
            for player_id in players:
                kind, spec = rng.choice(inside + outside)
                bet(round_id, player_id, kind, spec, rng.choice([1_00, 5_00, 10_00, 25_00]))

        play("roulette", roulette_bets, lambda rid, _: {"number": rng.randrange(37)})

    # Three Card Poker: ante (and sometimes pairplus); play with queen-six-four or better.
    for _ in range(6):
        deck = shoe(rng, 1)
        hands = {str(box): [deck.pop() for _ in range(3)] for box in range(1, 4)}
        dealer = [deck.pop() for _ in range(3)]

        def tcp_bets(round_id, hands=hands):
            for box, player_id in zip(hands, players):
                bet(round_id, player_id, "ante", {"box": int(box)}, 10_00)
                if rng.random() < 0.5:
                    bet(round_id, player_id, "pairplus", {"box": int(box)}, 5_00)
            return hands

        def tcp_outcome(round_id, hands, dealer=dealer):
            order = "23456789TJQKA"
            for box, player_id in zip(hands, players):
                ranks = sorted((order.index(c[0]) for c in hands[box]), reverse=True)
                if ranks >= [order.index("Q"), order.index("6"), order.index("4")] or len(
                        {c[0] for c in hands[box]}) < 3:
                    bet(round_id, player_id, "play", {"box": int(box)}, 10_00)
            return {"dealer": dealer, "boxes": hands}

        play("three_card_poker", tcp_bets, tcp_outcome)

    # Punto Banco: six decks; players back punto, banco or egalite.
    cards = shoe(rng, 6)
    for _ in range(8):
        def pb_bets(round_id):
            for player_id in players:
                bet(round_id, player_id, rng.choice(["punto", "banco", "banco", "egalite"]), {},
                    rng.choice([5_00, 10_00, 20_00, 15_15]))

        play("punto_banco", pb_bets, lambda rid, _: deal_coup(cards))

    # Blackjack, base game: no hole card, hit to 17, double on 10 or 11.
    cards = shoe(rng, 6)
    for _ in range(8):
        boxes = {str(box): player_id for box, player_id in enumerate(players[:3], start=1)}

        def bj_bets(round_id, boxes=boxes):
            for box, player_id in boxes.items():
                bet(round_id, player_id, "box", {"box": int(box)}, 20_00)

        def bj_outcome(round_id, _, boxes=boxes):
            hands = {box: [cards.pop()] for box in boxes}
            dealer = [cards.pop()]
            for box in boxes:
                hands[box].append(cards.pop())
            for box, player_id in boxes.items():
                hand = hands[box]
                if bj_total(hand) in (10, 11) and not (bj_total(hand) == 21):
                    bet(round_id, player_id, "double", {"box": int(box), "hand": 1}, 20_00)
                    hand.append(cards.pop())
                    continue
                while bj_total(hand) < 17:
                    hand.append(cards.pop())
            dealer.append(cards.pop())
            live = any(bj_total(h) <= 21 and not (len(h) == 2 and bj_total(h) == 21)
                       for h in hands.values())
            while live and bj_total(dealer) < 17:
                dealer.append(cards.pop())
            return {"dealer": dealer, "boxes": {box: {"hands": [hand]}
                                                for box, hand in hands.items()}}

        play("blackjack", bj_bets, bj_outcome)

    # -- reconcile ---------------------------------------------------------
    returned: dict[str, int] = defaultdict(int)
    for game, round_ids in rounds.items():
        kept = commission = 0
        for round_id in round_ids:
            read = floor.get(f"rounds/{round_id}")
            assert read["state"] == "settled"
            bets_staked = sum(b["stake_minor"] for b in read["bets"])
            bets_returned = sum(b["returned_minor"] for b in read["bets"])
            assert (read["staked_minor"], read["returned_minor"]) == (bets_staked, bets_returned)
            assert all(b["cite"] for b in read["bets"])
            assert all(b["row"] for b in read["bets"] if b["result"] == "win")
            for b in read["bets"]:
                returned[b["player_id"]] += b["returned_minor"]
            commission += read["commission_minor"]
            kept += read["house_minor"]
            assert read["house_minor"] == bets_staked - bets_returned - read["commission_minor"]
        table_id = tables[game]["table_id"]
        assert balance(table_stakes(table_id)) == 0, game
        assert balance(house_games(VENUE, game)) == kept, game
        assert balance(house_commission(VENUE, game)) == commission, game
        if game == "punto_banco":
            assert commission > 0
    for player_id in players:
        assert balance(gaming_account(player_id)) == (
            DEPOSIT - staked[player_id] + returned[player_id]), player_id
    total_house = sum(balance(house_games(VENUE, g)) + balance(house_commission(VENUE, g))
                      for g in tables)
    assert total_house == sum(DEPOSIT - balance(gaming_account(p)) for p in players)
    assert sum(staked.values()) > 0
    assert verify_chain().ok
