"""A week at two jackpot tables over the HTTP API, reconciled to the cent.

Seven gaming days (8-14 June 2026) at the Veikkaus room (poker-helsinki):
two six-handed no-limit hold'em jackpot tables play three hands a day each,
every hand checked down to a showdown, so each pays the EUR 1 bad-beat drop
(000:L2869-2872) into the pending account. Each morning at 06:10 Helsinki
time the Celery roll-up (eager here; the real worker is tested in
tests/integration) posts the day just ended to the pool (000:L2872-2873).
On the fourth evening table B deals a bad beat: aces full of kings with
both hole cards lose to four kings (category 1, 000:L2895-2898). The next
morning a compliance officer finds it in the API, approves it (the shares
are of the balance posted at the hit, decision jackpot.payout_base) and
pays it; what the hit left is topped up to the EUR 1,000 base
(000:L3185-3186) and the drops of the days after the hit join on top of it
(decision jackpots.payout.top_up). At the end the pool's history from the API (contributions,
roll-ups, payout, top-up) must equal what the test itself counted, and the
balances, to the cent.
"""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import native_eval
import pytest

from casino.accounts import gaming_account
from casino.jackpots import tasks
from casino.jackpots.accounts import funding_account, pending_account, pool_account
from casino.roles import Role
from ledger import verify_chain
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import balance, funded_player, key

HELSINKI = ZoneInfo("Europe/Helsinki")
VENUE = "poker-helsinki"
DAYS = [dt.date(2026, 6, 8) + dt.timedelta(days=i) for i in range(7)]
HANDS_PER_DAY = 3
BIG_BLIND = 200
PLAYERS = 6
POT = PLAYERS * BIG_BLIND      # everyone calls the big blind, then checks down
DROP = 100                     # 000:L2869-2870
RAKE = 0                       # EUR 1 per full EUR 20 (000:L430): none on EUR 12
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"]
BAD_BEAT_BOARD = "As Ks Kd 7c 2h"
BAD_BEAT_CARDS = {1: "Ah Ad", 2: "Kc Kh"}


def money(minor: int) -> str:
    return f"{minor // 100}.{minor % 100:02d}"


class Week:
    def __init__(self, monkeypatch) -> None:
        self.monkeypatch = monkeypatch
        self.controller = client_for(Role.TABLE_CONTROLLER)
        self.officer = client_for(Role.COMPLIANCE_OFFICER, "officer-anna")
        # A second officer pays what the first approved (two-person rule).
        self.second_officer = client_for(Role.COMPLIANCE_OFFICER, "officer-bert")
        self.accountant = client_for(Role.ACCOUNTANT)
        self.rng = random.Random(20260608)
        self.drops = 0
        self.hands = 0
        self.tables: dict[str, dict[int, str]] = {}

    def at(self, moment: dt.datetime) -> None:
        self.monkeypatch.setattr("casino.clock.now", lambda: moment)

    def post(self, client, url: str, body: dict) -> dict:
        response = post(client, f"/api/v1/{url}", body, key=key("week"))
        assert response.status_code == 201, (url, body, response.content)
        return response.json()

    def get(self, client, url: str):
        response = client.get(f"/api/v1/{url}")
        assert response.status_code == 200, (url, response.content)
        return response.json()

    def open_table(self) -> str:
        table = self.post(self.controller, "poker/tables", {
            "venue": VENUE, "variant": "holdem", "structure": "no_limit",
            "small_blind": money(BIG_BLIND // 2), "big_blind": money(BIG_BLIND),
            "seats_max": 9, "buy_in_min": "100.00", "buy_in_max": "400.00",
            "rake": "standard", "jackpot": True})
        table_id = table["table_id"]
        self.tables[table_id] = {}
        for seat in range(1, PLAYERS + 1):
            player = funded_player(1_000_00).id
            self.post(self.controller, f"poker/tables/{table_id}/buy-ins",
                      {"seat": seat, "player_id": player, "amount": "200.00",
                       "paid_with": "account"})
            self.tables[table_id][seat] = player
        return table_id

    def play_hand(self, table_id: str, button: int, cards: dict[int, str] | None = None,
                  board: str | None = None) -> dict:
        """Start, check down and show down one hand; the claim is native_eval's."""
        hand = self.post(self.controller, f"poker/tables/{table_id}/hands", {"button": button})
        hand_id, state = hand["hand_id"], hand
        while state["phase"] != "showdown":
            kind = "call" if state["pot_minor"] < POT else "check"
            state = self.post(self.controller, f"poker/hands/{hand_id}/actions",
                              {"seat": state["to_act"], "kind": kind})
        deck = list(DECK)
        self.rng.shuffle(deck)
        given = dict(cards or {})
        used = set(" ".join(given.values()).split()) | set((board or "").split())
        deck = [card for card in deck if card not in used]
        board = board or " ".join(deck.pop() for _ in range(5))
        hands = {seat: given.get(seat) or f"{deck.pop()} {deck.pop()}"
                 for seat in range(1, PLAYERS + 1)}
        verified = native_eval.showdown("holdem", board, hands,
                                        [(POT - RAKE - DROP, list(hands))], button)
        claimed = [{"seat": s, "amount": money(a)} for s, a in verified.awards.items() if a]
        settled = self.post(self.controller, f"poker/hands/{hand_id}/showdown",
                            {"board": board, "hands": {str(s): c for s, c in hands.items()},
                             "claimed_awards": claimed})
        assert settled["state"] == "settled", settled
        assert (settled["rake_minor"], settled["drop_minor"]) == (RAKE, DROP)
        self.drops += settled["drop_minor"]
        self.hands += 1
        return settled


@pytest.mark.slow
def test_a_week_with_one_bad_beat_reconciles_over_the_api(venues, monkeypatch):
    week = Week(monkeypatch)
    week.at(dt.datetime.combine(DAYS[0], dt.time(19), tzinfo=HELSINKI))
    table_a, table_b = week.open_table(), week.open_table()
    hit_hand = None
    for index, day in enumerate(DAYS):
        for number in range(HANDS_PER_DAY):
            week.at(dt.datetime.combine(day, dt.time(20, 10 * number), tzinfo=HELSINKI))
            week.play_hand(table_a, button=1 + number)
            if index == 3 and number == 1:
                settled = week.play_hand(table_b, button=6, cards=BAD_BEAT_CARDS,
                                         board=BAD_BEAT_BOARD)
                hit_hand = settled["hand_id"]
            else:
                week.play_hand(table_b, button=1 + number)
        # 06:10 the next morning: the beat's roll-up of the day just ended.
        week.at(dt.datetime.combine(day + dt.timedelta(days=1), dt.time(6, 10),
                                    tzinfo=HELSINKI))
        assert tasks.rollup_all.delay().get() == [f"{VENUE}/bad_beat"]

        if index == 3:   # the morning after the hit: the officer decides
            pending = week.get(week.officer, "jackpots/hits?state=hit")["results"]
            assert [h["hit_id"] for h in pending] == [hit_hand]
            assert pending[0]["category"] == 1
            assert pending[0]["roles"]["1"] == "loser" and pending[0]["roles"]["2"] == "winner"
            players = pending[0]["players"]
            before = {seat: balance(gaming_account(pid)) for seat, pid in players.items()}
            refused = post(week.controller, f"/api/v1/jackpots/hits/{hit_hand}/approve", {},
                           key=key())
            assert refused.status_code == 403
            approved = week.post(week.officer, f"jackpots/hits/{hit_hand}/approve", {})
            assert approved["approved_by"] == "officer-anna"
            # Posted at the hit: days 1-3 (18 drops); day 4 was rolled up after it.
            assert approved["balance_minor"] == 3 * 2 * HANDS_PER_DAY * DROP
            shares = {s["seat"]: s["amount_minor"] for s in approved["shares"]}
            assert shares == {1: 720, 2: 360, 3: 90, 4: 90, 5: 90, 6: 90}
            paid = week.post(week.second_officer, f"jackpots/hits/{hit_hand}/pay", {})
            assert paid["state"] == "paid" and paid["amount_minor"] == 1_440
            # The base is what the hit leaves of days 1-3; day 4, rolled up
            # after the hit, joins on top of it (000:L3185-3186, L2872-2873).
            assert paid["top_up_minor"] == 100_000 - (3 * 600 - 1_440)
            for seat, pid in players.items():
                assert balance(gaming_account(pid)) - before[seat] == shares[int(seat)]

    history = week.get(week.accountant, f"jackpots/pools/{VENUE}/bad_beat")
    rollups = week.get(week.accountant, f"jackpots/pools/{VENUE}/bad_beat/rollups")["results"]
    assert week.hands == 2 * HANDS_PER_DAY * len(DAYS) == 42
    assert [r["gaming_day"] for r in rollups] == [d.isoformat() for d in DAYS]
    assert all(r["contributions"] == 6 and r["amount_minor"] == 600 for r in rollups)
    top_up = 100_000 - (1_800 - 1_440)
    assert history == {
        **history,
        "contributions": 42, "contributions_minor": week.drops, "adjustments_minor": 0,
        "rolled_up_minor": week.drops, "paid_minor": 1_440, "topped_up_minor": top_up,
        "pending_minor": 0, "pool_minor": week.drops - 1_440 + top_up,
        "status": "accumulating", "hits": 1, "rollups": 7, "reconciles": True,
        "last_rolled_day": DAYS[-1].isoformat(),
    }
    assert week.drops == 4_200
    # The base plus the drops of days 4-7, which came after the hit.
    assert balance(pool_account(VENUE, "bad_beat")) == 4_200 - 1_440 + top_up == (
        100_000 + 4 * 600)
    assert balance(pending_account(VENUE, "bad_beat")) == 0
    assert balance(funding_account(VENUE)) == top_up
    assert verify_chain().ok
