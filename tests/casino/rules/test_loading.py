"""Loading rulebooks: an event per version, never a rewrite, rebuildable."""

import datetime as dt
from pathlib import Path

import pytest
from django.db import connection

from casino.rules.commands import load_rulebook, load_shipped_rulebooks, register_venue
from casino.rules.errors import RulesError, RulesErrorCode
from casino.rules.loading import read_rulebook, shipped_rulebook_files
from casino.rules.models import Decision, Figure, RulebookVersion, StakeLimit, Venue, WinLimit
from casino.rules.queries import figure, rule_table, rulebook_in_force
from ledger import rebuild_projections
from ledger.models import Event


def test_every_shipped_rulebook_loads_with_all_its_rows(rulebooks):
    """Each file's stake limits, win limits, figures and decisions all arrive."""
    assert set(rulebooks) == {
        "veikkaus-poker-room", "veikkaus-online-poker", "ray-gaming-hall",
        "ray-partner-premises", "ray-casino", "ray-online", "olympic-tallinn",
        "pslive-tournaments",
    }
    for path in shipped_rulebook_files():
        content, _ = read_rulebook(path)  # the main file and its fragments
        version = rulebooks[content["rulebook"]["id"]]
        assert version.stake_limits.count() == len(content.get("stake_limits", []))
        assert version.win_limits.count() == len(content.get("win_limits", []))
        assert version.figures.count() == len(content.get("figures", []))
        assert version.decisions.count() == len(content.get("decisions", []))
        assert version.tables.count() == len(content.get("tables", []))


FRAGMENT = """
[[figures]]
key = "test.fragment.figure"
value = 7
unit = "count"
cite = "002:L10"

[[tables]]
key = "test.pay_table"
cite = "002:L11-L12"
rows = [
  { bet = "straight", pays = 35, cite = "002:L11" },
  { bet = "red", pays = 1, cite = "002:L12" },
]
"""


def _with_fragment(tmp_path: Path, fragment: str) -> Path:
    main = _copy_with(tmp_path, "ray-online", "ray-online.v2.toml",
                      lambda text: text.replace("version = 1", "version = 2", 1))
    (tmp_path / "ray-online.v2.d").mkdir()
    (tmp_path / "ray-online.v2.d" / "games.toml").write_text(fragment)
    return main


def test_a_fragment_adds_figures_and_tables_to_its_version(rulebooks, tmp_path):
    """`<id>.vN.d/*.toml` rows load with the version; its hash covers them."""
    main = _with_fragment(tmp_path, FRAGMENT)
    _, hash_with = read_rulebook(main)
    version, new = load_rulebook(main)
    assert new
    assert figure(version, "test.fragment.figure").value == 7
    table = rule_table(version, "test.pay_table")
    assert [row["pays"] for row in table.rows] == [35, 1]
    assert table.cite == "002:L11-L12"
    (tmp_path / "ray-online.v2.d" / "games.toml").write_text(FRAGMENT.replace("35", "36"))
    _, hash_changed = read_rulebook(main)
    assert hash_changed != hash_with
    with pytest.raises(RulesError) as caught:
        load_rulebook(main)
    assert caught.value.code == RulesErrorCode.VERSION_EXISTS
    assert rule_table(version, "test.pay_table").rows[0]["pays"] == 35


@pytest.mark.parametrize("fragment, message", [
    ("[rulebook]\nid = 'x'\n", "a fragment may hold only"),
    ("[[tables]]\nkey = 't'\ncite = '002:L1'\nrows = []\n", "rows must be a non-empty"),
    ("[[tables]]\nkey = 't'\ncite = 'p. 4'\nrows = [{a = 1}]\n", "is not of the form"),
    ("[[tables]]\nkey = 't'\ncite = '002:L1'\nrows = [{a = 1, cite = 'x'}]\n",
     "is not of the form"),
    (FRAGMENT + FRAGMENT, "duplicate"),
    ("[[figures]]\nkey = 'f'\nvalue = 1\nunit = 'hours'\n",
     "a figure without a cite needs a decision"),
    ("[[figures]]\nkey = 'f'\nvalue = 1\nunit = 'hours'\ndecision = 'd'\n"
     "[[decisions]]\ntopic = 'd'\ndecision = 'One hour.'\nreason = 'Seems right.'\n",
     "a figure without a cite needs a decision"),
    ("[[figures]]\nkey = 'f'\nvalue = 1\nunit = 'hours'\ncite = '002:L1'\ndecision = 'gone'\n",
     "names no [[decisions]] topic"),
    ("[[figures]]\nkey = 'f'\nvalue = 1\nunit = 'hours'\ncite = '002:L1'\n"
     "informational = 'unused'\n", "informational must read"),
    ("[[figures]]\nkey = 'f'\nvalue = 1\nunit = 'hours'\ncite = '002:L1'\n"
     "informational = 'decorative: looks nice'\n", "informational must read"),
    ("[[tables]]\nkey = 't'\ncite = '002:L1'\nrows = [{a = 1}]\ninformational = 'procedural:'\n",
     "informational must read"),
], ids=["header", "empty-rows", "cite", "row-cite", "duplicate", "no-cite-no-decision",
        "no-cite-seed-decision", "unknown-decision", "informational-no-kind",
        "informational-unknown-kind", "informational-no-reason"])
def test_a_malformed_fragment_is_refused_naming_it(db, tmp_path, fragment, message):
    main = _with_fragment(tmp_path, fragment)
    with pytest.raises(RulesError) as caught:
        read_rulebook(main)
    assert message in caught.value.message
    assert "games.toml" in caught.value.message or "ray-online.v2.toml" in caught.value.message


CHOSEN = """
[[figures]]
key = "test.chosen.delay"
value = 3
unit = "hours"
decision = "test.chosen"
informational = "procedural: a test figure no code reads"

[[decisions]]
topic = "test.chosen"
decision = "Three hours."
reason = "Not in the seed: chosen because the test needs a value."
cite = "002:L3078"
"""


def test_a_chosen_value_loads_with_its_decision_and_no_cite(rulebooks, tmp_path):
    """A figure no seed line holds loads citing nothing, pointing at its decision."""
    version, _ = load_rulebook(_with_fragment(tmp_path, CHOSEN))
    row = figure(version, "test.chosen.delay")
    assert (row.value, row.unit, row.cite, row.decision) == (3, "hours", "", "test.chosen")
    assert str(row) == "test.chosen.delay = 3 hours (decision test.chosen)"


def test_loading_is_an_event_and_reloading_writes_nothing(rulebooks):
    """Each version is one rules.rulebook_loaded event; a second load is a no-op."""
    loaded = Event.objects.filter(type="rules.rulebook_loaded")
    assert loaded.count() == 8
    before = Event.objects.count()
    again = load_shipped_rulebooks()
    assert [new for _, new in again] == [False] * 8
    assert Event.objects.count() == before
    event = loaded.get(stream="rulebook/ray-casino")
    assert event.payload["content"]["rulebook"]["id"] == "ray-casino"
    assert len(event.payload["content_sha256"]) == 64


def _copy_with(tmp_path: Path, rulebook_id: str, new_name: str, edit) -> Path:
    source = next(p for p in shipped_rulebook_files() if p.name.startswith(rulebook_id + "."))
    text = edit(source.read_text())
    target = tmp_path / new_name
    target.write_text(text)
    return target


def test_changed_content_for_a_loaded_version_is_refused(rulebooks, tmp_path):
    """A version is never rewritten: other bytes for ray-casino v1 are refused."""
    changed = _copy_with(tmp_path, "ray-casino", "ray-casino.v1.toml",
                         lambda text: text.replace("stake_minor_max = 60000",
                                                   "stake_minor_max = 60001", 1))
    before = Event.objects.count()
    with pytest.raises(RulesError) as caught:
        load_rulebook(changed)
    assert caught.value.code == RulesErrorCode.VERSION_EXISTS
    assert Event.objects.count() == before
    assert StakeLimit.objects.get(key="ray-casino@1/roulette.numbers_1").stake_minor_max == 60000


def test_new_version_takes_over_from_its_effective_date_only(rulebooks, tmp_path):
    """v2 governs from its effective_from; v1 keeps governing before it."""
    v2 = _copy_with(
        tmp_path, "ray-online", "ray-online.v2.toml",
        lambda text: text.replace("version = 1", "version = 2", 1)
        .replace('effective_from = "2026-01-01"', 'effective_from = "2027-03-01"', 1),
    )
    version, new = load_rulebook(v2)
    assert (version.version, new) == (2, True)
    assert rulebook_in_force("ray-online", dt.date(2027, 2, 28)).version == 1
    assert rulebook_in_force("ray-online", dt.date(2027, 3, 1)).version == 2
    assert RulebookVersion.objects.filter(rulebook_id="ray-online").count() == 2
    with pytest.raises(RulesError) as caught:
        rulebook_in_force("ray-online", dt.date(2025, 12, 31))
    assert caught.value.code == RulesErrorCode.NO_VERSION_IN_FORCE


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace('cite = "002:L3395"', 'cite = "line 3395"', 1), "cite"),
        (lambda t: t.replace('raise_rule = "per_game_rules"', 'raise_rule = "maybe"', 1),
         "raise_rule"),
        (lambda t: t.replace("stake_minor_max = 60000", "stake_minor_max = -1", 1),
         "stake_minor_max"),
        (lambda t: t.replace('time_zone = "Europe/Helsinki"', 'time_zone = "Mars/Olympus"', 1),
         "time zone"),
        (lambda t: t + "\n[[broken", "not valid TOML"),
    ],
    ids=["cite", "raise-rule", "negative-stake", "time-zone", "toml"],
)
def test_malformed_rulebook_is_refused_with_the_problem_named(db, tmp_path, edit, message):
    """A bad file fails as a whole, naming what is wrong; nothing is written."""
    bad = _copy_with(tmp_path, "ray-casino", "ray-casino.v1.toml", edit)
    with pytest.raises(RulesError) as caught:
        load_rulebook(bad)
    assert caught.value.code == RulesErrorCode.INVALID_RULEBOOK
    assert message in caught.value.message
    assert not Event.objects.filter(type="rules.rulebook_loaded").exists()


def test_venue_takes_currency_zone_and_gaming_day_from_its_rulebook(rulebooks):
    """Tallinn's gaming day starts at 06:00 (003:L124); online days at midnight."""
    tallinn = register_venue(code="olympic-tallinn", name="Olympic Park", rulebook_id="olympic-tallinn")
    online = register_venue(code="ray-online", name="RAY online", rulebook_id="ray-online")
    assert (tallinn.time_zone, tallinn.currency, tallinn.gaming_day_start) == (
        "Europe/Tallinn", "EUR", dt.time(6, 0))
    assert (online.time_zone, online.gaming_day_start) == ("Europe/Helsinki", dt.time(0, 0))
    with pytest.raises(RulesError) as caught:
        register_venue(code="olympic-tallinn", name="again", rulebook_id="olympic-tallinn")
    assert caught.value.code == RulesErrorCode.VENUE_EXISTS


def test_figures_with_a_later_start_only_count_from_it(rulebooks):
    """The EUR 10,000 cash cap (EU 2024/1624) applies from 2027-07-10 only."""
    casino = rulebooks["ray-casino"]
    cap = figure(casino, "aml.cash_payment.max")
    assert cap is not None and cap.value == 1_000_000
    assert figure(casino, "aml.cash_payment.max", on=dt.date(2027, 7, 9)) is None
    assert figure(casino, "aml.cash_payment.max", on=dt.date(2027, 7, 10)).value == 1_000_000


def test_rebuild_reproduces_the_rules_tables(rulebooks):
    """Rulebook and venue projections are rebuilt row for row from the events."""
    register_venue(code="casino-helsinki", name="Casino Helsinki", rulebook_id="ray-casino")
    tables = [(RulebookVersion, "key"), (StakeLimit, "key"), (WinLimit, "key"),
              (Figure, "key"), (Decision, "key"), (Venue, "code")]

    def snapshot():
        with connection.cursor() as cursor:
            result = {}
            for model, order in tables:
                cursor.execute(f"SELECT * FROM {model._meta.db_table} ORDER BY {order}")
                result[model.__name__] = cursor.fetchall()
            return result

    live = snapshot()
    assert len(live["StakeLimit"]) == 92
    rebuild_projections()
    assert snapshot() == live
