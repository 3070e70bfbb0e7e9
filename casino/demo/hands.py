"""Hand histories for the demo's poker tables, drawn from a seeded RNG (pure).

No reads and no writes: each function returns what an electronic table
would send as one complete hand history (`casino.poker.commands.record_hand`:
the deal, every step, and the showdown or the void). The betting is the
poker engine's (`casino.poker.engine`): every action is drawn from
`engine.legal_actions` for the state the engine computed, so the server,
replaying the same history through the same engine, accepts it. The cards
come from a shuffled deck; the claimed awards are what `native_eval.showdown`
says, from the pots after the uncalled bet, the rake and the jackpot drop
(`settle_hand`, `rake_for`, `drop_for`, `net_pots`), so the hand settles,
unless the demo asks for a wrong claim (a disputed showdown).

Stud (000:L2170-2213): the lowest door card brings in; on later streets the
dealer names the player whose upcards show the best poker combination
(pairs and high cards; four-card straights and flushes do not count).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import native_eval

from casino.poker import engine
from casino.poker.commands import Deal, Showdown, Step

RANKS = "23456789TJQKA"
# Ties between equal door cards are broken by suit, clubs lowest (the usual
# bring-in order).
SUITS = "cdhs"
DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)
HOLE_CARDS = {"holdem": 2, "omaha": 4}
STUD_CARDS = 7
OPEN_STREET = "open_street"
# A hand has at most this many steps (12 players x 4 streets x capped raises
# is far below it); a loop that would exceed it is a bug in this module.
STEPS_MAX = 400


@dataclass(frozen=True, slots=True)
class Policy:
    """How often the random player folds, raises, goes all-in (per decision)."""

    fold: float = 0.35
    call: float = 0.85       # of the decisions not folded: call below, raise above
    check: float = 0.70      # unopened: check below, bet above
    all_in: float = 0.03


@dataclass(frozen=True, slots=True)
class History:
    """One hand as the table sends it, and what the demo learnt playing it."""

    deal: Deal
    steps: tuple[Step, ...]
    showdown: Showdown | None = None
    void_reason: str | None = None
    awards_verified: Mapping[int, int] | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def disputed(self) -> bool:
        return (self.showdown is not None and self.awards_verified is not None
                and dict(self.showdown.claimed_awards) != dict(self.awards_verified))


@dataclass(frozen=True, slots=True)
class TableRules:
    """What the demo needs of a table to play it: variant, stakes, rake and drop."""

    variant: str
    structure: str
    stakes: engine.Stakes
    rake: Any                 # engine.RakeRule
    drop: Any | None          # engine.DropRule

    @property
    def stud(self) -> bool:
        return engine.family_of(self.variant) is engine.Family.STUD

    @property
    def opening_unit_minor(self) -> int:
        """The big blind; in stud without blinds, the small bet (000:L541-543)."""
        return self.stakes.big_blind_minor or self.stakes.small_unit_minor


def random_hand(rng: random.Random, rules: TableRules, stacks: Mapping[int, int],
                button: int, *, policy: Policy = Policy(), dispute: bool = False) -> History:
    """Deal and play one hand with random legal actions to its end.

    `dispute`: the controller claims the whole pot for one player although
    the evaluator says otherwise (a disputed showdown); if the hand does not
    reach a showdown the claim cannot be wrong and the history is ordinary.
    """
    deck = list(DECK)
    rng.shuffle(deck)
    seats = sorted(seat for seat, stack in stacks.items() if stack > 0)
    cards, board = _deal_cards(deck, rules, seats)
    first_seat = _bring_in_seat(cards) if rules.stud else None
    deal = Deal(button=button, first_seat=first_seat)
    state = engine.start_hand(rules.variant, rules.structure, rules.stakes,
                              {seat: stacks[seat] for seat in seats}, button,
                              first_seat=first_seat)

    def choose(state: engine.HandState) -> tuple[str, int | None]:
        return _random_action(rng, engine.legal_actions(state), policy)

    state, steps = _play(state, choose, cards)
    return _finish(rules, state, deal, steps, cards, board, dispute=dispute,
                   facts={"all_in": any(s.kind == "all_in" for s in steps)})


def scripted_showdown(rules: TableRules, stacks: Mapping[int, int], button: int, *,
                      cards: Mapping[int, str], board: str = "",
                      dispute: bool = False) -> History:
    """A hand in which the players in `cards` check and call to the showdown.

    Everyone else dealt in folds at their first turn. Used for the crafted
    hands (the bad beat, the disputed showdown), whose cards are chosen.
    """
    seats = sorted(seat for seat, stack in stacks.items() if stack > 0)
    holding = {seat: text.split() for seat, text in cards.items()}
    if not set(holding) <= set(seats):
        raise ValueError("every scripted player must be dealt in")
    first_seat = _bring_in_seat(holding) if rules.stud else None
    deal = Deal(button=button, first_seat=first_seat)
    state = engine.start_hand(rules.variant, rules.structure, rules.stakes,
                              {seat: stacks[seat] for seat in seats}, button,
                              first_seat=first_seat)

    def choose(state: engine.HandState) -> tuple[str, int | None]:
        legal = engine.legal_actions(state)
        if legal.bring_in_to_minor is not None and legal.call_to_minor is None:
            return "bring_in", None
        if legal.seat not in holding:
            return ("fold", None) if legal.fold else ("call", None)
        return ("call", None) if legal.call_to_minor is not None else ("check", None)

    state, steps = _play(state, choose, holding)
    if state.phase is not engine.Phase.SHOWDOWN:
        raise ValueError("the scripted hand did not reach a showdown")
    return _finish(rules, state, deal, steps, holding, board.split(), dispute=dispute,
                   facts={"scripted": True})


def misdeal(button: int, *, reason: str) -> History:
    """A hand voided at the deal (a card exposed, the wrong number of cards):
    every blind back, stacks as before (000:L1093-1110)."""
    return History(deal=Deal(button=button), steps=(), void_reason=reason)


# ---------------------------------------------------------------------------


def _deal_cards(deck: list[str], rules: TableRules, seats: Sequence[int]
                ) -> tuple[dict[int, list[str]], list[str]]:
    if rules.stud:
        if len(seats) * STUD_CARDS > len(deck):
            raise ValueError("too many stud players for one deck")
        return {seat: [deck.pop() for _ in range(STUD_CARDS)] for seat in seats}, []
    holes = HOLE_CARDS[rules.variant]
    cards = {seat: [deck.pop() for _ in range(holes)] for seat in seats}
    return cards, [deck.pop() for _ in range(5)]


def _card_key(card: str) -> tuple[int, int]:
    return RANKS.index(card[0]), SUITS.index(card[1])


def _bring_in_seat(cards: Mapping[int, Sequence[str]]) -> int:
    """The lowest door card (the third card, the first upcard) brings in."""
    return min(cards, key=lambda seat: _card_key(cards[seat][2]))


def _showing(upcards: Sequence[str]) -> tuple:
    """Rank of a stud board's upcards: sets before pairs before high cards."""
    counts = Counter(card[0] for card in upcards)
    return tuple(sorted(((n, RANKS.index(rank)) for rank, n in counts.items()),
                        reverse=True))


def _first_on_street(state: engine.HandState, cards: Mapping[int, Sequence[str]]) -> int:
    """The live player whose upcards show best opens a later stud street."""
    upcards = min(state.street_index + 1, 4)  # third street shows 1, sixth 4
    live = [seat for seat in state.live_seats if seat in cards]
    return max(live, key=lambda seat: (_showing(cards[seat][2:2 + upcards]), -seat))


def _play(state: engine.HandState, choose, cards: Mapping[int, Sequence[str]]
          ) -> tuple[engine.HandState, list[Step]]:
    steps: list[Step] = []
    while not state.is_over:
        if len(steps) >= STEPS_MAX:
            raise RuntimeError(f"a hand ran past {STEPS_MAX} steps")
        if state.phase is engine.Phase.AWAITING_STREET:
            seat = _first_on_street(state, cards)
            state = engine.open_street(state, first_seat=seat)
            steps.append(Step(seat, OPEN_STREET))
            continue
        seat = state.to_act
        kind, amount = choose(state)
        state = engine.apply(state, engine.Action(seat, kind, amount))
        steps.append(Step(seat, kind, amount))
    return state, steps


def _random_action(rng: random.Random, legal: engine.LegalActions, policy: Policy
                   ) -> tuple[str, int | None]:
    """A random legal action: mostly calls and checks, some bets, raises, all-ins."""
    r = rng.random()
    if legal.bring_in_to_minor is not None and legal.call_to_minor is None:
        if legal.bet_min_minor is not None and r < 0.2:  # complete the bring-in
            return "bet", _amount(rng, legal.bet_min_minor, legal.bet_max_minor,
                                  legal.bet_choices_minor)
        return "bring_in", None
    if legal.all_in_kind is not None and r < policy.all_in:
        return "all_in", None
    if legal.call_to_minor is not None:
        if legal.fold and r < policy.fold:
            return "fold", None
        if legal.raise_min_minor is None or r < policy.call:
            return "call", None
        return "raise", _amount(rng, legal.raise_min_minor, legal.raise_max_minor,
                                legal.raise_choices_minor)
    if legal.bet_min_minor is None or r < policy.check:
        return "check", None
    return "bet", _amount(rng, legal.bet_min_minor, legal.bet_max_minor,
                          legal.bet_choices_minor)


def _amount(rng: random.Random, low: int, high: int, choices: Sequence[int] | None) -> int:
    """Mostly small bets, now and then one near the maximum (limit: a legal choice)."""
    if choices:
        return rng.choice(list(choices))
    return low + int((high - low) * rng.random() ** 3)


def _finish(rules: TableRules, state: engine.HandState, deal: Deal, steps: list[Step],
            cards: Mapping[int, Sequence[str]], board: Sequence[str], *, dispute: bool,
            facts: dict[str, Any]) -> History:
    """Close the history: nothing more after a fold-out; else the verified showdown."""
    if state.phase is engine.Phase.COMPLETE:
        return History(deal, tuple(steps), facts={**facts, "showdown": False})
    settlement = engine.settle_hand(state)
    rake = engine.rake_for(rules.rake, settlement.pots, reached_flop=state.reached_flop,
                           players_dealt=len(state.players))
    if rules.drop is not None:
        drop = engine.drop_for(rules.drop, settlement.pots, players_dealt=len(state.players),
                               betting_rounds_reached=state.betting_rounds_reached,
                               rake=rake).per_pot_minor
    else:
        drop = tuple(0 for _ in settlement.pots)
    pots = engine.net_pots(settlement.pots, rake.per_pot_minor, drop)
    shown = {seat: " ".join(cards[seat]) for seat in state.live_seats}
    board_text = " ".join(board)
    verified = native_eval.showdown(rules.variant, board_text, shown,
                                    [(pot.amount_minor, pot.eligible_seats) for pot in pots],
                                    state.button)
    awards = {seat: amount for seat, amount in verified.awards.items() if amount}
    claimed = dict(awards)
    if dispute:  # the dealer pushes the whole pot to the wrong player
        total = sum(awards.values())
        wrong = next(seat for seat in state.live_seats if awards.get(seat, 0) != total)
        claimed = {wrong: total}
    return History(deal, tuple(steps), Showdown(board_text, shown, claimed),
                   awards_verified=awards,
                   facts={**facts, "showdown": True, "side_pots": len(pots) > 1})
