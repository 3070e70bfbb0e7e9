"""Money conservation for any sequence of tournament operations.

For any sequence of entries, late entries, re-entries, rebuys, add-ons,
eliminations (bounties with them), disqualifications and exclusions, under
every payout structure in the rulebooks:

- what the players paid = prize pool + fees + bounties, at every step;
- at the end (finish, or an interruption) the pool and the bounties are 0
  and every cent that went in went out exactly once: to the players as
  prizes, bounties and refunded fees, or to the house as fees.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino.tournaments.engine import Config, EngineError, Out, Phase, Price, Tournament

from .rulebook_data import all_structures

STRUCTURES = all_structures()

OPS = st.lists(st.tuples(
    st.sampled_from(["late", "re_entry", "rebuy", "add_on", "eliminate", "eliminate2",
                     "disqualify", "exclude", "fix"]),
    st.integers(0, 40), st.integers(0, 40), st.integers(1, 9)), max_size=120)


def ledger_of(transfers, balances: Counter) -> None:
    for t in transfers:
        assert t.amount_minor > 0
        balances[t.source] -= t.amount_minor
        balances[t.target] += t.amount_minor


@pytest.mark.parametrize("name,structure", STRUCTURES, ids=[n for n, _ in STRUCTURES])
@settings(max_examples=40, deadline=None)
@given(entrants=st.integers(2, 40), progressive=st.booleans(), ops=OPS,
       prize=st.integers(1, 20_000), fee=st.integers(0, 3_000), bounty=st.integers(0, 5_000),
       end=st.sampled_from(["finish", "cancel"]))
def test_money_in_equals_pool_fees_bounties_and_every_cent_is_paid_once(
        name, structure, entrants, progressive, ops, prize, fee, bounty, end):
    """000 §4.3-4.5, 001 §6: conservation and a complete payout, every structure."""
    fmt = ("progressive_bounty" if progressive else "bounty") if bounty else "re_entry"
    config = Config(format=fmt, entry=Price(prize, fee, bounty), payout=structure,
                    rebuy=Price(prize), add_on=Price(prize * 2, fee), re_entry=True,
                    entries_per_player_max=4, re_entries_per_paid_field_step=2,
                    progressive_basis_points=5000 if fmt == "progressive_bounty" else 0,
                    seats_per_table=9)
    t = Tournament(config)
    balances: Counter = Counter()
    ledger_of(t.open_registration(), balances)
    field_max = structure.brackets[-1].field_max
    players = [f"p{i}" for i in range(min(entrants, field_max or entrants))]
    for p in players:
        ledger_of(t.enter(p), balances)
    ledger_of(t.start(), balances)
    late = iter(f"late{i}" for i in range(1000))
    for op, a, b, stack in ops:
        everyone = list(t.players)
        alive = t.alive
        try:
            if op == "late":
                ledger_of(t.enter(next(late), "late_entry"), balances)
            elif op == "re_entry":
                ledger_of(t.enter(everyone[a % len(everyone)], "re_entry"), balances)
            elif op == "rebuy":
                ledger_of(t.rebuy(alive[a % len(alive)]), balances)
            elif op == "add_on":
                ledger_of(t.add_on(alive[a % len(alive)]), balances)
            elif op in ("eliminate", "eliminate2"):
                outs = [alive[a % len(alive)]]
                if op == "eliminate2" and len(alive) > 2:
                    outs.append(alive[(a + 1) % len(alive)])
                takers = [p for p in alive if p not in outs] or ["nobody"]
                eliminators = {o: takers[b % len(takers)::max(1, stack)][:2] for o in outs}
                ledger_of(t.eliminate([Out(o, stack * (i + 1), f"t{b % 2}")
                                       for i, o in enumerate(outs)], eliminators), balances)
            elif op == "disqualify":
                ledger_of(t.disqualify(everyone[a % len(everyone)]), balances)
            elif op == "exclude":
                ledger_of(t.exclude(alive[a % len(alive)]), balances)
            elif op == "fix":
                ledger_of(t.fix_pool(), balances)
        except EngineError as refused:
            assert refused.code != "payout_mismatch"  # a refused step moves nothing
        paid_in = -sum(v for k, v in balances.items() if k.startswith("player:"))
        assert paid_in == t.pool_minor + t.fees_minor + t.bounties_minor
        assert (balances["pool"], balances["fees"], balances["bounties"]) == (
            t.pool_minor, t.fees_minor, t.bounties_minor)
    if end == "finish":
        if t.phase == Phase.RUNNING:
            ledger_of(t.fix_pool(), balances)
        while len(t.alive) > 1:
            alive = t.alive
            ledger_of(t.eliminate([Out(alive[-1], 1)], {alive[-1]: [alive[0]]}), balances)
        ledger_of(t.finish(), balances)
        assert t.phase == Phase.FINISHED
        placed = [p for p, s in t.players.items() if not s.disqualified]
        assert sorted(t.payout.places) == sorted(placed)
    else:
        ledger_of(t.cancel({p: 100 + i for i, p in enumerate(t.alive)}), balances)
        assert t.phase == Phase.INTERRUPTED
    assert balances["pool"] == 0 and balances["bounties"] == 0
    assert t.pool_minor == t.bounties_minor == 0
    paid_in_total = sum(p.paid_prize_minor + p.paid_fee_minor + p.paid_bounty_minor
                        for p in t.players.values())
    players_net = sum(v for k, v in balances.items() if k.startswith("player:"))
    assert players_net + balances["fees"] == 0
    assert balances["fees"] == t.fees_minor
    assert -players_net <= paid_in_total
    assert all(s.bounty_minor == 0 for s in t.players.values())
