"""The house-banked games' rules math: pure Python, no Django, no I/O.

One module per game family; each game settles a round's bets from the
outcome facts and the pay-table rows of the venue's rulebook, returning what
comes back to each player and the row (id and cite) that decided it.
`GAMES` is the registry the app looks games up in.
"""

from .base import Game
from .baccarat import Baccara, PuntoBanco
from .blackjack import Blackjack
from .chinese import ChinesePoker, OpenFacedChinesePoker
from .common import BetIn, BetInvalid, BetKind, OutcomeInvalid, Settled
from .dice import LuckyDice, SicBo
from .holdem import (
    DynamicPoker,
    RiversidePoker,
    TexasHoldemBonus,
    TexasHoldemBonusProgressive,
    UltimateTexasHoldem,
    UltimateTexasHoldemProgressive,
)
from .oasis import OasisStudPoker
from .online import BankerCards, DicePvp, HedgeBet
from .pai_gow import PaiGowPoker
from .red_dog import Bulldog, RedDog
from .roulette import Roulette
from .three_card import FastPoker, ThreeCardPoker
from .triple_bet import TripleBetPoker
from .wheel import MoneyWheel

GAMES: dict[str, Game] = {game.id: game for game in (
    Roulette(), LuckyDice(), SicBo(), MoneyWheel(), PuntoBanco(), ThreeCardPoker(),
    FastPoker(), Blackjack(), RedDog(), Bulldog(), Baccara(), OasisStudPoker(),
    TexasHoldemBonus(), TexasHoldemBonusProgressive(), UltimateTexasHoldem(),
    UltimateTexasHoldemProgressive(), PaiGowPoker(), TripleBetPoker(), DynamicPoker(),
    RiversidePoker(), OpenFacedChinesePoker(), ChinesePoker(), HedgeBet(), BankerCards(),
    DicePvp(),
)}

__all__ = ["GAMES", "BetIn", "BetInvalid", "BetKind", "Game", "OutcomeInvalid", "Settled"]
