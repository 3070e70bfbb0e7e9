"""Reading and validating rulebook files before they become events.

Validation here is what makes a malformed file fail with a message naming
the row, instead of half-loading: the whole file is checked first, then
appended as one event.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import tomllib
import zoneinfo
from pathlib import Path
from typing import Any

from .errors import RulesError, RulesErrorCode
from .models import RaiseRule, VenueType

DATA_DIR = Path(__file__).resolve().parent / "data"
FILE_NAME = re.compile(r"^(?P<id>[a-z0-9-]+)\.v(?P<version>[0-9]+)\.toml$")
CITE = re.compile(r"^(00[0-4]:L[0-9]+(-L?[0-9]+)?|EU [0-9]{4}/[0-9]+ art\. [0-9]+)$")
# A figure or table no code reads is marked `informational = "<kind>: <reason>"`
# (issue 14 item 21): `procedural` for floor procedure (dealing order, clocks,
# seating) that moves no money; `reference` for a printed form of figures the
# code reads elsewhere (a share table the closed form reproduces); `posted` for
# a rule the venue posts or announces case by case, which this version records
# but does not fix.
INFORMATIONAL_KINDS = frozenset({"procedural", "reference", "posted"})
# How the reason of a decision starts when it chose a value no seed line holds.
NOT_IN_SEED = "Not in the seed: chosen because"
UNITS = {"minor", "basis_points", "ppm", "milliseconds", "seconds", "minutes", "hours",
         "days", "months", "years", "count", "players", "time", "bool", "text"}


def shipped_rulebook_files() -> list[Path]:
    """Return the rulebook files shipped with the code, in load order."""
    return sorted(DATA_DIR.glob("*.toml"), key=lambda p: (p.name.split(".v")[0], _version(p)))


def _version(path: Path) -> int:
    match = FILE_NAME.match(path.name)
    return int(match["version"]) if match else 0


def fragment_files(path: Path) -> list[Path]:
    """The fragments of a rulebook version: `<id>.v<N>.d/*.toml`, by name.

    A fragment adds rows (figures, decisions, tables) to its version. It
    lets each app keep the rulebook data it owns (a game's pay tables, a
    jackpot's payout table) in its own file while the version stays one
    unit: one content hash, one `rulebook_loaded` event.
    """
    folder = path.with_name(path.name.removesuffix(".toml") + ".d")
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def read_rulebook(path: Path) -> tuple[dict[str, Any], str]:
    """Parse and validate a rulebook file and its fragments.

    Returns (content, sha256). The hash covers the main file and every
    fragment (name and bytes), so changing any of them is a new content.
    The result is cached per file version (paths, sizes, modification
    times): parsing the large files is most of what loading costs when they
    have not changed. Callers must treat the content as read-only.
    """
    files = [path, *fragment_files(path)]
    stamp = tuple((f, f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    return _read_rulebook(stamp)


FRAGMENT_SECTIONS = ("figures", "decisions", "tables")


@functools.lru_cache(maxsize=64)
def _read_rulebook(stamp: tuple[tuple[Path, int, int], ...]) -> tuple[dict[str, Any], str]:
    path = stamp[0][0]
    digest = hashlib.sha256()
    content: dict[str, Any] = {}
    for index, (file, _, _) in enumerate(stamp):
        raw = file.read_bytes()
        if index:
            # Name and length delimit each fragment, so moving rows from one
            # fragment to another is a change of content too.
            digest.update(f"\0{file.name}\0{len(raw)}\0".encode())
        digest.update(raw)
        where = path.name if not index else f"{path.name} + {file.name}"
        try:
            part = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise _invalid(where, f"not valid TOML: {error}") from None
        if not index:
            content = part
            continue
        unknown = sorted(set(part) - set(FRAGMENT_SECTIONS))
        if unknown:
            raise _invalid(where, f"a fragment may hold only {', '.join(FRAGMENT_SECTIONS)};"
                                  f" found {', '.join(unknown)}")
        for section in FRAGMENT_SECTIONS:
            content.setdefault(section, []).extend(part.get(section, []))
    validate_rulebook(content, path.name)
    match = FILE_NAME.match(path.name)
    header = content["rulebook"]
    if not match or match["id"] != header["id"] or int(match["version"]) != header["version"]:
        raise _invalid(path.name, "file name must be <rulebook id>.v<version>.toml")
    return content, digest.hexdigest()


def _invalid(where: str, message: str) -> RulesError:
    return RulesError(RulesErrorCode.INVALID_RULEBOOK, f"{where}: {message}")


def _require(row: dict, key: str, kind: type | tuple, where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise _invalid(where, f"{key} is missing or not a {getattr(kind, '__name__', kind)}")
    return value


def validate_rulebook(content: dict[str, Any], where: str) -> None:
    """Raise RulesError naming the first problem in a parsed rulebook."""
    header = content.get("rulebook")
    if not isinstance(header, dict):
        raise _invalid(where, "no [rulebook] table")
    for key in ("id", "effective_from", "seed", "title", "venue_type", "currency", "time_zone"):
        _require(header, key, str, f"{where} [rulebook]")
    if _require(header, "version", int, f"{where} [rulebook]") < 1:
        raise _invalid(where, "version must be at least 1")
    try:
        dt.date.fromisoformat(header["effective_from"])
    except ValueError:
        raise _invalid(where, "effective_from must be an ISO date") from None
    if header["venue_type"] not in VenueType.values:
        raise _invalid(where, f"unknown venue_type {header['venue_type']!r}")
    try:
        zoneinfo.ZoneInfo(header["time_zone"])
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise _invalid(where, f"unknown time zone {header['time_zone']!r}") from None
    ids: set[str] = set()
    for index, row in enumerate(content.get("stake_limits", [])):
        place = f"{where} stake_limits[{index}]"
        for key in ("id", "game", "bet_unit", "raise_rule", "cite"):
            _require(row, key, str, place)
        if _require(row, "stake_minor_max", int, place) <= 0:
            raise _invalid(place, "stake_minor_max must be positive")
        if row["raise_rule"] not in RaiseRule.values:
            raise _invalid(place, f"unknown raise_rule {row['raise_rule']!r}")
        _check_cite(row["cite"], place)
        _check_unique(ids, ("stake", row["game"], row["bet_unit"]), place)
    for index, row in enumerate(content.get("win_limits", [])):
        place = f"{where} win_limits[{index}]"
        for key in ("id", "scope", "cite"):
            _require(row, key, str, place)
        if _require(row, "win_minor_max", int, place) <= 0:
            raise _invalid(place, "win_minor_max must be positive")
        _check_cite(row["cite"], place)
        _check_unique(ids, ("win", row["id"]), place)
    topics: set[str] = set()
    reasons: dict[str, str] = {}
    for index, row in enumerate(content.get("decisions", [])):
        place = f"{where} decisions[{index}]"
        for key in ("topic", "decision", "reason"):
            _require(row, key, str, place)
        _check_unique(topics, ("decision", row["topic"]), place)
        reasons[row["topic"]] = row["reason"]
    for index, row in enumerate(content.get("figures", [])):
        place = f"{where} figures[{index}]"
        _require(row, "key", str, place)
        if row.get("unit") not in UNITS:
            raise _invalid(place, f"unknown unit {row.get('unit')!r}")
        if not isinstance(row.get("value"), (int, str, bool)):
            raise _invalid(place, "value must be an integer, a string or a boolean")
        if "decision" in row and _require(row, "decision", str, place) not in reasons:
            raise _invalid(place, f"decision {row['decision']!r} names no [[decisions]] topic")
        if "cite" in row:
            _check_cite(_require(row, "cite", str, place), place)
        elif not reasons.get(row.get("decision"), "").startswith(NOT_IN_SEED):
            # A value no seed line holds is cited to nothing: its decision
            # says so and why (issue 14 item 22).
            raise _invalid(place, "a figure without a cite needs a decision whose reason"
                                  f" starts {NOT_IN_SEED!r}")
        _check_informational(row, place)
        _check_unique(ids, ("figure", row["key"]), place)
    for index, row in enumerate(content.get("tables", [])):
        place = f"{where} tables[{index}]"
        _require(row, "key", str, place)
        _check_cite(_require(row, "cite", str, place), place)
        rows = _require(row, "rows", list, place)
        if not rows or not all(isinstance(item, dict) for item in rows):
            raise _invalid(place, "rows must be a non-empty array of tables")
        for number, item in enumerate(rows):
            if "cite" in item:
                _check_cite(_require(item, "cite", str, f"{place} rows[{number}]"),
                            f"{place} rows[{number}]")
        if "decision" in row and row["decision"] not in reasons:
            raise _invalid(place, f"decision {row['decision']!r} names no [[decisions]] topic")
        _check_informational(row, place)
        _check_unique(ids, ("table", row["key"]), place)


def _check_informational(row: dict, place: str) -> None:
    """An `informational` mark is "<kind>: <reason>" with a known kind."""
    if "informational" not in row:
        return
    mark = _require(row, "informational", str, place)
    kind, _, reason = mark.partition(": ")
    if kind not in INFORMATIONAL_KINDS or not reason.strip():
        raise _invalid(place, f"informational must read '<kind>: <reason>' with kind one of"
                              f" {', '.join(sorted(INFORMATIONAL_KINDS))}; got {mark!r}")


def _check_cite(cite: str, place: str) -> None:
    if not CITE.match(cite):
        raise _invalid(place, f"cite {cite!r} is not of the form 002:L3395")


def _check_unique(seen: set, key: tuple, place: str) -> None:
    if key in seen:
        raise _invalid(place, f"duplicate {key[0]} {key[1:]}")
    seen.add(key)
