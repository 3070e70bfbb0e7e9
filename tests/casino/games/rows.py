"""The games' rulebook rows, read straight from the shipped fragment files.

Engine tests settle from these rows so that every pay-table row in the data
is exercised; the expected figures in the tests are typed from the digests,
not derived from the rows.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "casino/rules/data"
CASINO = "ray-casino"
HALL = "ray-gaming-hall"
PARTNER = "ray-partner-premises"


@cache
def fragment(book: str) -> dict:
    with (DATA / f"{book}.v1.d" / "games.toml").open("rb") as fh:
        return tomllib.load(fh)


def tables(book: str) -> dict[str, list[dict]]:
    return {t["key"]: t["rows"] for t in fragment(book).get("tables", [])}


def rows(book: str, key: str) -> list[dict]:
    return tables(book)[key]
