"""The demo's round of the whole game catalogue (issue 22): each game or
option the first wave left out is played once on the first evening.

At casino-helsinki: Punto Banco with a posted EUR 1 minimum commission
(002:L2799); Oasis Stud Poker versions B, C and D (002:L2104-2140), and the
base game with a EUR 100 table win cap and the progressive bonus (002:L2039,
L2041); player-banked Pai Gow over two rounds, the dealer playing the second
banker with her stake of the first (002:L2623); Baccara with banco avec, then
the bank continuing at bank plus winnings (002:L2817-2825); Chinese Poker in
points (002:L1995). At poker-helsinki: an Open-Faced Chinese Poker hand in
points (000:L2633-2692). At ray-online: a hedge bet beside a live poker hand
(dealt at poker-helsinki, the bettor in it at the bet's seat), a
banker card game and a dice game doubled by the cube (002:L3207-3237), and a
sit'n'go jackpot posted at two consecutive wins that the same gambler takes
in two heads-up sit'n'gos (002:L3299).

The casino's gamblers play (their cash is in the gaming account from 17:20);
every write goes through casino.games' commands with `demo/<seed>/catalogue/`
keys, so a second run appends nothing. The cards are fixed, not drawn: the
rounds show the rules, the random evening is elsewhere.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, Sequence

from casino.games import commands as games
from casino.sitngo import commands as sitngo
from casino.tournaments import commands as tournaments

from .clock import helsinki

if TYPE_CHECKING:  # the demo imports this module; no cycle at run time
    from .gaming_day import Demo, Step

CASINO, ROOM, ONLINE = "casino-helsinki", "poker-helsinki", "ray-online"
DEALER = "demo-dealer"
OFC_HANDS = {
    "1": {"front": "Qs Qh 2d", "middle": "9c 9d 9h 4s 3c", "back": "Ac Kc Jc 8c 5c"},
    "2": {"front": "As Ks Js", "middle": "Td Tc 6h 5d 4d", "back": "8s 8h 8d 7c 7s"},
    "3": {"front": "2c 3d 4h", "middle": "5s 6s 7h 9s Jh", "back": "Th Jd Qd Kd 2h"},
}
BANKER = {"front": "Qs Jd", "back": "9c 9d 5c 5d 2s"}
PAI_GOW_DEALER = "Th 6d 4c 2d 7s 3s Js"


def steps(demo: "Demo", number: int, day: dt.date) -> list["Step"]:
    """The catalogue's steps of an evening (the first only)."""
    from .gaming_day import Step

    if number != 0:
        return []
    play = Catalogue(demo, (23, 24, 25, 26))      # the casino's gamblers

    at = helsinki(day, 21, 0)
    return [Step(at + dt.timedelta(minutes=2 * n), f"catalogue: {name}",
                 lambda method=method, moment=at + dt.timedelta(minutes=2 * n):
                 method(moment))
            for n, (name, method) in enumerate(play.rounds())]


class Catalogue:
    """Each round of the catalogue, a method taking its business time."""

    def __init__(self, demo: "Demo", players: Sequence[int]) -> None:
        self.demo = demo
        self.indexes = tuple(players)      # registered when the plan runs
        self.tables: dict[str, str] = {}

    @property
    def players(self) -> list[str]:
        return [self.demo.player(i) for i in self.indexes]

    def rounds(self) -> list[tuple[str, Any]]:
        return [("punto banco minimum commission", self.punto_banco),
                ("oasis version b", self.oasis_b), ("oasis version c", self.oasis_c),
                ("oasis version d", self.oasis_d),
                ("oasis win cap and progressive", self.oasis_progressive),
                ("pai gow player bank 1", self.pai_gow_1),
                ("pai gow player bank 2", self.pai_gow_2),
                ("baccara banco avec", self.baccara_1),
                ("baccara bank continues", self.baccara_2),
                ("chinese poker", self.chinese), ("open-faced chinese poker", self.ofc),
                ("hedge bet", self.hedge), ("banker card game", self.banker),
                ("dice game with the cube", self.dice),
                ("sit'n'go jackpot", self.sit_n_go_jackpot)]

    # -- helpers ---------------------------------------------------------------

    def _key(self, *parts: object) -> str:
        return self.demo.key("catalogue", *parts)

    def _table(self, name: str, venue: str, game: str, config: dict, low: int, high: int,
               at: dt.datetime) -> str:
        if name not in self.tables:
            opened = games.open_table(venue=venue, game=game, config=config,
                                      stake_minor_min=low, stake_minor_max=high,
                                      actor=DEALER, idempotency_key=self._key(name, "table"),
                                      at=at)
            self.tables[name] = opened.table_id
        return self.tables[name]

    def _round(self, name: str, table_id: str, bets, outcome, at: dt.datetime,
               in_play=(), label: str = "1") -> str:
        key = self._key(name, "round", label)
        round_id = games.open_round(table_id=table_id, actor=DEALER,
                                    idempotency_key=key, at=at).round_id
        minute = dt.timedelta(seconds=20)
        for j, (player, kind, spec, stake) in enumerate(bets):
            games.place_bet(round_id=round_id, player_id=self.players[player], kind=kind,
                            spec=spec, stake_minor=stake, actor=DEALER,
                            idempotency_key=f"{key}/bet/{j}", at=at)
        games.close_betting(round_id=round_id, actor=DEALER, idempotency_key=f"{key}/close",
                            at=at + minute)
        for j, (player, kind, spec, stake) in enumerate(in_play):
            games.place_bet(round_id=round_id, player_id=self.players[player], kind=kind,
                            spec=spec, stake_minor=stake, actor=DEALER,
                            idempotency_key=f"{key}/in-play/{j}", at=at + minute)
        games.record_outcome(round_id=round_id, outcome=outcome, actor=DEALER,
                             idempotency_key=f"{key}/outcome", at=at + 2 * minute)
        settled = games.settle_round(round_id=round_id, actor=DEALER,
                                     idempotency_key=f"{key}/settle", at=at + 3 * minute)
        self.demo.result.counts[f"catalogue rounds {settled.state}"] += 1
        self.demo.facts.setdefault("catalogue_rounds", {})[f"{name}/{label}"] = round_id
        return round_id

    # -- the rounds -------------------------------------------------------------

    def punto_banco(self, at):
        table = self._table("punto-banco-min", CASINO, "punto_banco",
                            {"commission_minor_min": 1_00}, 5_00, 100_00, at)
        self._round("punto-banco-min", table, [(0, "banco", {}, 10_00)],
                    {"punto": "2h 3d", "banco": "9h Kd"}, at)

    def oasis_b(self, at):
        table = self._table("oasis-b", CASINO, "oasis_stud_poker", {"version": "b"},
                            5_00, 100_00, at)
        self._round("oasis-b", table, [(1, "ante", {"box": 1}, 5_00)],
                    {"dealer": "8d 8c 6d 4h 2h", "boxes": {"1": "Jc Jd Jh Ks 3c"}}, at,
                    in_play=[(1, "bet", {"box": 1}, 10_00), (1, "swap", {"box": 1}, 5_00)])

    def oasis_c(self, at):
        table = self._table("oasis-c", CASINO, "oasis_stud_poker", {"version": "c"},
                            5_00, 100_00, at)
        self._round("oasis-c", table, [(2, "ante", {"box": 2}, 5_00)],
                    {"dealer": "8d 8c 6h 5d 3s", "boxes": {"2": "Kc Kd 2h 5s 3c"}}, at,
                    in_play=[(2, "bet", {"box": 2}, 10_00)])

    def oasis_d(self, at):
        table = self._table("oasis-d", CASINO, "oasis_stud_poker", {"version": "d"},
                            5_00, 100_00, at)
        self._round("oasis-d", table, [(3, k, {"box": 1}, 5_00)
                                       for k in ("bet_1", "bet_2", "bet_3")],
                    {"community": "Ah 9h", "boxes": {"1": "7h 4h 3h"}}, at)

    def oasis_progressive(self, at):
        table = self._table("oasis-progressive", CASINO, "oasis_stud_poker",
                            {"bonus": "progressive", "win_minor_max": 100_00}, 5_00, 100_00,
                            at)
        self._round("oasis-progressive", table,
                    [(0, "ante", {"box": 1}, 10_00), (0, "bonus", {"box": 1}, 5_00)],
                    {"dealer": "As Kc 8d 4h 3c", "boxes": {"1": "Ad 9d 7d 4d 2d"}}, at,
                    in_play=[(0, "bet", {"box": 1}, 20_00)])

    def pai_gow_1(self, at):
        table = self._table("pai-gow-bank", CASINO, "pai_gow_poker", {"bank": "player"},
                            5_00, 200_00, at)
        self._round("pai-gow-bank", table,
                    [(1, "bank", {"box": 1}, 50_00), (2, "bet", {"box": 2}, 20_00)],
                    {"dealer": PAI_GOW_DEALER, "banker": BANKER,
                     "boxes": {"2": {"front": "Ac Ad", "back": "Kh Kd Ks 3c 3d"}}}, at)

    def pai_gow_2(self, at):
        table = self._table("pai-gow-bank", CASINO, "pai_gow_poker", {"bank": "player"},
                            5_00, 200_00, at)
        # The second banker staked EUR 20 on a box in round 1: the dealer's cap.
        self._round("pai-gow-bank", table,
                    [(2, "bank", {"box": 2}, 100_00), (1, "bet", {"box": 3}, 30_00)],
                    {"dealer": PAI_GOW_DEALER, "banker": BANKER, "dealer_stake_minor": 20_00,
                     "boxes": {"3": {"front": "4h 3h", "back": "8h 8c 6s 7h 2c"}}}, at,
                    label="2")

    def baccara_1(self, at):
        table = self._table("baccara", CASINO, "baccara", {}, 5_00, 300_00, at)
        self._round("baccara", table, [(0, "banco", {}, 40_00), (1, "banco_avec", {}, 20_00),
                                       (2, "punto", {}, 60_00)],
                    {"punto": "2c 3s", "banco": "9h Kd"}, at)

    def baccara_2(self, at):
        table = self._table("baccara", CASINO, "baccara", {}, 5_00, 300_00, at)
        # The bank won 40 less 5 % (38 of it the banker's): she continues at 78.
        self._round("baccara", table, [(0, "banco", {}, 78_00), (3, "punto", {}, 30_00)],
                    {"punto": "9h Kd", "banco": "2c 3s"}, at, label="2")

    def chinese(self, at):
        table = self._table("chinese", CASINO, "chinese_poker", {"point_value_minor": 50},
                            4_50, 4_50, at)
        self._round("chinese", table, [(n, "seat", {"seat": n + 1}, 4_50) for n in range(3)],
                    {"button": 1, "hands": OFC_HANDS}, at)

    def ofc(self, at):
        table = self._table("ofc", ROOM, "open_faced_chinese_poker",
                            {"point_value_minor": 10}, 5_00, 5_00, at)
        self._round("ofc", table, [(n, "seat", {"seat": n + 1}, 5_00) for n in range(3)],
                    {"button": 3, "hands": OFC_HANDS}, at)

    def hedge(self, at):
        """Two hedge bets on gambler 3's cards in a hand being dealt (002:L3207,
        decision games.hedge_bet.hand); the hand then ends and both cash out."""
        from casino.poker import commands as poker
        from casino.poker.models import Hand

        table = self._table("hedge", ONLINE, "hedge_bet", {}, 1_00, 50_00, at)
        poker_table = poker.open_table(
            venue=ROOM, variant="holdem", structure="no_limit", small_blind_minor=1_00,
            big_blind_minor=2_00, seats_max=6, buy_in_minor_min=100_00,
            buy_in_minor_max=400_00, rake="standard", actor=DEALER,
            idempotency_key=self._key("hedge", "poker-table"), at=at).table_id
        seated = ((2, 3), (3, 2))                  # (seat, gambler)
        for seat, player in seated:
            poker.buy_in(table_id=poker_table, seat=seat, player_id=self.players[player],
                         amount_minor=100_00, paid_with="cash", actor=DEALER,
                         idempotency_key=self._key("hedge", "buy-in", seat), at=at)
        hand_id = poker.start_hand(table_id=poker_table, button=2, actor=DEALER,
                                   idempotency_key=self._key("hedge", "hand"),
                                   at=at).hand_id
        spec = {"seat": 2, "hand_id": hand_id}
        self._round("hedge", table, [(3, "hole_pair", spec, 2_00),
                                     (3, "flush_or_better", spec, 2_00)],
                    {"seats": {"2": "8h 8d"}, "board": "2h 7h Jh Qs 3c",
                     "hand_id": hand_id}, at)
        later = at + dt.timedelta(minutes=1, seconds=30)
        # Heads-up, the button (seat 2) posts the small blind and acts first.
        assert Hand.objects.get(id=hand_id).to_act in (2, None), "heads-up: the button acts"
        poker.act(hand_id=hand_id, seat=2, kind="fold", actor=DEALER,
                  idempotency_key=self._key("hedge", "fold"), at=later)
        for seat, player in seated:
            poker.cash_out(table_id=poker_table, seat=seat, player_id=self.players[player],
                           paid_to="cash", actor=DEALER,
                           idempotency_key=self._key("hedge", "cash-out", seat), at=later)

    def banker(self, at):
        table = self._table("banker-cards", ONLINE, "banker_cards",
                            {"rake_basis_points": 500, "rake_minor_max": 2_00}, 1_00, 100_00,
                            at)
        self._round("banker-cards", table,
                    [(0, "bank", {"seat": 1}, 40_00), (1, "bet", {"seat": 2}, 20_00),
                     (2, "bet", {"seat": 3}, 10_00)],
                    {"results": {"2": "lose", "3": "win"}}, at)

    def dice(self, at):
        table = self._table("dice", ONLINE, "dice_pvp", {"rake_basis_points": 300},
                            1_00, 50_00, at)
        self._round("dice", table, [(n, "stake", {"seat": n - 1}, 5_00) for n in (2, 3)],
                    {"winner_seat": 1}, at,
                    in_play=[(n, "cube_2", {"seat": n - 1}, 5_00) for n in (2, 3)])

    def sit_n_go_jackpot(self, at):
        series = sitngo.post_series(venue=ONLINE, wins_to_trigger=2, fee_minor=1_00,
                                    actor=DEALER, idempotency_key=self._key("sitngo", "series"),
                                    at=at)
        for n, (winner, loser) in enumerate(((0, 1), (0, 2))):
            key = self._key("sitngo", "tournament", n)
            t = tournaments.announce(venue=ONLINE, name=f"Heads-up jackpot {n + 1}",
                                     format="sit_and_go", seats_per_table=2,
                                     entry={"prize_minor": 9_50, "fee_minor": 50},
                                     actor=DEALER, idempotency_key=f"{key}/announce",
                                     at=at).tournament_id
            tournaments.open_registration(tournament_id=t, actor=DEALER,
                                          idempotency_key=f"{key}/open", at=at)
            for index in (winner, loser):
                tournaments.register(tournament_id=t, player_id=self.players[index],
                                     actor=DEALER, idempotency_key=f"{key}/entry/{index}",
                                     at=at)
            tournaments.start(tournament_id=t, actor=DEALER, idempotency_key=f"{key}/start",
                              at=at)
            tournaments.eliminate(tournament_id=t, outs=[{"player_id": self.players[loser],
                                                          "stack": 100}],
                                  actor=DEALER, idempotency_key=f"{key}/out", at=at)
            tournaments.fix_prize_pool(tournament_id=t, actor=DEALER,
                                       idempotency_key=f"{key}/pool", at=at)
            tournaments.finish(tournament_id=t, actor=DEALER, idempotency_key=f"{key}/finish",
                               at=at)
            recorded = sitngo.record_tournament(series_id=series.series_id, tournament_id=t,
                                                actor=DEALER,
                                                idempotency_key=f"{key}/jackpot", at=at)
        self.demo.facts["sitngo_series"] = series.series_id
        self.demo.facts["sitngo_jackpot_minor"] = recorded.jackpot_minor
        self.demo.result.counts["sit'n'go jackpots paid"] += 1 if recorded.jackpot_minor else 0
