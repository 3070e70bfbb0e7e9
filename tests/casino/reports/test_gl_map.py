"""The chart of accounts is versioned data an accountant maps (issue 17 item 5)."""

from __future__ import annotations

import datetime as dt
import shutil

import pytest

from casino.reports import chart, gl_map

V1 = gl_map.DATA_DIR / "chart_of_accounts.v1.toml"


def test_every_pattern_of_the_chart_is_mapped_by_the_latest_version():
    latest = gl_map.version_in_force()
    patterns = {"/".join(row.pattern) for row in chart.CHART}
    assert patterns == set(latest.accounts)


def test_the_shipped_version_is_what_the_exports_use():
    assert chart.gl_account("player/p-1/account") == ("2100", "Player account liabilities")
    assert chart.gl_account("cage/casino-helsinki/trays/bj-1") == ("1040", "Table chip trays")
    assert chart.gl_account("nobody/knows/this") == chart.SUSPENSE_GL


def test_a_later_version_maps_days_from_its_effective_date(tmp_path):
    """An accountant's v2 from 2026-07-01 renames 2100; June keeps v1."""
    shutil.copy(V1, tmp_path / V1.name)
    text = V1.read_text().replace('version = 1', 'version = 2').replace(
        'effective_from = "2026-01-01"', 'effective_from = "2026-07-01"').replace(
        'gl_account = "2100"\ngl_name = "Player account liabilities"',
        'gl_account = "2810"\ngl_name = "Customer deposits"')
    (tmp_path / "chart_of_accounts.v2.toml").write_text(text)
    versions = gl_map.load_versions(tmp_path)
    assert [v.version for v in versions] == [1, 2]
    pattern = "player/*/account"
    assert gl_map.gl_of(pattern, dt.date(2026, 6, 30), versions) == (
        "2100", "Player account liabilities")
    assert gl_map.gl_of(pattern, dt.date(2026, 7, 1), versions) == ("2810", "Customer deposits")
    assert gl_map.gl_of(pattern, None, versions) == ("2810", "Customer deposits")


def test_a_pattern_mapped_twice_is_refused(tmp_path):
    text = V1.read_text()
    (tmp_path / "chart_of_accounts.v1.toml").write_text(
        text + '\n[[accounts]]\npattern = "cage/<venue>/cash"\ngl_account = "1"\ngl_name = "x"\n')
    with pytest.raises(ValueError, match="mapped twice"):
        gl_map.load_versions(tmp_path)
