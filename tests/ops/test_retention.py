"""Retention periods, per rulebook, as decisions with their sources (issue 18 item 7).

Every shipped rulebook carries the three retention decisions, each citing the
EU act it rests on, and they load through the rulebook validator.
"""

from __future__ import annotations

import pytest

from casino.rules.loading import read_rulebook, shipped_rulebook_files

EXPECTED = {
    "retention.aml_records": "EU 2015/849 art. 40",
    "retention.session_records": "EU 2015/849 art. 40",
    "retention.personal_data_after_period": "EU 2016/679 art. 17",
}


@pytest.mark.parametrize("path", shipped_rulebook_files(), ids=lambda path: path.name)
def test_each_rulebook_records_its_retention_periods_with_their_sources(path):
    rulebook, _ = read_rulebook(path)
    decisions = {row["topic"]: row for row in rulebook["decisions"]}
    for topic, cite in EXPECTED.items():
        row = decisions[topic]
        assert row["cite"] == cite
        assert row["reason"].startswith("Not in the seed: chosen because")
    assert "5 years" in decisions["retention.aml_records"]["decision"]
    assert "5 years" in decisions["retention.session_records"]["decision"]
