"""The table's previous played round, for the games whose rules look back (issue 22).

Player-banked Pai Gow caps the dealer's stake against the banker at what the
banker staked against the bank in the previous round (002:L2623); Baccara's
bank continues at the previous bank plus its winnings and passes after a
punto win (002:L2817-2819). Both read the last *settled* round before this
one (decision games.previous_round: a voided round was not played).

The previous round is final (settled or voided: a round opens only after
the last one finished), so reading it needs no stream version: nothing can
change it under the command. One statement, and only for the games that
ask for it (`looks_back(phase, config)`).
"""

from __future__ import annotations

from typing import Any

from .models import Bet, RoundState


def previous_round(table_id: str, number: int) -> dict[str, Any] | None:
    """The last settled round before `number` at the table: its id and settled bets.

    Each bet as {player_id, kind, spec, stake_minor, returned_minor, result};
    None when no round was settled before.
    """
    bets = list(Bet.objects.filter(
        round__table_id=table_id, round__state=RoundState.SETTLED,
        round__number=Bet.objects.filter(
            round__table_id=table_id, round__state=RoundState.SETTLED,
            round__number__lt=number).order_by("-round__number")
        .values("round__number")[:1])
        .order_by("id").values("round_id", "player_id", "kind", "spec", "stake_minor",
                               "returned_minor", "result"))
    if not bets:
        return None
    return {"round_id": bets[0]["round_id"],
            "bets": [{k: v for k, v in b.items() if k != "round_id"} for b in bets]}
