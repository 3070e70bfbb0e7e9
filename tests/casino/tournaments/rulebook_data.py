"""Rulebook rows read straight from the shipped TOML files (no database).

The engine tests take their figures and payout tables from the same files
the app loads, so a changed row changes what they check.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from casino.tournaments.engine import PayoutStructure

DATA = Path(__file__).resolve().parents[3] / "casino" / "rules" / "data"


def book(rulebook_id: str) -> dict:
    main = DATA / f"{rulebook_id}.v1.toml"
    with main.open("rb") as fh:
        data = tomllib.load(fh)
    for fragment in sorted((DATA / f"{rulebook_id}.v1.d").glob("*.toml")):
        with fragment.open("rb") as fh:
            for section, rows in tomllib.load(fh).items():
                data.setdefault(section, []).extend(rows)
    return data


def figure(rulebook_id: str, key: str):
    return next(row["value"] for row in book(rulebook_id)["figures"] if row["key"] == key)


def structure(rulebook_id: str, key: str = "tournaments.payout.standard") -> PayoutStructure:
    table = next(t for t in book(rulebook_id).get("tables", []) if t["key"] == key)
    return PayoutStructure.from_rows(key, table["rows"])


def all_structures() -> list[tuple[str, PayoutStructure]]:
    found = []
    for main in sorted(DATA.glob("*.v1.toml")):
        rulebook_id = main.name.removesuffix(".v1.toml")
        for table in book(rulebook_id).get("tables", []):
            if table["key"].startswith("tournaments.payout."):
                found.append((f"{rulebook_id}:{table['key']}",
                              PayoutStructure.from_rows(table["key"], table["rows"])))
    return found
