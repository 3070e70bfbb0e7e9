"""Random hands with antes: dead money kept apart, every cent accounted for (issue 21).

Hypothesis deals tables with a big-blind ante, with everyone anteing (both
at once too), stud games with antes and a bring-in, and now and then a
returning player who posts a missed big blind (live) with the small blind
dead, or a missed small blind (live); stacks are often short, so players go
all-in on a blind or an ante. Each hand is played to its end, some players
muck at the showdown, and then:

- the log alone says what each player put in live and dead, and that is
  what the engine's state holds;
- `settle_hand` builds the pots and the returned bet exactly as the
  reference builder below, written apart from the engine's: it peels the
  bets in all-in layers, with the dead money in the main pot and the ante
  layers of a player all-in on the ante alone;
- each player still in may win exactly what the rules allow: from every
  player as much as their own live bet, plus all the dead money (a player
  who bet nothing live: of each player's dead money as much as their own),
  more only by chips no player in matched, which join the last pot;
- under each rulebook's rake and drop, stacks + returned + awards + rake +
  drop come back to the stacks the hand started with, and no mucked hand
  wins a pot someone still holding cards was in.
"""

from __future__ import annotations

import native_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.poker.engine import (
    DEAD_POSTS,
    IllegalAction,
    Phase,
    Pot,
    Stakes,
    award_uncontested,
    claimants,
    drop_for,
    muck,
    net_pots,
    rake_for,
    settle_hand,
    start_hand,
)
from tests.casino.poker.engine.test_properties import DECK, RAKE_RULES, play_out

BOARD_GAMES = (
    ("holdem", "no_limit"),
    ("holdem", "pot_limit"),
    ("holdem", "fixed_limit"),
    ("holdem", "spread_limit"),
    ("omaha", "pot_limit"),
    ("five_card_draw", "no_limit"),
)
STUD_GAMES = (
    ("stud", "fixed_limit"),
    ("stud", "pot_limit"),
    ("razz", "fixed_limit"),
    ("stud_hilo", "fixed_limit"),
    ("soko", "pot_limit"),
)
HOLE_CARDS = {"holdem": 2, "omaha": 4, "five_card_draw": 5, "stud": 7, "razz": 7,
              "stud_hilo": 7, "soko": 5}
BOARD_CARDS = {"holdem": 5, "omaha": 5}


# --- the reference: what the rules say each player put in and may win ------------------


def put_in_from_log(state) -> tuple[dict[int, int], dict[int, int]]:
    """Seat -> live chips and seat -> dead chips, read from the hand's log alone."""
    live = {p.seat: 0 for p in state.players}
    dead = {p.seat: 0 for p in state.players}
    for record in state.log:
        (dead if record.kind in DEAD_POSTS else live)[record.seat] += record.added_minor
    return live, dead


def reference_settle(live, dead, in_hand):
    """The returned bet, the pots, and the chips no player in matched (which
    join the last pot), peeled layer by layer (see the module doc)."""
    bets = dict(live)
    returned = ()
    by_size = sorted(bets.items(), key=lambda item: -item[1])
    if len(by_size) > 1 and by_size[0][1] > by_size[1][1] and by_size[0][0] in in_hand:
        seat, excess = by_size[0][0], by_size[0][1] - by_size[1][1]
        returned = ((seat, excess),)
        bets[seat] -= excess
    pots = []
    # Ante layers: a player in who bet nothing live is all-in on dead money.
    dead_left, below = dict(dead), 0
    for cap in sorted({dead[s] for s in in_hand if bets[s] == 0 and dead[s] > 0}):
        chips = 0
        for seat in dead_left:
            give = min(dead_left[seat], cap - below)
            dead_left[seat] -= give
            chips += give
        pots.append([chips, tuple(s for s in sorted(in_hand)
                                  if bets[s] > 0 or dead[s] >= cap)])
        below = cap
    dead_rest = sum(dead_left.values())
    # Live layers, smallest all-in first; the rest of the dead money in the first.
    left = dict(bets)
    while any(left[s] > 0 for s in in_hand):
        layer = min(left[s] for s in in_hand if left[s] > 0)
        eligible = tuple(s for s in sorted(in_hand) if left[s] > 0)
        chips = 0
        for seat in left:
            give = min(left[seat], layer)
            left[seat] -= give
            chips += give
        pots.append([chips + dead_rest, eligible])
        dead_rest = 0
    unmatched = sum(left.values()) + dead_rest
    if unmatched:
        if not pots:
            pots.append([0, tuple(sorted(in_hand))])
        pots[-1][0] += unmatched
    return returned, tuple(Pot(chips, eligible) for chips, eligible in pots), unmatched


def most_winnable(seat, bets, dead) -> int:
    """What a player in may win at most: from each player no more than their own
    live bet, and the dead money (of each player's no more than their own dead
    money, for a player who bet nothing live)."""
    if bets[seat] == 0:
        return sum(min(d, dead[seat]) for d in dead.values())
    return sum(dead.values()) + sum(min(b, bets[seat]) for b in bets.values())


# --- random tables with antes ----------------------------------------------------------


@st.composite
def tables_with_antes(draw):
    stud = draw(st.booleans())
    variant, structure = draw(st.sampled_from(STUD_GAMES if stud else BOARD_GAMES))
    n = draw(st.integers(2, 7))
    seats = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n, unique=True))
    stacks = {seat: draw(st.one_of(st.integers(1, 80), st.integers(1, 4000)))
              for seat in seats}
    button = draw(st.integers(0, 9))
    if stud:
        stakes = Stakes(ante_minor=draw(st.sampled_from([5, 10, 25])),
                        bring_in_minor=draw(st.sampled_from([10, 25])),
                        small_bet_minor=50, big_bet_minor=100)
        first_seat = draw(st.sampled_from(sorted(seats)))
        return start_hand(variant, structure, stakes, stacks, button, first_seat=first_seat)
    antes = draw(st.sampled_from(["big_blind_ante", "everyone", "both"]))
    stakes = Stakes(small_blind_minor=25, big_blind_minor=50,
                    ante_minor=draw(st.sampled_from([5, 10, 25])) if antes != "big_blind_ante"
                    else 0,
                    big_blind_ante_minor=draw(st.sampled_from([25, 50, 150]))
                    if antes != "everyone" else 0,
                    small_bet_minor=100, big_bet_minor=200)
    straddles = 0
    if structure in ("no_limit", "pot_limit") and n >= 4:
        straddles = draw(st.integers(0, 1))
    missed = {}
    # Past the blinds (and a straddle): the seats a returning player may sit in.
    clockwise = sorted(s for s in seats if s > button) + sorted(s for s in seats if s <= button)
    returning = clockwise[2 + straddles:]
    if returning and draw(st.integers(0, 2)):
        missed = {draw(st.sampled_from(returning)): draw(st.sampled_from(["big", "small"]))}
    for attempt in ({"straddles": straddles, "missed_blinds": missed},
                    {"missed_blinds": missed}, {}):
        try:
            return start_hand(variant, structure, stakes, stacks, button, **attempt)
        except (IllegalAction, ValueError):
            continue  # a straddler short of the straddle, a blind who also missed one
    raise AssertionError("a plain deal is always legal")


def muck_some(data, state):
    """At the showdown, players muck one by one, in a drawn order, now and then."""
    while state.phase is Phase.SHOWDOWN and data.draw(st.integers(0, 2)) == 0:
        state = muck(state, data.draw(st.sampled_from(state.holding_seats)))
    return state


def show_down(state, pots, deck) -> dict[int, int]:
    """Award the pots: the uncontested ones as they are, the rest by native_eval
    from the cards of the players still holding them."""
    pots = claimants(pots, state.mucked)
    awards = award_uncontested([p for p in pots if len(p.eligible_seats) == 1])
    contested = [p for p in pots if len(p.eligible_seats) > 1]
    if contested:
        cards = iter(deck)
        board = [next(cards) for _ in range(BOARD_CARDS.get(state.variant, 0))] or ""
        hands = {seat: [next(cards) for _ in range(HOLE_CARDS[state.variant])]
                 for seat in state.holding_seats}
        shown = native_eval.showdown(state.variant, board, hands, contested, state.button)
        for seat, amount in shown.awards.items():
            awards[seat] = awards.get(seat, 0) + amount
    return awards


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables_with_antes(), data=st.data(), deck=st.permutations(DECK))
def test_dead_money_stays_in_the_pot_and_every_cent_is_accounted_for(table, data, deck):
    """Pots and the returned bet match the reference; nobody may win more than the
    rules allow; rake, drop, returns and awards add up to the chips put in."""
    state = muck_some(data, play_out(data, table))
    start = dict(state.starting_stacks_minor)

    live, dead = put_in_from_log(state)
    assert (state.bets_minor, state.dead_minor) == (live, dead)
    assert {s: live[s] + dead[s] for s in live} == state.contributions_minor
    assert {s: start[s] - state.stacks_minor[s] for s in start} == state.contributions_minor

    settlement = settle_hand(state)
    in_hand = set(state.live_seats)
    returned, pots, unmatched = reference_settle(live, dead, in_hand)
    assert settlement.returned_minor == returned
    assert settlement.pots == pots
    assert settlement.returned_total_minor + settlement.pots_total_minor == sum(
        live.values()) + sum(dead.values())
    # The returned bet is live money only: never more than the live bet.
    for seat, amount in settlement.returned_minor:
        assert 0 < amount <= live[seat]
    bets = dict(live)
    for seat, amount in returned:
        bets[seat] -= amount
    for seat in in_hand:
        winnable = sum(p.amount_minor for p in pots if seat in p.eligible_seats)
        due = most_winnable(seat, bets, dead)
        assert due <= winnable <= due + unmatched
        if not unmatched:
            assert winnable == due
    # The dead money is all in the main pot unless someone is all-in on an ante.
    if all(bets[s] > 0 for s in in_hand) and pots:
        assert pots[0].amount_minor >= sum(dead.values())

    players_dealt = len(state.players)
    for rule, drop_rule in RAKE_RULES:
        rake = rake_for(rule, settlement.pots, reached_flop=state.reached_flop,
                        players_dealt=players_dealt)
        drop_total, drop_per_pot = 0, (0,) * len(settlement.pots)
        if drop_rule is not None:
            drop = drop_for(drop_rule, settlement.pots, players_dealt=players_dealt,
                            betting_rounds_reached=state.betting_rounds_reached, rake=rake)
            drop_total, drop_per_pot = drop.total_minor, drop.per_pot_minor
        left = net_pots(settlement.pots, rake.per_pot_minor, drop_per_pot)
        assert sum(p.amount_minor for p in left) + rake.total_minor + drop_total == (
            settlement.pots_total_minor)
        awards = show_down(state, left, deck)
        assert sum(awards.values()) == sum(p.amount_minor for p in left)
        for seat, amount in awards.items():
            if amount and seat in state.mucked:
                # Only a pot everyone in it gave up goes to a mucked hand.
                assert any(seat in p.eligible_seats and set(p.eligible_seats)
                           <= set(state.mucked) for p in left)
        final = dict(state.stacks_minor)
        for seat, amount in [*settlement.returned_minor, *awards.items()]:
            final[seat] += amount
        assert min(final.values()) >= 0
        assert sum(final.values()) + rake.total_minor + drop_total == sum(start.values())
