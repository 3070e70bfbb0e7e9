"""The chart of accounts as versioned data: which GL account each pattern maps to.

`casino/reports/data/chart_of_accounts.v<N>.toml` holds one version each:
`[chart]` version and effective_from, then `[[accounts]]` rows of
pattern, gl_account, gl_name (the patterns of chart.CHART). An accountant
maps the operator's own chart by adding a version with a later
effective_from; the journal, its summary and the trial balances read each
gaming day's postings under the version in force that day
(`gl_of(pattern, on)`), and the latest version when no day is given.
Loaded once per process (the files are shipped with the code); a version
file that repeats a pattern, or a pattern of the chart that the latest
version leaves out, is a programmer error found by the tests
(tests/casino/reports/test_gl_map.py).
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

DATA_DIR = Path(__file__).parent / "data"
FILE_GLOB = "chart_of_accounts.v*.toml"


@dataclass(frozen=True, slots=True)
class ChartVersion:
    version: int
    effective_from: dt.date
    accounts: Mapping[str, tuple[str, str]]     # pattern -> (gl_account, gl_name)


def load_versions(folder: Path = DATA_DIR) -> tuple[ChartVersion, ...]:
    """Read every version file of `folder`, oldest first (by effective_from)."""
    versions = []
    for path in sorted(folder.glob(FILE_GLOB)):
        with path.open("rb") as handle:
            data = tomllib.load(handle)
        accounts: dict[str, tuple[str, str]] = {}
        for row in data.get("accounts", []):
            if row["pattern"] in accounts:
                raise ValueError(f"{path.name}: pattern {row['pattern']} mapped twice")
            accounts[row["pattern"]] = (str(row["gl_account"]), str(row["gl_name"]))
        chart = data["chart"]
        versions.append(ChartVersion(int(chart["version"]),
                                     dt.date.fromisoformat(chart["effective_from"]),
                                     accounts))
    versions.sort(key=lambda v: (v.effective_from, v.version))
    if len({v.version for v in versions}) != len(versions):
        raise ValueError("two chart-of-accounts files carry the same version")
    return tuple(versions)


@lru_cache(maxsize=1)
def shipped_versions() -> tuple[ChartVersion, ...]:
    return load_versions()


def version_in_force(on: dt.date | None = None,
                     versions: tuple[ChartVersion, ...] | None = None) -> ChartVersion | None:
    """The version governing a gaming day (the latest one when `on` is None)."""
    versions = shipped_versions() if versions is None else versions
    if not versions:
        return None
    if on is None:
        return versions[-1]
    governing = [v for v in versions if v.effective_from <= on]
    return governing[-1] if governing else versions[0]


def gl_of(pattern: str, on: dt.date | None = None,
          versions: tuple[ChartVersion, ...] | None = None) -> tuple[str, str] | None:
    """(GL account, GL name) of a chart pattern on a day, or None if unmapped."""
    version = version_in_force(on, versions)
    return version.accounts.get(pattern) if version is not None else None
