"""The day close as a table of sections, for people (issue 17 item 1).

`close_sections(close)` turns a recorded close (its figures, lines and
differences, as `reports.day_closed` holds them) into sections of labelled
rows, amounts still in minor units with their currency: cage, tables, poker,
jackpots, tournaments, machines (when the venue has any), player liabilities,
the house result and the reconciliation. The admin's close page and the
README's screenshot render them; nothing here reads the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    amount_minor: int | None = None
    currency: str = ""
    text: str = ""
    tone: str = ""          # "", "ok", "bad"


@dataclass(slots=True)
class Section:
    key: str
    title: str
    rows: list[Row] = field(default_factory=list)


def _lines(lines: Sequence[Mapping[str, Any]], head: str, currency: str
           ) -> list[Mapping[str, Any]]:
    return [line for line in lines if line.get("currency") == currency
            and str(line.get("line", "")).partition("/")[0] == head]


def close_sections(figures: Mapping[str, Mapping[str, Any]],
                   lines: Sequence[Mapping[str, Any]],
                   differences: Sequence[Mapping[str, Any]],
                   checks: Mapping[str, bool] | None = None) -> list[Section]:
    """Return the close's sections in reading order (one set per currency)."""
    sections: list[Section] = []
    for currency, f in sorted(figures.items()):
        def row(label: str, amount: int | None, tone: str = "") -> Row:
            return Row(label, amount, currency, tone=tone)

        cage = Section("cage", f"Cage ({currency})")
        by_source = f.get("drop_by_source_minor") or {}
        cage.rows += [row("Cash in (drop), all sources", f.get("drop_minor", 0))]
        cage.rows += [row(f"  of which {source}", amount)
                      for source, amount in sorted(by_source.items())]
        cage.rows += [row("Cash paid out", f.get("cash_paid_out_minor", 0)),
                      row("Cashier over/short (short negative)",
                          f.get("cashier_over_short_minor", 0)),
                      row("Chip float outstanding (closing)", f.get("chip_float_minor", 0))]
        for line in _lines(lines, "cage_cash", currency):
            cage.rows += [row("Cage cash, opening", line.get("opening_minor")),
                          row("Cage cash, closing", line.get("closing_minor"))]
        sections.append(cage)

        tables = Section("tables", f"Tables ({currency})")
        tables.rows += [row("Drop at the tables", by_source.get("tables", 0)),
                        row("Soft count (drop boxes counted)",
                            f.get("soft_count_drop_minor", 0)),
                        row("Fills (chips to the tables)", f.get("fills_minor", 0)),
                        row("Credits (chips back to the cage)", f.get("credits_minor", 0)),
                        row("Table games win (drop and count)", f.get("table_win_minor", 0)),
                        row("Chips in table trays (closing)", f.get("table_trays_minor", 0)),
                        row("Chips on poker tables (closing)", f.get("table_stacks_minor", 0)),
                        row("Stakes on house-game tables (closing)",
                            f.get("game_stakes_minor", 0))]
        tables.rows += [row(f"House games result: {game.replace('_', ' ')}", amount)
                        for game, amount in sorted((f.get("games_result_minor") or {}).items())]
        tables.rows += [row(f"Commission: {game.replace('_', ' ')}", amount)
                        for game, amount in sorted((f.get("commission_minor") or {}).items())]
        sections.append(tables)

        poker = Section("poker", f"Poker ({currency})")
        poker.rows += [row("Rake", f.get("rake_minor", 0)),
                       row("Time charges", f.get("time_charges_minor", 0))]
        sections.append(poker)

        jackpots = Section("jackpots", f"Jackpots ({currency})")
        for name, j in sorted((f.get("jackpots") or {}).items()):
            title = name.replace("/", " ").replace("_", " ")
            jackpots.rows += [row(f"{title}: contributions", j.get("contributions_minor", 0)),
                              row(f"{title}: rolled up", j.get("rolled_up_minor", 0)),
                              row(f"{title}: paid out", j.get("paid_out_minor", 0)),
                              row(f"{title}: pending (closing)", j.get("pending_minor", 0)),
                              row(f"{title}: pool (closing)", j.get("pool_minor", 0))]
        jackpots.rows.append(row("Top-ups to guaranteed bases", f.get("jackpot_top_ups_minor", 0)))
        sections.append(jackpots)

        tournaments = Section("tournaments", f"Tournaments ({currency})")
        tournaments.rows += [row("Fees", f.get("tournament_fees_minor", 0)),
                             row("Prizes above the buy-ins", f.get("tournament_prizes_minor", 0)),
                             row("Prize pools and bounties held (closing)",
                                 f.get("tournament_pools_minor", 0))]
        sections.append(tournaments)

        machine_lines = [line for line in lines if line.get("currency") == currency
                         and str(line.get("line", "")).startswith("machine")]
        if machine_lines:
            machines = Section("machines", f"Machines ({currency})")
            machines.rows += [row(str(line.get("label") or line.get("line")),
                                  -(line.get("net_minor") or 0)) for line in machine_lines]
            sections.append(machines)

        players = Section("players", f"Player liabilities ({currency})")
        players.rows += [row("Movement at this venue", f.get("player_accounts_movement_minor", 0)),
                         row("Closing liability, all players",
                             f.get("player_liabilities_minor", 0))]
        sections.append(players)

        house = Section("house", f"House result ({currency})")
        house.rows += [row("House result of the day", f.get("house_result_minor", 0))]
        if f.get("other_net_minor"):
            house.rows.append(row("Other accounts, net", f.get("other_net_minor")))
        sections.append(house)

    reconciliation = Section("reconciliation", "Reconciliation")
    for name, ok in sorted((checks or {}).items()):
        reconciliation.rows.append(Row(name.replace("_", " "), text="holds" if ok else "FAILS",
                                       tone="ok" if ok else "bad"))
    for difference in differences:
        what = " ".join(str(difference.get(k, "")) for k in ("check", "line") if difference.get(k))
        reconciliation.rows.append(Row(
            f"{what}: expected", difference.get("expected"), difference.get("currency", ""),
            tone="bad"))
        reconciliation.rows.append(Row(
            f"{what}: actual", difference.get("actual"), difference.get("currency", ""),
            tone="bad"))
    if not differences:
        reconciliation.rows.append(Row("Differences", text="none", tone="ok"))
    sections.append(reconciliation)
    return sections


def money_text(amount_minor: int | None, currency: str) -> str:
    """`EUR 1,234.50`; a negative amount `EUR -1,234.50`."""
    if amount_minor is None:
        return "-"
    sign = "-" if amount_minor < 0 else ""
    whole, cents = divmod(abs(int(amount_minor)), 100)
    return f"{currency} {sign}{whole:,}.{cents:02d}".strip()
