"""The bad-beat hit detector: which hands of a settled showdown trigger it.

Pure: no Django; hands are ranked by `native_eval`, never here. Rules
(Veikkaus poker room, 000:L2809-3198; RAY casino 002:L1786-1810):

- Only listed variants have criteria (000:L2880-2938): Texas Hold'em, Omaha,
  Omaha 5 and Courchevel, Seven Card Stud, Sökö. Their hi-lo versions use
  the same criteria on the high hands (000:L3196-3198, decision
  `jackpot.hi_lo`). Sviten Special and every other game neither pay nor are
  charged (000:L2908-2910, 000:L2937-2938).
- At least the posted minimum of players dealt in and seated at the start
  of the round (000:L2816-2819: 5; 002:L1788: 6).
- At least two qualifying hands (000:L2821-2822); each hand is the
  player's best possible hand (000:L2842); of several, the best is the
  winner and the second best the loser (000:L2845-2846); players tied on
  either hand share its role (000:L2849-2851).
- Texas Hold'em: the losing hand must use both hole cards (000:L2898).
  Decision `jackpot.holdem_hole_cards`: the loser's best hand must use both;
  where equal-valued fives exist, one using both hole cards is enough (the
  evaluator may list an equivalent five with a board card instead).
- Category 1 is tried first; a hand meeting it also meets category 2 and is
  paid once, as category 1 (decision `jackpot.category_precedence`).
- Only the hands shown at the showdown count: a folded hand is not verified
  (000:L2839).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Mapping, Sequence

import native_eval

# native_eval variant -> the criteria key of the rulebook figures
# `jackpot.bad_beat.cat<k>.trigger.<key>` (000:L2880-2938, L3193-3198).
VARIANT_CRITERIA = {
    "holdem": "texas_holdem",
    "omaha": "omaha",
    "omaha_hilo": "omaha",
    "omaha5": "omaha5_courchevel",
    "omaha5_hilo": "omaha5_courchevel",
    "courchevel": "omaha5_courchevel",
    "stud": "seven_card_stud",
    "stud_hilo": "seven_card_stud",
    "soko": "soko",
}
HOLE_CARDS_RULE_VARIANTS = frozenset({"holdem"})

# The weakest hand meeting each threshold the rulebooks name, as five cards:
# "X or better" compares a hand's value with this hand's value.
THRESHOLD_HANDS = {
    "four_of_a_kind:aces": "As Ah Ad Ac 2s",
    "four_of_a_kind:jacks": "Js Jh Jd Jc 2s",
    "four_of_a_kind:nines": "9s 9h 9d 9c 2s",
    "four_of_a_kind:fours": "4s 4h 4d 4c 2s",
    "four_of_a_kind:deuces": "2s 2h 2d 2c 3s",
    "full_house:aces_over_kings": "As Ah Ad Ks Kh",
    "full_house:aces_over_jacks": "As Ah Ad Js Jh",
    "full_house:aces_over_any": "As Ah Ad 2s 2h",
    "full_house:fours_over_any": "4s 4h 4d 2s 2h",
    "flush_five_card:king_high": "Ks 5s 4s 3s 2s",
}


def threshold_value(criteria_key: str, threshold: str) -> int:
    """The `best_hand` value of the weakest hand meeting a threshold.

    Sökö ranks on its own scale (four-card straights and flushes), so its
    thresholds are valued by Sökö's ranking; every other listed game uses
    the standard high values.
    """
    cards = THRESHOLD_HANDS.get(threshold)
    if cards is None:
        raise ValueError(f"unknown bad-beat threshold {threshold!r}")
    if criteria_key == "soko":
        return native_eval.best_hand("soko", cards).value
    return native_eval.evaluate(cards)


@dataclass(frozen=True, slots=True)
class Criteria:
    """One category's trigger for one variant family, as values."""

    category: int
    threshold: str            # the rulebook's text, e.g. "full_house:aces_over_kings"
    value_min: int            # threshold_value(...)
    cite: str = ""


@dataclass(frozen=True, slots=True)
class ShownHand:
    seat: int
    value: int
    category: str
    cards: tuple[str, ...]
    uses_both_hole_cards: bool | None   # None where the rule does not apply


@dataclass(frozen=True, slots=True)
class Hit:
    """A triggered bad beat: roles by seat and the hands that made it."""

    category: int
    threshold: str
    winners: tuple[int, ...]
    losers: tuple[int, ...]
    others: tuple[int, ...]
    winning_hand: ShownHand
    losing_hand: ShownHand
    hands: tuple[ShownHand, ...] = field(default=())

    def roles(self) -> dict[int, str]:
        return ({s: "winner" for s in self.winners} | {s: "loser" for s in self.losers}
                | {s: "other" for s in self.others})


@dataclass(frozen=True, slots=True)
class Verdict:
    """The detector's answer: a hit, or why there is none."""

    hit: Hit | None
    reason: str            # "hit" or why not, for the record


def _cards(value: str | Sequence[str]) -> list[str]:
    return value.split() if isinstance(value, str) else list(value)


def shown_hands(variant: str, board: str | Sequence[str], hands: Mapping[int, object]
                ) -> list[ShownHand]:
    """Each shown hand's best high hand (hi-lo games: the high hand)."""
    board_cards = _cards(board) if board else []
    result = []
    for seat, hole in sorted(hands.items()):
        hole_cards = _cards(hole)  # type: ignore[arg-type]
        best = native_eval.best_hand(variant, hole_cards, board_cards)
        both = None
        if variant in HOLE_CARDS_RULE_VARIANTS:
            both = len(hole_cards) == 2 and len(board_cards) >= 3 and max(
                native_eval.evaluate(hole_cards + list(three))
                for three in combinations(board_cards, 3)) == best.value
        result.append(ShownHand(seat=int(seat), value=best.value, category=best.category,
                                cards=tuple(best.cards), uses_both_hole_cards=both))
    return result


def detect(*, variant: str, board: str | Sequence[str] | None,
           hands: Mapping[int, object] | None, players_dealt: Sequence[int],
           players_min: int, criteria: Sequence[Criteria], qualifying_hands_min: int = 2,
           holdem_loser_both_hole_cards: bool = True) -> Verdict:
    """Decide whether a settled hand triggers the bad beat, and the roles.

    `players_dealt` are the seats dealt in at the start of the round (all
    share as losers, winners or others); `criteria` holds the variant
    family's categories, tried in the given order (category 1 first).
    `qualifying_hands_min` is the rulebook's payout.min_qualifying_hands
    (000:L2821-2822, 002:L1790: two); `holdem_loser_both_hole_cards` its
    texas_holdem.loser_uses_both_hole_cards (000:L2898).
    """
    if variant not in VARIANT_CRITERIA:
        return Verdict(None, "variant_not_listed")
    if not criteria:
        return Verdict(None, "no_criteria")
    if len(players_dealt) < players_min:
        return Verdict(None, "too_few_players")
    if not hands or len(hands) < 2:
        return Verdict(None, "no_showdown")
    shown = shown_hands(variant, board or "", hands)
    for rule in criteria:
        hit = _pair(rule, shown, players_dealt, max(qualifying_hands_min, 2),
                    holdem_loser_both_hole_cards)
        if hit is not None:
            return Verdict(hit, "hit")
    return Verdict(None, "no_qualifying_pair")


def _pair(rule: Criteria, shown: list[ShownHand], players_dealt: Sequence[int],
          qualifying_min: int = 2, loser_both_hole_cards: bool = True) -> Hit | None:
    qualifying = [h for h in shown if h.value >= rule.value_min]
    if len(qualifying) < qualifying_min:
        return None
    best = max(h.value for h in qualifying)
    winners = [h for h in qualifying if h.value == best]
    # A loser must lose to a better hand and, in hold'em, play both hole cards.
    eligible = [h for h in qualifying
                if h.value < best and (h.uses_both_hole_cards is not False
                                       or not loser_both_hole_cards)]
    if not eligible:
        return None
    second = max(h.value for h in eligible)
    losers = [h for h in eligible if h.value == second]
    roles = {h.seat for h in winners} | {h.seat for h in losers}
    others = tuple(sorted(int(s) for s in players_dealt if int(s) not in roles))
    return Hit(category=rule.category, threshold=rule.threshold,
               winners=tuple(h.seat for h in winners), losers=tuple(h.seat for h in losers),
               others=others, winning_hand=winners[0], losing_hand=losers[0],
               hands=tuple(shown))
