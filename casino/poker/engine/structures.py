"""Betting structures, stakes and each variant's betting rounds.

Plain data the betting state machine reads: which structure a table plays
(fixed, spread, pot or no limit), the forced bets and betting units of its
stakes, and the named betting rounds ("streets") of each variant with the
betting unit each uses in limit games. Nothing here decides an action; see
`betting.py`. Money is integer minor units (cents).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class BettingStructure(StrEnum):
    """How big a bet or raise may be (000:L1250-1395; 002:L1748-1760)."""

    FIXED_LIMIT = "fixed_limit"
    SPREAD_LIMIT = "spread_limit"
    POT_LIMIT = "pot_limit"
    NO_LIMIT = "no_limit"

    @property
    def is_limit(self) -> bool:
        """Fixed and spread limit: bets have a ceiling per street and raises a cap."""
        return self in (BettingStructure.FIXED_LIMIT, BettingStructure.SPREAD_LIMIT)


class Family(StrEnum):
    """How a variant orders its betting: by the button, or by the upcards."""

    BOARD = "board"  # blinds, button order; hold'em and omaha family
    STUD = "stud"    # antes and bring-in, first to act decided by the upcards
    DRAW = "draw"    # blinds, button order, a draw between the rounds


@dataclass(frozen=True, slots=True)
class Street:
    """One betting round of a variant.

    `big_bet` says whether fixed and spread limit games use the big betting
    unit on this street (000:L1250-1253; stud 000:L2406-2417).
    """

    name: str
    big_bet: bool


_BOARD_STREETS = (
    Street("preflop", False),
    Street("flop", False),
    Street("turn", True),
    Street("river", True),
)
# Seven card stud, razz and stud hi-lo: five rounds, the big unit from fifth
# street on (000:L2133-2149, raise chart 000:L2406-2417).
_STUD_STREETS = (
    Street("third_street", False),
    Street("fourth_street", False),
    Street("fifth_street", True),
    Street("sixth_street", True),
    Street("seventh_street", True),
)
# Sökö: one hole card and one upcard, then three more upcards, a round after
# each deal (000:L2051-2067). Decision: in the rare limit game the big unit
# starts on the third round, as in seven card stud's third round; the seed
# gives Sökö as pot limit and names no units.
_SOKO_STREETS = (
    Street("second_card", False),
    Street("third_card", False),
    Street("fourth_card", True),
    Street("fifth_card", True),
)
# Five card draw: a round before and a round after the draw; the big unit
# after it (the usual split of a two-round limit game; no seed line).
_DRAW_STREETS = (
    Street("before_draw", False),
    Street("after_draw", True),
)

_FAMILY: dict[str, Family] = {
    # Board games with four betting rounds. Courchevel, Sviten Special, the
    # pineapples, Helsinki hold'em and double flop deal or discard
    # differently but bet in four rounds (000:L1691-2034).
    "holdem": Family.BOARD,
    "pineapple": Family.BOARD,
    "crazy_pineapple": Family.BOARD,
    "helsinki_holdem": Family.BOARD,
    "omaha": Family.BOARD,
    "omaha5": Family.BOARD,
    "courchevel": Family.BOARD,
    "omaha_hilo": Family.BOARD,
    "omaha5_hilo": Family.BOARD,
    "double_flop": Family.BOARD,
    "sviten": Family.BOARD,
    "stud": Family.STUD,
    "stud_hilo": Family.STUD,
    "razz": Family.STUD,
    "soko": Family.STUD,
    "five_card_draw": Family.DRAW,
}

VARIANTS: tuple[str, ...] = tuple(_FAMILY)
"""Variants the betting engine plays (native_eval ids; `three_card` is house-banked)."""


def family_of(variant: str) -> Family:
    """Return a variant's betting family; ValueError if the engine does not play it."""
    try:
        return _FAMILY[variant]
    except KeyError:
        raise ValueError(
            f"unknown poker variant {variant!r}; one of {VARIANTS}"
        ) from None


def streets_for(variant: str) -> tuple[Street, ...]:
    """Return the betting rounds of a variant in order."""
    family = family_of(variant)
    if family is Family.BOARD:
        return _BOARD_STREETS
    if family is Family.DRAW:
        return _DRAW_STREETS
    return _SOKO_STREETS if variant == "soko" else _STUD_STREETS


@dataclass(frozen=True, slots=True)
class Stakes:
    """The forced bets and betting units of a table, in minor units.

    Blinds: the small and big blind (000:L920-924). Antes: every player's dead
    ante (000:L932-934) and the big-blind ante the big blind posts for the
    table (000:L939-941). Stud: the bring-in (000:L952-954, L2170-2174).

    Limit games bet in units: `small_bet_minor` on the early streets,
    `big_bet_minor` later. With blinds the big blind is the small unit
    (000:L921-923), so 0 means "the big blind" and a zero big bet means twice
    the small one (000:L1250-1253). In spread limit the units are the largest
    bet or raise allowed on the street. `raises_per_round_max` is the limit cap
    after the opening bet: bet + 3 raises (000:L1253-1255, L2177-2181).
    """

    small_blind_minor: int = 0
    big_blind_minor: int = 0
    ante_minor: int = 0
    big_blind_ante_minor: int = 0
    bring_in_minor: int = 0
    small_bet_minor: int = 0
    big_bet_minor: int = 0
    raises_per_round_max: int = 3

    def __post_init__(self) -> None:
        for name in (
            "small_blind_minor", "big_blind_minor", "ante_minor",
            "big_blind_ante_minor", "bring_in_minor", "small_bet_minor",
            "big_bet_minor", "raises_per_round_max",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"Stakes.{name} must be an int, got {value!r}")
            if value < 0:
                raise ValueError(f"Stakes.{name} must not be negative, got {value}")
        if self.small_blind_minor > self.big_blind_minor:
            raise ValueError("Stakes: the small blind must not exceed the big blind")
        if self.big_blind_ante_minor and not self.big_blind_minor:
            raise ValueError("Stakes: a big-blind ante needs a big blind")
        if self.big_blind_minor and self.bring_in_minor:
            raise ValueError("Stakes: a game has blinds or a bring-in, not both")

    @property
    def small_unit_minor(self) -> int:
        """The limit unit of the early streets."""
        return self.small_bet_minor or self.big_blind_minor or self.bring_in_minor * 2

    @property
    def big_unit_minor(self) -> int:
        """The limit unit of the late streets."""
        return self.big_bet_minor or 2 * self.small_unit_minor

    @property
    def opening_bet_minor(self) -> int:
        """Minimum bet in pot and no limit: the big blind or the opening forced bet.

        000:L1293-1295; without blinds the bring-in, else the ante (Sökö and
        pot-limit stud, 000:L2045-2048, L2183-2186).
        """
        return self.big_blind_minor or self.bring_in_minor or self.ante_minor
