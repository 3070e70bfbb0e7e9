"""Fold a tournament's events into the engine's state, and store that state (pure).

`fold` replays a stream through the engine; `dump_state` and `load_state`
turn the state into the JSON of its snapshot row (`TournamentSnapshot`) and
back. The projection folds each event into the snapshot's state and writes
it back; the commands decide from the snapshot, so both see exactly what
the engine saw, and a property test (tests/casino/tournaments/
test_snapshots.py) proves the snapshot equals `fold` of the stream.

The JSON holds integers for money and keeps every order the engine may
depend on (players by registration, a deal's amounts, places and prizes):
PostgreSQL's jsonb does not keep an object's key order, so mappings are
stored as lists of [key, value] pairs. The configuration is not in it: it is
the tournament row's `config`, frozen when the tournament was announced.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from . import events as ev
from .engine import Config, EliminationRules, Out, PayoutStructure, Phase, Price, Tournament
from .engine.cancellation import CancellationTerms
from .engine.tournament import Payout, Player


def config_from(data: Mapping[str, Any]) -> Config:
    payout = data["payout"]
    return Config(
        format=data["format"],
        entry=Price.from_dict(data["entry"]),
        payout=PayoutStructure.from_rows(payout["key"], payout["rows"]),
        rebuy=Price.from_dict(data.get("rebuy")),
        add_on=Price.from_dict(data.get("add_on")),
        re_entry=data.get("re_entry", False),
        entries_per_player_max=data.get("entries_per_player_max", 1),
        rebuys_per_player_max=data.get("rebuys_per_player_max"),
        re_entries_per_paid_field_step=data.get("re_entries_per_paid_field_step"),
        progressive_basis_points=data.get("progressive_basis_points", 0),
        min_entrants=data.get("min_entrants", 2),
        seats_per_table=data.get("seats_per_table", 9),
        # Announced before the rule was applied (000:L3240): no minimum.
        min_players_per_table=data.get("min_players_per_table", 0),
        elimination=EliminationRules(**data.get("elimination", {})),
        satellite_seat_minor=data.get("satellite_seat_minor"),
        # Announced before the token rule (000:L3361-3364): split in cents.
        bounty_split=data.get("bounty_split", "cents"),
        prizes_paid_at=data.get("prizes_paid_at", "end"),
        # The rulebook's interruption shares (None: the online policy).
        cancellation=(CancellationTerms.from_figures(data["cancellation"])
                      if data.get("cancellation") else None),
        unregistration=data.get("unregistration", "not_offered"),
        guaranteed_pool_minor=data.get("guaranteed_pool_minor", 0),
        hexapro_players=data.get("hexapro_players", 3),
        reserved_basis_points=data.get("reserved_basis_points", 0),
        reserve_added_minor=data.get("reserve_added_minor", 0),
        deals_allowed=data.get("deals_allowed", True),
        # Special prizes in the structure (000:L3410-3413); none before them.
        special_prizes=tuple((row["name"], row["basis_points"])
                             for row in data.get("special_prizes") or ()),
    )


def outs_from(rows: Iterable[Mapping[str, Any]]) -> list[Out]:
    return [Out(r["player_id"], r.get("stack", 0), r.get("table", ""), r.get("tie_break"))
            for r in rows]


def apply(t: Tournament, event_type: str, p: Mapping[str, Any]):
    """Apply one recorded event to the state; return the engine's transfers."""
    if event_type == ev.REGISTRATION_OPENED:
        return t.open_registration()
    if event_type == ev.PLAYER_ENTERED:
        return t.enter(p["player_id"], p["kind"], p.get("paid_by"))
    if event_type == ev.PLAYER_UNREGISTERED:
        return t.unregister(p["player_id"], p.get("approved_by"))
    if event_type == ev.REBUY_PURCHASED:
        return t.rebuy(p["player_id"])
    if event_type == ev.ADD_ON_PURCHASED:
        return t.add_on(p["player_id"])
    if event_type == ev.STARTED:
        return t.start()
    if event_type == ev.PRIZE_POOL_FIXED:
        return t.fix_pool()
    if event_type == ev.PRIZE_POOL_DRAWN:
        return t.draw_prize_pool(p["prize_pool_minor"], p["shares_basis_points"])
    if event_type == ev.SPECIAL_PRIZE_AWARDED:
        return t.award_special_prize(p["prize"], p["player_id"])
    if event_type == ev.PLAYERS_ELIMINATED:
        return t.eliminate(outs_from(p["outs"]), p["eliminators"])
    if event_type == ev.PLAYER_DISQUALIFIED:
        return t.disqualify(p["player_id"])
    if event_type == ev.PLAYER_EXCLUDED:
        return t.exclude(p["player_id"])
    if event_type == ev.DEAL_RECORDED:
        return t.record_deal(p["amounts_minor"], p["consents"], p["pay_by_table"])
    if event_type == ev.FINISHED:
        return t.finish(p.get("final_stacks") or None)
    if event_type == ev.CANCELLED:
        return t.cancel(p.get("stacks") or None)
    return []


def fold(recorded: Iterable[tuple[str, Mapping[str, Any]]]) -> Tournament | None:
    """Rebuild the state from (type, payload) pairs in stream order."""
    t: Tournament | None = None
    for event_type, payload in recorded:
        if event_type == ev.ANNOUNCED:
            t = Tournament(config_from(payload["config"]))
        elif t is not None:
            apply(t, event_type, payload)
    return t


def _pairs(mapping: Mapping[str, int] | None) -> list[list[Any]] | None:
    return None if mapping is None else [[key, value] for key, value in mapping.items()]


def _out(out: Out) -> dict[str, Any]:
    return {"player_id": out.player_id, "stack_minor": out.stack_minor, "table": out.table,
            "tie_break": out.tie_break}


def dump_state(t: Tournament) -> dict[str, Any]:
    """The engine's state as JSON-safe data (everything but the configuration)."""
    payout = t.payout
    return {
        "phase": str(t.phase),
        "players": [{
            "player_id": p.player_id, "entries": p.entries, "re_entries": p.re_entries,
            "rebuys": p.rebuys, "add_ons": p.add_ons, "paid_prize_minor": p.paid_prize_minor,
            "paid_fee_minor": p.paid_fee_minor, "paid_bounty_minor": p.paid_bounty_minor,
            "bounty_minor": p.bounty_minor, "alive": p.alive, "disqualified": p.disqualified,
            "excluded": p.excluded, "purchases": [price.as_dict() for price in p.purchases],
            "paid_by": p.paid_by,
        } for p in t.players.values()],
        "groups": [[_out(out) for out in group] for group in t.groups],
        "pool_minor": t.pool_minor,
        "fees_minor": t.fees_minor,
        "bounties_minor": t.bounties_minor,
        "entries": t.entries,
        "re_entries": t.re_entries,
        "fixed_field": t.fixed_field,
        "deal": _pairs(t.deal),
        "payout": None if payout is None else {
            "prizes_minor": _pairs(payout.prizes_minor), "places": _pairs(payout.places),
            "bounties_minor": _pairs(payout.bounties_minor),
            "fees_refunded_minor": _pairs(payout.fees_refunded_minor),
            "seats": list(payout.seats), "method": payout.method},
        "drawn_shares": None if t.drawn_shares is None else list(t.drawn_shares),
        "house_funded_minor": t.house_funded_minor,
        "bounties_won": _pairs(t.bounties_won),
        "prizes_paid": _pairs(t.prizes_paid),
        "special_minor": _pairs(t.special_minor),
        "special_awarded": _pairs(t.special_awarded),
        "special_released": t.special_released,
    }


def load_state(config: Mapping[str, Any], data: Mapping[str, Any]) -> Tournament:
    """The engine's state from a tournament's configuration and `dump_state`'s data."""
    t = Tournament(config_from(config))
    t.phase = Phase(data["phase"])
    t.players = {}
    for row in data["players"]:
        fields = {k: v for k, v in row.items() if k != "purchases"}
        t.players[row["player_id"]] = Player(
            **fields, purchases=[Price.from_dict(price) for price in row["purchases"]])
    t.groups = [[Out(o["player_id"], o["stack_minor"], o["table"], o["tie_break"])
                 for o in group] for group in data["groups"]]
    t.pool_minor = data["pool_minor"]
    t.fees_minor = data["fees_minor"]
    t.bounties_minor = data["bounties_minor"]
    t.entries = data["entries"]
    t.re_entries = data["re_entries"]
    t.fixed_field = data["fixed_field"]
    t.deal = None if data["deal"] is None else dict(data["deal"])
    payout = data["payout"]
    t.payout = None if payout is None else Payout(
        prizes_minor=dict(payout["prizes_minor"]), places=dict(payout["places"]),
        bounties_minor=dict(payout["bounties_minor"]),
        fees_refunded_minor=dict(payout["fees_refunded_minor"]),
        seats=tuple(payout["seats"]), method=payout["method"])
    t.drawn_shares = None if data["drawn_shares"] is None else tuple(data["drawn_shares"])
    t.house_funded_minor = data["house_funded_minor"]
    t.bounties_won = dict(data["bounties_won"])
    # Snapshots written before prizes were paid at the bust have none.
    t.prizes_paid = dict(data.get("prizes_paid") or [])
    # Snapshots written before special prizes (000:L3410-3413) have none.
    t.special_minor = dict(data.get("special_minor") or [])
    t.special_awarded = dict(data.get("special_awarded") or [])
    t.special_released = bool(data.get("special_released", False))
    return t
