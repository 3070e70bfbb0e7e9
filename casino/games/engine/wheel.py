"""Money Wheel: 54 sectors, a bet on a symbol pays that symbol's odds (pure).

Rows of `games.money_wheel.payouts` are the symbols with their sector count
and odds (002:L1610-1619); the two 45x sectors are two symbols (decision
games.money_wheel.symbols). The outcome is the symbol the pointer stopped on;
a void spin (002:L1621) is a void round, handled by the app.
"""

from __future__ import annotations

from typing import Any

from .base import no_config
from .common import BetInvalid, BetKind, OutcomeInvalid, Settled, find_row, lose, pay

TABLE = "games.money_wheel.payouts"
SECTORS = 54


class MoneyWheel:
    id = "money_wheel"
    tables = (TABLE,)

    def configure(self, config, tables):
        if sum(row["sectors"] for row in tables[TABLE]) != SECTORS:
            raise BetInvalid("the money wheel's rows must cover its 54 sectors (002:L1610)")
        return no_config(config)

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if kind != "symbol":
            raise BetInvalid(f"the money wheel has no bet {kind!r}; bet on a symbol")
        symbol = spec.get("symbol")
        rows = {row["id"]: row for row in tables[TABLE]}
        if symbol not in rows:
            raise BetInvalid(f"the wheel's symbols are {sorted(rows)}")
        return BetKind(kind, {"symbol": symbol}, rows[symbol]["bet_unit"], f"symbol:{symbol}")

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        symbol = outcome.get("symbol")
        if not isinstance(symbol, str) or not symbol:
            raise OutcomeInvalid("symbol must name the winning symbol")
        if symbol not in {row["id"] for row in tables[TABLE]}:
            raise OutcomeInvalid(f"the wheel has no symbol {symbol!r}")
        return {"symbol": symbol}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        symbol = outcome["symbol"]
        settled = []
        for bet in bets:
            row = find_row(tables[TABLE], bet.spec["symbol"])
            settled.append(pay(bet, TABLE, row, symbol=symbol) if bet.spec["symbol"] == symbol
                           else lose(bet, TABLE, row, row["cite"], symbol=symbol))
        return settled
