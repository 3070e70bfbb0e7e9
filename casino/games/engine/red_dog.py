"""Red Dog and Bulldog: a bet on the spread between two cards (pure).

Ace high (14), 2 low; six decks (002:L1293, 002:L2875-2877). Spread = the
number of ranks strictly between the two base cards. Consecutive cards: no
third card and the round is void (decision games.red_dog.void_deal). A pair:
no raise, a matching third card pays 11x, anything else pushes. Otherwise a
third card strictly between the two wins the row of the spread (5, 4, 2,
1), anything else loses. The raise (at most the bet, 002:L3361-3363) is a
separate stake settled at the same row (decision games.red_dog.raise).

Red Dog deals one third card for the table; Bulldog one per box with a bet
(002:L1329, 002:L2907).
"""

from __future__ import annotations

from typing import Any

from .base import no_config
from .common import (
    BetInvalid,
    BetKind,
    OutcomeInvalid,
    Settled,
    lose,
    parse_cards,
    pay,
    push,
    rank_of,
)


def spread(a: str, b: str) -> int | None:
    """Ranks strictly between; None for a pair."""
    if rank_of(a) == rank_of(b):
        return None
    return abs(rank_of(a) - rank_of(b)) - 1


def row_for(rows, spread_value: int | None):
    for row in rows:
        if spread_value is None and row.get("trips"):
            return row
        if spread_value is not None and row.get("spread_min", 99) <= spread_value <= row.get(
                "spread_max", -1):
            return row
    raise KeyError(f"no row for spread {spread_value}")


class RedDog:
    id = "red_dog"
    table = "games.red_dog.payouts"
    per_box = False

    @property
    def tables(self):
        return (self.table,)

    def configure(self, config, tables):
        return no_config(config)

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        box = spec.get("box")
        if type(box) is not int or not 1 <= box <= 7:
            raise BetInvalid("box must be a whole number from 1 to 7")
        if kind == "bet":
            return BetKind(kind, {"box": box}, "box", f"bet:{box}")
        if kind == "raise":
            return BetKind(kind, {"box": box}, "box", f"raise:{box}", in_play=True,
                           raise_of=f"bet:{box}", raise_rule="at_most")
        raise BetInvalid(f"{self.id} has no bet {kind!r}")

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        base = parse_cards(outcome.get("base"), count=2, what="base")
        s = spread(*base)
        if s == 0:
            raise OutcomeInvalid("consecutive base cards: no third card, void the round"
                                 " (002:L1309-1311)")
        if s is None and any(b.kind == "raise" for b in bets):
            raise OutcomeInvalid("no raise on a pair (002:L1313)")
        boxes = {str(b.spec["box"]) for b in bets}
        if self.per_box:
            thirds_in = outcome.get("thirds")
            if not isinstance(thirds_in, dict):
                raise OutcomeInvalid("thirds maps each box with a bet to its third card")
            thirds = {str(int(k)): parse_cards([v], count=1, what=f"box {k}")[0]
                      for k, v in thirds_in.items()}
            if boxes - set(thirds):
                raise OutcomeInvalid(f"no third card for box(es) {sorted(boxes - set(thirds))}")
        else:
            third = parse_cards([outcome.get("third")], count=1, what="third")[0]
            thirds = {box: third for box in boxes}
        return {"base": base, "thirds": thirds}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        rows = tables[self.table]
        a, b = outcome["base"]
        s = spread(a, b)
        out = []
        for bet in bets:
            third = outcome["thirds"][str(bet.spec["box"])]
            row = row_for(rows, s)
            facts = {"base": [a, b], "third": third, "spread": s}
            if s is None:
                out.append(pay(bet, self.table, row, **facts) if rank_of(third) == rank_of(a)
                           else push(bet, self.table, row, row["cite"], **facts))
            elif min(rank_of(a), rank_of(b)) < rank_of(third) < max(rank_of(a), rank_of(b)):
                out.append(pay(bet, self.table, row, **facts))
            else:
                out.append(lose(bet, self.table, row, row["cite"], **facts))
        return out


class Bulldog(RedDog):
    id = "bulldog"
    table = "games.bulldog.payouts"
    per_box = True
