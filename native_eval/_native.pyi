"""Type stub for the Rust extension module native_eval._native.

_Cards are two-character strings: a rank from ``23456789TJQKA`` then a suit from
``shdc`` (``"Ah"``, ``"Td"``). Every function taking cards accepts a sequence of
card strings or one space-separated string. In batches a card is the code
``4 * rank + suit`` (rank 0..12 for 2..A, suit 0..3 for s, h, d, c).

Invalid input (an unknown card, a card twice in one call, the wrong number of
cards for the variant, an unknown variant, a malformed pot or hand, an argument
of the wrong shape) raises ``ValueError`` naming the problem.
"""

from array import array
from collections.abc import Iterable, Mapping, Sequence
from typing import final

from typing_extensions import Buffer, TypeAlias

_Cards: TypeAlias = str | Sequence[str]
"""One space-separated string (``"Ah Kd 7c"``) or a sequence of card strings."""

__all__ = [
    "Hand",
    "PotResult",
    "Showdown",
    "VARIANTS",
    "__version__",
    "best_hand",
    "build_profile",
    "card_codes",
    "card_names",
    "category",
    "evaluate",
    "evaluate_batch",
    "evaluate_front",
    "showdown",
]

__version__: str
"""Version of the native_eval crate."""

build_profile: str
"""``"release"`` or ``"debug"``: the Cargo profile the extension was built with."""

VARIANTS: tuple[str, ...]
"""Every variant id accepted by ``best_hand`` and ``showdown``."""

def evaluate(cards: _Cards) -> int:
    """Value of the best five-card high hand from 5, 6 or 7 cards.

    Values run from 1 (7-5-4-3-2 offsuit) to 7462 (royal flush); higher is
    better and equal values tie. A-2-3-4-5 is the lowest straight; there is no
    wrap-around.
    """

def evaluate_front(cards: _Cards) -> int:
    """Value of a three-card Chinese poker front hand.

    Ranked by high card, pair and three of a kind only: three-card straights
    and flushes do not count, so three aces are the best front. The value is
    ``category << 12 | ranks`` (category 0 high card, 1 pair, 2 three of a
    kind; ranks four bits each, 0 = deuce ... 12 = ace, the strongest group
    first); higher is better and equal values tie. Not on ``evaluate``'s scale.
    """

def category(value: int) -> str:
    """Category name of an ``evaluate`` value.

    One of ``high_card``, ``pair``, ``two_pair``, ``three_of_a_kind``,
    ``straight``, ``flush``, ``full_house``, ``four_of_a_kind``,
    ``straight_flush``. Raises ``ValueError`` outside 1..7462.
    """

def evaluate_batch(codes: Buffer, hand_size: int) -> array[int]:
    """Values (as ``evaluate``) of many hands, as an ``array('H')``.

    ``codes`` is any bytes-like buffer of card codes (``4 * rank + suit``),
    ``hand_size`` consecutive codes per hand, ``hand_size`` 5, 6 or 7. Every
    hand is validated (codes below 52, no card twice within a hand). The GIL is
    released while the hands are evaluated.
    """

def card_codes(cards: _Cards) -> bytes:
    """Batch codes of the given cards, in order (for building batches)."""

def card_names(codes: Buffer) -> list[str]:
    """Card strings of a bytes-like buffer of card codes."""

@final
class Hand:
    """A player's best hand in one variant (from ``best_hand``)."""

    @property
    def value(self) -> int:
        """Strength of the hand; higher is better, comparable within one variant.

        For standard high hands this is the ``evaluate`` value; for ``razz`` it
        is the low value (only the low decides); ``soko`` and ``three_card``
        use their own scales.
        """

    @property
    def category(self) -> str:
        """Category name, as ``category``; also ``four_straight`` and
        ``four_flush`` in ``soko``; for ``razz`` the low's pair structure."""

    @property
    def cards(self) -> list[str]:
        """The cards of the hand (five, or three in ``three_card``), biggest group first."""

    @property
    def low(self) -> int | None:
        """Ace-to-five low value (higher is the better low), or None when the
        variant has no low or no low qualifies (eight-or-better)."""

    @property
    def low_cards(self) -> list[str] | None:
        """The five cards of the low, highest first, or None without a low."""

    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class PotResult:
    """How one pot was awarded.

    "High" and "low" halves: in hi/lo games the high and low halves; in
    high-only games the whole pot is the high half; in ``razz`` the whole pot
    is the low half; in ``double_flop`` high is board 1 and low is board 2; in
    ``sviten`` high is the own-five-card half and low the 2 + 3 half.
    """

    @property
    def amount(self) -> int:
        """Chips (minor units) in the pot."""

    @property
    def eligible(self) -> list[int]:
        """Seats eligible for the pot, as given."""

    @property
    def high_winners(self) -> list[int]:
        """Seats that won the high half (sorted)."""

    @property
    def low_winners(self) -> list[int]:
        """Seats that won the low half (sorted); empty when there is no low half."""

    @property
    def high_shares(self) -> dict[int, int]:
        """Seat -> chips received from the high half."""

    @property
    def low_shares(self) -> dict[int, int]:
        """Seat -> chips received from the low half."""

    @property
    def awards(self) -> dict[int, int]:
        """Seat -> chips received from this pot (winners only); sums to ``amount``."""

@final
class Showdown:
    """The result of ``showdown``."""

    @property
    def awards(self) -> dict[int, int]:
        """Seat -> total chips won (seats that won something); sums exactly to the pots' total."""

    @property
    def pots(self) -> list[PotResult]:
        """Per pot, in the order given (main pot first)."""

def best_hand(variant: str, hole: _Cards, board: _Cards = "") -> Hand:
    """The best hand of one player in ``variant``.

    ``hole`` is the player's own cards (for stud games all of them), ``board``
    the community cards: 3-5 cards in board games (flop, turn or river), empty
    for stud, draw, ``soko`` and ``three_card`` (stud also accepts 1-2
    community cards from a deck shortage). ``double_flop`` takes one board per
    call. ``sviten`` gives the own-five-card hand with no board and the
    exactly-2 + 3 hand with a board.
    """

def showdown(
    variant: str,
    board: _Cards | Sequence[_Cards],
    hands: Mapping[int, _Cards],
    pots: Iterable[tuple[int, Iterable[int]]],
    button: int,
) -> Showdown:
    """Resolve a showdown: who wins each pot and exactly what each seat receives.

    ``board`` is the community cards (five in board games, ``""`` for stud and
    draw games, a pair of boards for ``double_flop``); ``hands`` maps seat to
    that player's cards; ``pots`` lists ``(amount_minor, eligible_seats)`` with
    the main pot first; ``button`` is the button's seat (clockwise is
    increasing seat number, wrapping). Each pot is split on its own; odd chips
    follow the rules documented in the crate's ``showdown`` module.
    """
