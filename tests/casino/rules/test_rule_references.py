"""Every rulebook key is read by the code, marked informational, or pending.

Issue 14 item 21. A figure or table key of the shipped rulebooks must be

- read: `code_references.scan()` finds it in the Python source of `casino/`
  or `ledger/` (the key itself, or an f-string or concatenation that builds
  it); or
- informational: its row says `informational = "<kind>: <reason>"`
  (procedural, reference or posted; see casino/rules/data/README.md); or
- pending: a money rule that no code enforces yet, listed below with the
  work that will enforce it, so that the gap stays visible.

A key that is none of these fails, and so does a mark that has gone stale (an
informational or pending key the code now reads). Pure Python, no Django.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from pprint import pformat

import pytest

from .code_references import ROOT, scan, scan_files

DATA_DIR = ROOT / "casino/rules/data"
KINDS = ("procedural", "reference", "posted")

LIMITS = "issue 14, limits"
POKER = "issue 14, poker rooms"
JACKPOTS = "issue 14, jackpots"
TOURNAMENTS = "issue 14, tournaments"
NOT_BUILT = "no item yet: online games against other players are not built"

# Money rules no code reads yet: key (or a prefix ending in ".") -> (who will
# enforce it, what is missing). Remove an entry once the code reads the key.
ENFORCEMENT_PENDING: dict[str, tuple[str, str]] = {
    # limits, cage, compliance
    # poker rooms
    # tournaments
    # not built
}


def _rows() -> list[tuple[str, str, dict]]:
    """(rulebook file, section, row) for every figure and table row shipped."""
    found = []
    for main in sorted(DATA_DIR.glob("*.toml")):
        for path in [main, *sorted(main.with_name(main.stem + ".d").glob("*.toml"))]:
            with path.open("rb") as fh:
                data = tomllib.load(fh)
            for section in ("figures", "tables"):
                found += [(main.name, section, row) for row in data.get(section, [])]
    return found


ROWS = _rows()


def _pending(key: str) -> tuple[str, str] | None:
    if key in ENFORCEMENT_PENDING:
        return ENFORCEMENT_PENDING[key]
    return next((entry for prefix, entry in ENFORCEMENT_PENDING.items()
                 if prefix.endswith(".") and key.startswith(prefix)), None)


def test_every_rulebook_key_is_read_informational_or_pending():
    """A key nothing reads, not marked informational and not pending, fails."""
    source = scan()
    orphans = sorted({
        (name, row["key"]) for name, _, row in ROWS
        if not source.reader_of(row["key"]) and "informational" not in row
        and _pending(row["key"]) is None
    })
    assert not orphans, (
        "these keys are neither read by casino/ or ledger/, nor marked informational,"
        " nor listed in ENFORCEMENT_PENDING:\n" + pformat(orphans))


def test_an_informational_mark_names_its_kind_and_reason():
    """`informational` reads '<kind>: <reason>', kind procedural, reference or posted."""
    bad = []
    for name, _, row in ROWS:
        if "informational" in row:
            kind, _, reason = row["informational"].partition(": ")
            if kind not in KINDS or len(reason.split()) < 3:
                bad.append((name, row["key"], row["informational"]))
    assert not bad, pformat(bad)


def test_no_money_figure_is_marked_procedural():
    """An amount moves money, and so does a share unless it is a share of chips."""
    bad = []
    for name, section, row in ROWS:
        mark = row.get("informational", "")
        if section != "figures" or not mark.startswith("procedural"):
            continue
        if row["unit"] == "minor" or row["unit"] in ("basis_points", "ppm") and "chips" not in mark:
            bad.append((name, row["key"], row["unit"]))
    assert not bad, pformat(bad)


def test_a_key_the_code_reads_is_not_marked_informational():
    """Once code reads a key its informational mark is wrong: remove it."""
    source = scan()
    stale = sorted({(name, row["key"], source.reader_of(row["key"])) for name, _, row in ROWS
                    if "informational" in row and source.reader_of(row["key"])})
    assert not stale, "read by the code but marked informational:\n" + pformat(stale)


def test_enforcement_pending_lists_only_shipped_keys_nothing_reads():
    """Each pending entry names shipped keys; once code reads one, the entry goes."""
    source = scan()
    keys = {row["key"] for _, _, row in ROWS}
    for entry, (item, missing) in ENFORCEMENT_PENDING.items():
        matched = {k for k in keys if k == entry or entry.endswith(".") and k.startswith(entry)}
        assert matched, f"{entry}: no shipped key; remove it from ENFORCEMENT_PENDING"
        read = sorted((k, source.reader_of(k)) for k in matched if source.reader_of(k))
        assert not read, (f"{entry} is read now ({read}): remove it from"
                          " ENFORCEMENT_PENDING")
        assert item.startswith(("issue 14, ", "no item yet: ")) and missing, entry
    marked = sorted(k for k in keys if _pending(k) and any(
        row.get("informational") for _, _, row in ROWS if row["key"] == k))
    assert not marked, f"pending and informational at once: {marked}"


# ---------------------------------------------------------------------------
# The scan itself
# ---------------------------------------------------------------------------

SAMPLE = '''
"""Module docstring naming docstring.only.key."""
PREFIX = "jackpot.bad_beat."


def read(figures, game, stake, family):
    """Function docstring: also.not.code."""
    figures.get("age.min")
    figures.get(PREFIX + "base_guarantee")
    figures.get(f"rake.{game}.{stake}.cap")
    figures.get(f"{PREFIX}cat{family}.trigger.{game}")
    prefix = "rake.alt." if game else "rake."
    figures.get(prefix + "block")
    figures.get(f"{game}.{stake}")
    # comment.only.key
'''


def test_the_scan_finds_literals_templates_and_prefix_constants(tmp_path: Path):
    """Literal keys, f-strings, concatenations and module constants count; docstrings and comments do not."""
    module = tmp_path / "sample.py"
    module.write_text(SAMPLE)
    source = scan_files((module,))
    for key in ("age.min", "jackpot.bad_beat.base_guarantee", "rake.nl_holdem.nl50.cap",
                "jackpot.bad_beat.cat2.trigger.omaha", "rake.alt.block", "rake.block"):
        assert source.reader_of(key), key
    for key in ("docstring.only.key", "also.not.code", "comment.only.key",
                "rake.nl_holdem.cap", "jackpot.bad_beat.drop", "tournament.min_entrants"):
        assert source.reader_of(key) is None, key


@pytest.mark.parametrize("key", ["online.limits.daily_spend.increase_delay",
                                 "games.three_card_poker.dealer_qualifier",
                                 "tournament.cancel.before_itm.equal_split",
                                 "hexapro.prize.eur10.x25"])
def test_the_scan_sees_the_keys_the_apps_read(key):
    """Keys read by a constant, an engine's table list, a mapping and an f-string."""
    assert scan().reader_of(key)
