"""RAY online's player-versus-player games and hedge bets (pure; 002:L3205-3239).

- `hedge_bet`: a bet against the house beside any poker game, on the
  player's own cards or the community cards, paid at the odds the game
  instructions announce (002:L3207; rows `games.hedge_bet.payouts`, posted,
  decision games.hedge_bet.posted). Checked by native_eval where a poker
  hand is named (the best hand of the seat's cards and the board). Each bet
  names the poker hand it hedges (`spec.hand_id`) and the bettor's seat in
  it; casino.games.commands checks the hand against the poker app when the
  bet is placed (it exists, is live, and the bettor sits at that seat:
  decision games.hedge_bet.hand). A round hedges one hand.
- `banker_cards`: one player banks, the others play against them (002:L3215-
  3221): the stakes against the banker together at most the banker's stake
  (figure online.card_pvp_other.stakes_against_banker_max); a banker who
  stays on after a winning round stakes at most twice the last bank (figure
  online.card_pvp_other.banker_raise.max_factor, read against the previous
  settled round). RAY's fee is a percentage of the stakes the banker wins in
  the round, with a cap (002:L3223): the table's posted `rake_basis_points`
  and `rake_minor_max` (decision online.rake.rates).
- `dice_pvp`: a dice board game between players (002:L3229-3237): each seat
  stakes the same; the doubling cube doubles the round's stake each time
  (figure online.dice_pvp.doubling_cube.factor: `cube_2`, `cube_4`, ... in-play
  bets of the size the cube says); the winner takes the stakes of the round,
  RAY's fee a percentage of the stakes won, capped.
"""

from __future__ import annotations

from typing import Any, Mapping

import native_eval

from .common import (
    BetInvalid,
    BetKind,
    BoxBet,
    OutcomeInvalid,
    Settled,
    commission_of,
    distinct,
    find_row,
    lose,
    parse_cards,
    pay,
    result_of,
)
from .poker_hands import CATEGORIES

HEDGE = "games.hedge_bet.payouts"
COVER = "online.card_pvp_other.stakes_against_banker_max"
BANKER_RAISE = "online.card_pvp_other.banker_raise.max_factor"
CUBE = "online.dice_pvp.doubling_cube.factor"
BANKER_FEE_BASIS = "online.rake.card_pvp_other.basis"
DICE_FEE_BASIS = "online.rake.dice_pvp.basis"
FEE_CAP_ALLOWED = "online.rake.cap_allowed"
CUBE_LEVELS = 6          # 2 ... 64: a named maximum for the cube's doublings
HAND_ID_CHARS_MAX = 80


def _seat(spec: Mapping[str, Any], seats_max: int) -> int:
    seat = spec.get("seat")
    if type(seat) is not int or not 1 <= seat <= seats_max:
        raise BetInvalid(f"seat must be a whole number from 1 to {seats_max}")
    return seat


def _rake(config: Mapping[str, Any], tables, basis_key: str, basis: str) -> dict[str, Any]:
    """The posted fee: rake_basis_points (required) and rake_minor_max (optional).

    The rulebook fixes the fee's basis (`basis_key`, which this engine
    computes as `basis`) and whether a cap may be posted (002:L3179).
    """
    if _figure(tables, basis_key)[0] != basis:
        raise BetInvalid(f"the rulebook's fee basis is not {basis}")
    rate = config.get("rake_basis_points")
    if type(rate) is not int or not 0 <= rate <= 10_000:
        raise BetInvalid("rake_basis_points (the game instructions' fee, 002:L3223/L3237)"
                         " is required: 0 to 10000")
    clean: dict[str, Any] = {"rake_basis_points": rate}
    if "rake_minor_max" in config:
        if _figure(tables, FEE_CAP_ALLOWED)[0] is not True:
            raise BetInvalid("the rulebook allows no cap on the fee")
        cap = config["rake_minor_max"]
        if type(cap) is not int or cap <= 0:
            raise BetInvalid("rake_minor_max must be a positive whole number of cents")
        clean["rake_minor_max"] = cap
    unknown = set(config) - {"rake_basis_points", "rake_minor_max"}
    if unknown:
        raise BetInvalid(f"unknown table options {sorted(unknown)}")
    return clean


def _fee(won: int, config: Mapping[str, Any]) -> int:
    """RAY's fee on stakes won: the posted percentage, rounded up, under the cap."""
    fee = commission_of(won, config["rake_basis_points"]) if won > 0 else 0
    return min(fee, config.get("rake_minor_max", fee))


def _figure(tables, key: str):
    rows = tables.get(key) or ()
    if len(rows) != 1:
        raise BetInvalid(f"the rulebook has no figure {key}")
    return rows[0]["value"], rows[0]["cite"]


# ---------------------------------------------------------------------------
# Hedge bets (002:L3207)
# ---------------------------------------------------------------------------


class HedgeBet:
    """A house bet beside a poker hand, on the seat's cards or the board."""

    id = "hedge_bet"
    tables = (HEDGE,)
    part_iv_game = "card_vs_house"       # 002:L3461: card games against the house
    hedges_poker = True                  # the commands check the hand (002:L3207)

    def configure(self, config, tables):
        if config:
            raise BetInvalid("hedge bets take no table options: the odds are the rulebook's")
        return {}

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        row = next((r for r in tables[HEDGE] if r["id"] == kind), None)
        if row is None:
            raise BetInvalid(f"no hedge bet {kind!r}; one of"
                             f" {', '.join(r['id'] for r in tables[HEDGE])}")
        seat = _seat(spec, 10)
        hand_id = spec.get("hand_id")
        if not isinstance(hand_id, str) or not 1 <= len(hand_id) <= HAND_ID_CHARS_MAX:
            raise BetInvalid("a hedge bet names the poker hand it hedges: spec.hand_id"
                             " (002:L3207)")
        return BetKind(kind, {"seat": seat, "hand_id": hand_id}, row["bet_unit"],
                       f"{kind}:{seat}")

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        board = parse_cards(outcome.get("board"), what="board")
        if len(board) not in (3, 4, 5):
            raise OutcomeInvalid("board: the flop, turn or river (3-5 cards)")
        seats_in = outcome.get("seats")
        if not isinstance(seats_in, Mapping):
            raise OutcomeInvalid("seats maps each seat with a hedge bet to its two cards")
        seats = {str(int(k)): parse_cards(v, count=2, what=f"seat {k}")
                 for k, v in seats_in.items()}
        missing = {str(b.spec["seat"]) for b in bets} - set(seats)
        if missing:
            raise OutcomeInvalid(f"no cards for seat(s) {', '.join(sorted(missing))}")
        distinct(board + [c for cards in seats.values() for c in cards], "one deck")
        facts = {"board": board, "seats": seats}
        hands = {b.spec["hand_id"] for b in bets if "hand_id" in b.spec}
        if len(hands) > 1:
            raise OutcomeInvalid("a round hedges one poker hand")
        if outcome.get("hand_id") is not None and hands and str(outcome["hand_id"]) not in hands:
            raise OutcomeInvalid(f"the cards are of hand {outcome['hand_id']}; the bets hedge"
                                 f" {next(iter(hands))}")
        if hands:
            facts["hand_id"] = next(iter(hands))
        elif outcome.get("hand_id") is not None:
            facts["hand_id"] = str(outcome["hand_id"])[:HAND_ID_CHARS_MAX]
        return facts

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        board = outcome["board"]
        settled = []
        for bet in bets:
            row = find_row(tables[HEDGE], bet.kind)
            hole = outcome["seats"][str(bet.spec["seat"])]
            won, facts = _hedge_wins(row, hole, board)
            settled.append(pay(bet, HEDGE, row, **facts) if won
                           else lose(bet, HEDGE, row, row["cite"], **facts))
        return settled


def _hedge_wins(row, hole, board) -> tuple[bool, dict[str, Any]]:
    """Whether a hedge row's condition holds (its `on` column names it)."""
    on = row["on"]
    if on == "hole_pair":
        return hole[0][0] == hole[1][0], {}
    if on == "hole_suited":
        return hole[0][1] == hole[1][1], {}
    if on == "flop_one_suit":
        return len({c[1] for c in board[:3]}) == 1, {}
    if on == "hand_at_least":
        # The seat's best five of its two cards and the board (native_eval).
        if len(board) != 5:
            raise OutcomeInvalid("a bet on the final hand needs the whole board")
        hand = native_eval.best_hand("holdem", list(hole), list(board))
        category = native_eval.category(hand.value)
        return (CATEGORIES.index(category) >= CATEGORIES.index(row["hand"]),
                {"hand": category})
    raise OutcomeInvalid(f"unknown hedge condition {on!r}")


# ---------------------------------------------------------------------------
# Banker card games (002:L3213-3225)
# ---------------------------------------------------------------------------


class BankerCards:
    """One player banks; each seat plays the banker at even money."""

    category = "pvp"      # between players: no online loss cap (002:L3082)
    id = "banker_cards"
    tables = (COVER, BANKER_RAISE, BANKER_FEE_BASIS, FEE_CAP_ALLOWED)
    part_iv_game = "card_pvp_other"       # 002:L3469

    def configure(self, config, tables):
        cover, _ = _figure(tables, COVER)
        if cover != "banker_stake":
            raise BetInvalid("this engine bounds the seats by the banker's stake (002:L3219)")
        factor, _ = _figure(tables, BANKER_RAISE)
        # The rulebook's factor is frozen into the table, as its other terms.
        return {**_rake(config, tables, BANKER_FEE_BASIS, "percent_of_banker_winnings"),
                "banker_raise_factor": int(factor)}

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if kind not in ("bank", "bet"):
            raise BetInvalid("banker card games take bank (the banker) and bet (a seat)")
        seat = _seat(spec, 10)
        return BetKind(kind, {"seat": seat}, "betting_option", f"{kind}:{seat}")

    @staticmethod
    def looks_back(phase: str, config) -> bool:
        return phase == "bet"

    def bank_refusal(self, kind, player_id, stake_minor, placed, previous, config):
        bankers = [(p, s) for p, k, s in placed if k == "bank"]
        if kind == "bank":
            if bankers or placed:
                return {"message": "the bank is put up first, once a round",
                        "cite": "002:L3219"}
            last = next((b for b in (previous or {}).get("bets", ())
                         if b["kind"] == "bank"), None)
            factor = config["banker_raise_factor"]
            if (last is not None and last["player_id"] == player_id
                    and last["result"] == "win" and stake_minor > factor * last["stake_minor"]):
                return {"message": f"a banker staying on stakes at most {factor} times the"
                                   f" last bank ({factor * last['stake_minor']})",
                        "cite": "002:L3221", "limit_minor": factor * last["stake_minor"],
                        "previous_round": previous["round_id"]}
            return None
        if not bankers:
            return {"message": "no banker to play against", "cite": "002:L3215"}
        if bankers[0][0] == player_id:
            return {"message": "the banker plays no seat against their own bank",
                    "cite": "002:L3215"}
        return None

    def stake_room(self, kind, player_id, placed, config=None):
        """002:L3219: the stakes against the banker at most the banker's stake."""
        if kind != "bet":
            return None
        bank = sum(s for _, k, s in placed if k == "bank")
        return max(bank - sum(s for _, k, s in placed if k == "bet"), 0), "002:L3219"

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        if sum(1 for b in bets if b.kind == "bank") != 1:
            raise OutcomeInvalid("a round has exactly one banker")
        results = outcome.get("results")
        if not isinstance(results, Mapping):
            raise OutcomeInvalid("results maps each seat to win, lose or push against the"
                                 " banker")
        clean = {str(int(k)): v for k, v in results.items()}
        seats = {str(b.spec["seat"]) for b in bets if b.kind == "bet"}
        if set(clean) != seats or not set(clean.values()) <= {"win", "lose", "push"}:
            raise OutcomeInvalid("a result (win, lose or push) for every seat, no other")
        return {"results": clean}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        results = outcome["results"]
        settled, won, paid = [], 0, 0
        for bet in bets:
            if bet.kind != "bet":
                continue
            result = results[str(bet.spec["seat"])]
            returned = {"win": 2 * bet.stake_minor, "push": bet.stake_minor, "lose": 0}[result]
            won += bet.stake_minor if result == "lose" else 0
            paid += bet.stake_minor if result == "win" else 0
            settled.append(Settled(bet.bet_id, bet.stake_minor, returned, result, None,
                                   "seat", "002:L3219", 0, {"result": result}))
        bank = next(b for b in bets if b.kind == "bank")
        fee = _fee(won, config)        # 002:L3223: on the stakes the banker won
        returned = bank.stake_minor + won - paid - fee
        settled.append(Settled(bank.bet_id, bank.stake_minor, returned,
                               result_of(bank.stake_minor, returned), None, "bank",
                               "002:L3219-3223", fee,
                               {"won_minor": won, "paid_minor": paid, "fee_minor": fee,
                                "fee_cite": "002:L3223"}))
        return settled


# ---------------------------------------------------------------------------
# Dice games with a doubling cube (002:L3229-3239)
# ---------------------------------------------------------------------------


def _cube_bets() -> dict[str, BoxBet]:
    """cube_2 ... cube_64: each doubling adds the stake the round had before it."""
    bets = {}
    previous = None
    for level in range(1, CUBE_LEVELS + 1):
        kind = f"cube_{2 ** level}"
        bets[kind] = BoxBet(in_play=True, raise_of="stake", raise_rule="multiple",
                            multiples=(2 ** (level - 1),),
                            requires=(("stake",) if previous is None else (previous,)),
                            bet_unit="betting_option")
        previous = kind
    return bets


class DicePvp:
    """A dice board game between seats; the winner takes the round's stakes."""

    category = "pvp"      # between players: no online loss cap (002:L3082)
    id = "dice_pvp"
    tables = (CUBE, DICE_FEE_BASIS, FEE_CAP_ALLOWED)
    part_iv_game = "dice_pvp"             # 002:L3471
    bets = {"stake": BoxBet(bet_unit="betting_option"), **_cube_bets()}

    def configure(self, config, tables):
        factor, _ = _figure(tables, CUBE)
        if factor != 2:
            raise BetInvalid("this engine doubles: the cube's factor must be 2 (002:L3235)")
        return _rake(config, tables, DICE_FEE_BASIS, "percent_of_player_winnings")

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if kind not in self.bets:
            raise BetInvalid(f"dice games take stake and the cube's {', '.join(self.bets)}")
        seat = _seat(spec, 4)
        how = self.bets[kind]
        # The cube's bets are the seat's own: position per seat, raise of its stake.
        return BetKind(kind, {"seat": seat}, how.bet_unit, f"{kind}:{seat}",
                       in_play=how.in_play,
                       raise_of=f"{how.raise_of}:{seat}" if how.raise_of else None,
                       raise_rule=how.raise_rule, multiples=how.multiples,
                       requires=tuple(f"{r}:{seat}" for r in how.requires))

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        seats: dict[str, int] = {}
        for bet in bets:
            seats[str(bet.spec["seat"])] = seats.get(str(bet.spec["seat"]), 0) + bet.stake_minor
        if len(seats) < 2:
            raise OutcomeInvalid("a dice game needs two seats")
        if len(set(seats.values())) != 1:
            raise OutcomeInvalid(f"every seat plays the same stake, the cube included"
                                 f" (002:L3235): {seats}")
        winner = outcome.get("winner_seat")
        if type(winner) is not int or str(winner) not in seats:
            raise OutcomeInvalid("winner_seat names a seat of the round")
        return {"winner_seat": winner, "stake_per_seat_minor": next(iter(seats.values())),
                "cube": max((int(b.kind.split("_")[1]) for b in bets
                             if b.kind.startswith("cube_")), default=1)}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        winner = str(outcome["winner_seat"])
        won = sum(b.stake_minor for b in bets if str(b.spec["seat"]) != winner)
        fee = _fee(won, config)      # 002:L3237: on the stakes the winner won
        mine = [b for b in bets if str(b.spec["seat"]) == winner]
        settled = []
        for bet in bets:
            if str(bet.spec["seat"]) != winner:
                settled.append(Settled(bet.bet_id, bet.stake_minor, 0, "lose", None, "stake",
                                       "002:L3233", 0, {"cube": outcome["cube"]}))
        # The winner's first stake carries the winnings and the fee; the cube's
        # bets come back as they were.
        for n, bet in enumerate(sorted(mine, key=lambda b: b.kind != "stake")):
            extra = won - fee if n == 0 else 0
            settled.append(Settled(bet.bet_id, bet.stake_minor, bet.stake_minor + extra,
                                   "win" if extra else "push", None, "stake", "002:L3233",
                                   fee if n == 0 else 0,
                                   {"cube": outcome["cube"], "won_minor": won if n == 0 else 0,
                                    "fee_cite": "002:L3237"}))
        order = {b.bet_id: i for i, b in enumerate(bets)}
        return sorted(settled, key=lambda s: order[s.bet_id])
