"""Fold a tournament's events back into the engine's state (pure).

The commands decide with the state this returns, and the projection writes
it to the read models, so both see exactly what the engine saw.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from . import events as ev
from .engine import Config, EliminationRules, Out, PayoutStructure, Price, Tournament


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
        elimination=EliminationRules(**data.get("elimination", {})),
        satellite_seat_minor=data.get("satellite_seat_minor"),
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
