"""Checks of the rulebook data files in casino/rules/data (pure Python, no Django).

The Part IV tables below were typed by hand from the digest
spec/002-ray-part3-4-online-and-limits.md section 10 and checked against seed 002
lines 3333-3499; they are deliberately not derived from the TOML files.
"""

from __future__ import annotations

import datetime
import re
import tomllib
import zoneinfo
from pathlib import Path
from pprint import pformat
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[3] / "casino/rules/data"

RULEBOOK_IDS = {
    "veikkaus-poker-room",
    "veikkaus-online-poker",
    "ray-gaming-hall",
    "ray-partner-premises",
    "ray-casino",
    "ray-online",
    "olympic-tallinn",
    "pslive-tournaments",
}
RAY_IDS = {"ray-gaming-hall", "ray-partner-premises", "ray-casino", "ray-online"}
SEED_OF = {
    "veikkaus-poker-room": "000",
    "veikkaus-online-poker": "001",
    "ray-gaming-hall": "002",
    "ray-partner-premises": "002",
    "ray-casino": "002",
    "ray-online": "002",
    "olympic-tallinn": "003",
    "pslive-tournaments": "004",
}
VENUE_TYPE_OF = {
    "veikkaus-poker-room": "poker_room",
    "veikkaus-online-poker": "online_poker",
    "ray-gaming-hall": "gaming_hall",
    "ray-partner-premises": "partner_premises",
    "ray-casino": "casino",
    "ray-online": "online",
    "olympic-tallinn": "poker_room",
    "pslive-tournaments": "tournament_series",
}
TIME_ZONE_OF = {
    "veikkaus-poker-room": "Europe/Helsinki",
    "veikkaus-online-poker": "Europe/Helsinki",
    "ray-gaming-hall": "Europe/Helsinki",
    "ray-partner-premises": "Europe/Helsinki",
    "ray-casino": "Europe/Helsinki",
    "ray-online": "Europe/Helsinki",
    "olympic-tallinn": "Europe/Tallinn",
    "pslive-tournaments": "Europe/Ljubljana",
}

SEED_CITE = re.compile(r"^(00[0-4]):L[0-9]+(-L?[0-9]+)?$")
LEGAL_CITE = re.compile(r"^EU [0-9]{4}/[0-9]+ art\. [0-9]+$")
DOTTED = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*(\.[a-z0-9]+(_[a-z0-9]+)*)*$")
HH_MM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")

TOP_LEVEL_TABLES = {"rulebook", "stake_limits", "win_limits", "figures", "decisions", "tables"}
RULEBOOK_REQUIRED = {
    "id": str,
    "version": int,
    "effective_from": str,
    "seed": str,
    "title": str,
    "venue_type": str,
    "currency": str,
    "time_zone": str,
}
RULEBOOK_OPTIONAL = {"effective_from_cite": str}
STAKE_REQUIRED = {
    "id": str,
    "game": str,
    "bet_unit": str,
    "stake_minor_max": int,
    "raise_rule": str,
    "cite": str,
}
WIN_REQUIRED = {"id": str, "scope": str, "win_minor_max": int, "cite": str}
FIGURE_REQUIRED = {"key": str, "unit": str}
FIGURE_OPTIONAL = {"cite": str, "note": str, "decision": str, "effective_from": str,
                   "informational": str}
NOT_IN_SEED = "Not in the seed: chosen because"
DECISION_REQUIRED = {"topic": str, "decision": str, "reason": str, "cite": str}
RAISE_RULES = {"none", "per_game_rules", "at_most_double"}
INT_UNITS = {
    "minor",
    "basis_points",
    "ppm",
    "milliseconds",
    "seconds",
    "minutes",
    "hours",
    "days",
    "months",
    "years",
    "count",
    "players",
}
UNITS = INT_UNITS | {"time", "bool", "text"}

from .part_iv_tables import PART_IV_STAKE_CAPS, PART_IV_WIN_CAPS  # noqa: E402


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _load() -> dict[str, tuple[Path, dict]]:
    books: dict[str, tuple[Path, dict]] = {}
    for path in sorted(DATA_DIR.glob("*.toml")):
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        # Fragments (<id>.vN.d/*.toml) add rows to their version.
        for fragment in sorted(path.with_name(path.stem + ".d").glob("*.toml")):
            with fragment.open("rb") as fh:
                for section, rows in tomllib.load(fh).items():
                    data.setdefault(section, []).extend(rows)
        books[path.name] = (path, data)
    return books


BOOKS = _load()


def _book(rulebook_id: str) -> dict:
    matches = [data for _, data in BOOKS.values() if data.get("rulebook", {}).get("id") == rulebook_id]
    assert len(matches) == 1, f"expected one file for {rulebook_id}, found {len(matches)}"
    return matches[0]


def _figures(rulebook_id: str) -> dict[str, Any]:
    return {row["key"]: row["value"] for row in _book(rulebook_id).get("figures", [])}


def _all_rows():
    """Yield (file name, table name, row) for every row that carries a cite."""
    for name, (_, data) in BOOKS.items():
        for table in ("stake_limits", "win_limits", "figures", "decisions", "tables"):
            for row in data.get(table, []):
                if "cite" in row:
                    yield name, table, row


def _check_types(row: dict, required: dict, optional: dict, where: str) -> list[str]:
    problems = []
    for key, typ in required.items():
        if key not in row:
            problems.append(f"{where}: missing {key}")
        elif not isinstance(row[key], typ) or (typ is int and isinstance(row[key], bool)):
            problems.append(f"{where}: {key} should be {typ.__name__}, got {row[key]!r}")
        elif typ is str and not row[key].strip():
            problems.append(f"{where}: {key} is empty")
    for key, value in row.items():
        if key in required:
            continue
        if key not in optional:
            problems.append(f"{where}: unknown key {key}")
        elif not isinstance(value, optional[key]) or not str(value).strip():
            problems.append(f"{where}: {key} should be a non-empty {optional[key].__name__}")
    return problems


def _is_iso_date(text: str) -> bool:
    try:
        return datetime.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def _set_diff(actual: set, expected: set) -> str:
    return (
        "\nmissing from the data:\n"
        + pformat(sorted(expected - actual))
        + "\nin the data but not in the table:\n"
        + pformat(sorted(actual - expected))
    )


# ---------------------------------------------------------------------------
# Files and the [rulebook] table
# ---------------------------------------------------------------------------


def test_there_is_one_file_for_each_of_the_eight_rulebooks():
    """Every data file names one of the eight rulebooks, and each rulebook has exactly one file."""
    ids = [data["rulebook"]["id"] for _, data in BOOKS.values()]
    assert sorted(ids) == sorted(RULEBOOK_IDS), ids


def test_file_name_matches_rulebook_id_and_version():
    """A file is named <rulebook-id>.v<version>.toml after its own [rulebook] table."""
    for name, (_, data) in BOOKS.items():
        book = data["rulebook"]
        assert name == f"{book['id']}.v{book['version']}.toml"


def test_only_known_top_level_tables_are_used():
    """Files use only the five documented tables."""
    for name, (_, data) in BOOKS.items():
        assert set(data) <= TOP_LEVEL_TABLES, (name, set(data) - TOP_LEVEL_TABLES)
        assert "rulebook" in data, name


def test_rulebook_table_has_required_keys_with_the_right_types():
    """The [rulebook] table carries every required key with the documented type."""
    problems = []
    for name, (_, data) in BOOKS.items():
        problems += _check_types(data["rulebook"], RULEBOOK_REQUIRED, RULEBOOK_OPTIONAL, name)
    assert not problems, "\n".join(problems)


def test_rulebook_metadata_matches_its_seed_venue_currency_and_time_zone():
    """Each rulebook names its seed, venue type, EUR and its venue's time zone."""
    for _, data in BOOKS.values():
        book = data["rulebook"]
        rid = book["id"]
        assert book["version"] >= 1, rid
        assert book["seed"] == SEED_OF[rid], rid
        assert book["venue_type"] == VENUE_TYPE_OF[rid], rid
        assert book["currency"] == "EUR", rid
        assert book["time_zone"] == TIME_ZONE_OF[rid], rid
        zoneinfo.ZoneInfo(book["time_zone"])


def test_effective_date_is_cited_from_the_seed_or_decided():
    """effective_from is an ISO date backed either by a seed line or by a decision row."""
    for _, data in BOOKS.values():
        book = data["rulebook"]
        assert _is_iso_date(book["effective_from"]), book["id"]
        topics = {row["topic"] for row in data.get("decisions", [])}
        if "effective_from_cite" in book:
            assert book["effective_from_cite"].startswith(book["seed"] + ":L"), book["id"]
            assert SEED_CITE.match(book["effective_from_cite"]), book["id"]
        else:
            assert "rulebook.effective_from" in topics, book["id"]


def test_dated_seeds_take_effect_on_their_own_dates():
    """Seeds 000 and 001 carry a date of validity, which the rulebooks use."""
    assert _book("veikkaus-poker-room")["rulebook"]["effective_from"] == "2025-09-17"
    assert _book("veikkaus-poker-room")["rulebook"]["effective_from_cite"] == "000:L668"
    assert _book("veikkaus-online-poker")["rulebook"]["effective_from"] == "2019-03-27"
    assert _book("veikkaus-online-poker")["rulebook"]["effective_from_cite"] == "001:L5"


# ---------------------------------------------------------------------------
# Row schemas
# ---------------------------------------------------------------------------


def test_stake_limit_rows_have_required_keys_and_valid_values():
    """Every stake cap has id, game, bet unit, a positive cent amount, a known raise rule and a cite."""
    problems = []
    for name, (_, data) in BOOKS.items():
        for row in data.get("stake_limits", []):
            where = f"{name} stake_limits {row.get('id')}"
            row_problems = _check_types(row, STAKE_REQUIRED, {"note": str}, where)
            problems += row_problems
            if row_problems:
                continue
            if row["raise_rule"] not in RAISE_RULES:
                problems.append(f"{where}: raise_rule {row['raise_rule']!r}")
            if row["stake_minor_max"] <= 0:
                problems.append(f"{where}: amount must be positive")
            if row["id"] != f"{row['game']}.{row['bet_unit']}":
                problems.append(f"{where}: id should be game.bet_unit")
    assert not problems, "\n".join(problems)


def test_win_limit_rows_have_required_keys_and_valid_values():
    """Every win cap has an id, the single_win scope, a positive cent amount and a cite."""
    problems = []
    for name, (_, data) in BOOKS.items():
        for row in data.get("win_limits", []):
            where = f"{name} win_limits {row.get('id')}"
            row_problems = _check_types(row, WIN_REQUIRED, {"note": str}, where)
            problems += row_problems
            if row_problems:
                continue
            if row["win_minor_max"] <= 0:
                problems.append(f"{where}: amount must be positive")
            if row["scope"] != "single_win":
                problems.append(f"{where}: scope {row['scope']!r}")
    assert not problems, "\n".join(problems)


def test_figure_rows_have_a_known_unit_and_a_value_of_that_units_type():
    """Each figure's value type follows its unit: ints for amounts, HH:MM for times, booleans, text."""
    problems = []
    for name, (_, data) in BOOKS.items():
        for row in data.get("figures", []):
            where = f"{name} figure {row.get('key')}"
            problems += _check_types(row, FIGURE_REQUIRED, {**FIGURE_OPTIONAL, "value": object}, where)
            if "value" not in row:
                problems.append(f"{where}: missing value")
                continue
            unit, value = row.get("unit"), row["value"]
            if unit not in UNITS:
                problems.append(f"{where}: unknown unit {unit!r}")
            elif unit in INT_UNITS:
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    problems.append(f"{where}: {unit} needs a non-negative int, got {value!r}")
                elif unit == "minor" and value <= 0:
                    problems.append(f"{where}: money must be positive, got {value!r}")
            elif unit == "bool" and not isinstance(value, bool):
                problems.append(f"{where}: bool needs true/false, got {value!r}")
            elif unit == "time" and not (isinstance(value, str) and HH_MM.match(value)):
                problems.append(f"{where}: time needs HH:MM, got {value!r}")
            elif unit == "text" and not (isinstance(value, str) and value.strip()):
                problems.append(f"{where}: text needs a string, got {value!r}")
            if "effective_from" in row and not _is_iso_date(row["effective_from"]):
                problems.append(f"{where}: effective_from {row['effective_from']!r}")
    assert not problems, "\n".join(problems)


def test_decision_rows_have_topic_decision_reason_and_cite():
    """Every decision row states its topic, what was decided, why, and where the question arises."""
    problems = []
    for name, (_, data) in BOOKS.items():
        for row in data.get("decisions", []):
            problems += _check_types(row, DECISION_REQUIRED, {}, f"{name} decision {row.get('topic')}")
    assert not problems, "\n".join(problems)


def test_ids_keys_and_topics_are_unique_within_each_file():
    """No stake-limit id, win-limit id, figure key or decision topic repeats inside a file."""
    for name, (_, data) in BOOKS.items():
        for table, field in (("stake_limits", "id"), ("win_limits", "id"), ("figures", "key"),
                             ("decisions", "topic"), ("tables", "key")):
            values = [row[field] for row in data.get(table, [])]
            dupes = sorted({v for v in values if values.count(v) > 1})
            assert not dupes, f"{name} {table}: duplicate {field} {dupes}"


def test_ids_keys_topics_games_and_units_are_dotted_lower_snake():
    """Identifiers are stable lower_snake segments joined by dots."""
    bad = []
    for name, table, row in _all_rows():
        for field in ("id", "key", "topic", "game", "bet_unit", "decision"):
            if table == "decisions" and field == "decision":
                continue
            if field in row and not DOTTED.match(row[field]):
                bad.append((name, table, field, row[field]))
    assert not bad, pformat(bad)


def test_every_cite_is_a_seed_line_or_a_named_eu_act():
    """All cites have the form 00N:Lnnn[-nnn] or 'EU yyyy/n art. n', a table's rows' too."""
    bad = [
        (name, table, row.get("id") or row.get("key") or row.get("topic"), row["cite"])
        for name, table, row in _all_rows()
        if not (SEED_CITE.match(row["cite"]) or LEGAL_CITE.match(row["cite"]))
    ]
    bad += [
        (name, "tables", table["key"], item["cite"])
        for name, (_, data) in BOOKS.items() for table in data.get("tables", [])
        for item in table["rows"]
        if "cite" in item and not (SEED_CITE.match(item["cite"]) or LEGAL_CITE.match(item["cite"]))
    ]
    assert not bad, pformat(bad)


def test_cited_line_ranges_run_forwards():
    """A cited range never ends before it starts."""
    bad = []
    for name, _, row in _all_rows():
        m = re.match(r"^00[0-4]:L([0-9]+)-L?([0-9]+)$", row["cite"])
        if m and int(m.group(2)) <= int(m.group(1)):
            bad.append((name, row["cite"]))
    assert not bad, bad


def test_figures_that_point_at_a_decision_find_it_in_the_same_file():
    """A figure's decision field names an existing decision topic of its own rulebook."""
    missing = []
    for name, (_, data) in BOOKS.items():
        topics = {row["topic"] for row in data.get("decisions", [])}
        for row in data.get("figures", []):
            if "decision" in row and row["decision"] not in topics:
                missing.append((name, row["key"], row["decision"]))
    assert not missing, pformat(missing)


def test_figures_not_read_from_the_rulebooks_own_seed_are_backed_by_a_decision():
    """A figure cited from another seed or from law must carry a decision explaining why it applies."""
    bad = []
    for name, (_, data) in BOOKS.items():
        seed = data["rulebook"]["seed"]
        for row in data.get("figures", []):
            if not row.get("cite", "").startswith(seed + ":") and "decision" not in row:
                bad.append((name, row["key"], row.get("cite")))
    assert not bad, pformat(bad)


def test_a_figure_without_a_cite_is_chosen_by_a_not_in_the_seed_decision():
    """A value no seed line holds cites nothing; its decision's reason starts 'Not in the seed: chosen because'."""
    bad = []
    for name, (_, data) in BOOKS.items():
        reasons = {row["topic"]: row["reason"] for row in data.get("decisions", [])}
        for row in data.get("figures", []):
            if "cite" not in row and not reasons.get(row.get("decision"), "").startswith(NOT_IN_SEED):
                bad.append((name, row["key"], row.get("decision")))
    assert not bad, pformat(bad)


# Values that no line of their seed holds (issue 14 item 22): each must stay a
# decision, never come back with a seed cite. (rulebook, key, value, decision)
CHOSEN_NOT_IN_SEED = {
    ("ray-online", "online.limits.daily_spend.increase_delay", 24, "online.limits.cooling_off"),
    ("ray-online", "online.limits.monthly_spend.increase_delay", 7, "online.limits.cooling_off"),
    ("ray-online", "online.limits.time.increase_delay", 24, "online.limits.cooling_off"),
    ("ray-online", "online.limits.decrease_delay", 0, "online.limits.cooling_off"),
    ("ray-online", "online.loss_cap.day_start", "00:00", "online.day"),
    ("veikkaus-poker-room", "gaming_day.boundary", "06:00", "gaming_day.boundary"),
    ("olympic-tallinn", "gaming_day.boundary", "06:00", "gaming_day.boundary"),
    ("veikkaus-poker-room", "jackpot.bad_beat.payout.min_players", 5, "jackpot.min_players"),
    ("veikkaus-online-poker", "tournament.bounty.progressive.onto_own_basis_points", 5000,
     "tournaments.bounty.progressive_share"),
    # Issue 14 item 5: the legal minimum age of the host country, from its law.
    ("olympic-tallinn", "age.min", 21, "age.min"),
    ("pslive-tournaments", "age.min", 18, "age.min"),
    # Issue 14 item 3: another operator's cage moves no gaming-account money.
    ("olympic-tallinn", "cage.gaming_account.offered", False, "cage.gaming_account.offered"),
    ("pslive-tournaments", "cage.gaming_account.offered", False,
     "cage.gaming_account.offered"),
    # Issue 17 item 2: the cashier's short that raises an alert (asked by 002:L1551).
    ("ray-casino", "cashier.short.alert_threshold", 5000, "cashier.short.alert_threshold"),
    # Issue 18 item 8: the retention period before an erasure (EU 2015/849 art. 40).
    *{(rid, "retention.aml_records.years", 5, "retention.aml_records")
      for rid in ("veikkaus-poker-room", "veikkaus-online-poker", "ray-gaming-hall",
                  "ray-partner-premises", "ray-casino", "ray-online", "olympic-tallinn",
                  "pslive-tournaments")},
}


def test_values_no_seed_line_holds_carry_no_seed_cite():
    """The limit-raise delays (24 h, 7 days) and the other chosen values cite no seed line, only their decision."""
    for rid, key, value, decision in CHOSEN_NOT_IN_SEED:
        row = next(r for r in _book(rid)["figures"] if r["key"] == key)
        assert (row["value"], row.get("decision"), row.get("cite")) == (value, decision, None), (rid, key)
    cite_less = {
        (rid, row["key"])
        for rid in RULEBOOK_IDS for row in _book(rid)["figures"] if "cite" not in row
    }
    assert cite_less == {(rid, key) for rid, key, _, _ in CHOSEN_NOT_IN_SEED}


def test_stake_and_win_limits_appear_only_in_ray_rulebooks():
    """Part IV caps belong to the four RAY rulebooks and each of them has both kinds."""
    for _, data in BOOKS.values():
        rid = data["rulebook"]["id"]
        if rid in RAY_IDS:
            assert data.get("stake_limits") and data.get("win_limits"), rid
        else:
            assert "stake_limits" not in data and "win_limits" not in data, rid


# ---------------------------------------------------------------------------
# Part IV against the hand-typed table
# ---------------------------------------------------------------------------


def test_part_iv_stake_caps_equal_the_hand_typed_table():
    """Every Part IV stake cap is in the data exactly once with the right amount and cite, and nothing else is."""
    rows = [
        (data["rulebook"]["id"], row["game"], row["bet_unit"], row["stake_minor_max"], row["cite"])
        for _, data in BOOKS.values()
        for row in data.get("stake_limits", [])
    ]
    actual = set(rows)
    assert len(actual) == len(rows), "duplicate stake-limit rows"
    assert actual == PART_IV_STAKE_CAPS, _set_diff(actual, PART_IV_STAKE_CAPS)


def test_part_iv_win_caps_equal_the_hand_typed_table():
    """Each RAY venue has exactly the section 11 maximum win, no more rows and no other amounts."""
    rows = [
        (data["rulebook"]["id"], row["win_minor_max"], row["cite"])
        for _, data in BOOKS.values()
        for row in data.get("win_limits", [])
    ]
    actual = set(rows)
    assert len(actual) == len(rows), "duplicate win-limit rows"
    assert actual == PART_IV_WIN_CAPS, _set_diff(actual, PART_IV_WIN_CAPS)


def test_hand_typed_part_iv_table_has_the_expected_row_counts():
    """The reference table itself lists 23 + 23 + 35 + 11 stake caps and 4 win caps."""
    counts = {rid: sum(1 for row in PART_IV_STAKE_CAPS if row[0] == rid) for rid in RAY_IDS}
    assert counts == {"ray-gaming-hall": 23, "ray-partner-premises": 23, "ray-casino": 35, "ray-online": 11}
    assert len(PART_IV_WIN_CAPS) == 4


def test_raise_rules_follow_part_iv():
    """Entry fees and slot caps cannot be raised, hall Red Dog and Bulldog at most double, and only they."""
    for rid in RAY_IDS:
        for row in _book(rid)["stake_limits"]:
            where = (rid, row["id"])
            if row["bet_unit"] == "entry_fee":
                assert row["raise_rule"] == "none", where
            if row["game"] in {"red_dog", "bulldog"} and rid in {"ray-gaming-hall", "ray-partner-premises"}:
                assert row["raise_rule"] == "at_most_double", where
            else:
                assert row["raise_rule"] != "at_most_double", where
            if row["game"] in {"slot_machine", "slot_game", "slot_game_long_round"} and rid != "ray-casino":
                assert row["raise_rule"] == "none", where


def test_every_ray_rulebook_explains_the_single_win_reading():
    """The max-win scope is a decision recorded in each RAY rulebook."""
    for rid in RAY_IDS:
        assert "max_win.scope" in {row["topic"] for row in _book(rid)["decisions"]}, rid


def test_casino_six_number_roulette_cap_has_its_currency_decision():
    """The EUR 3,600 six-number cap, whose currency word is missing in the seed, is backed by a decision."""
    book = _book("ray-casino")
    row = next(r for r in book["stake_limits"] if r["id"] == "roulette.numbers_6")
    assert row["stake_minor_max"] == 360000
    assert "roulette.numbers_6.currency" in {d["topic"] for d in book["decisions"]}


def test_section_8_split_of_slot_caps_is_explained_in_both_rulebooks():
    """Halls and partner premises each record why the slot caps differ between them."""
    for rid in ("ray-gaming-hall", "ray-partner-premises"):
        assert "part4.section8.premises" in {d["topic"] for d in _book(rid)["decisions"]}, rid


# ---------------------------------------------------------------------------
# Key figures
# ---------------------------------------------------------------------------


def test_online_account_and_responsible_gaming_figures():
    """RAY online: one account, EUR 5,000 balance ceiling, 24-06 blackout, EUR 500 loss caps, 12-month exclusion."""
    f = _figures("ray-online")
    assert f["online.account.balance_max"] == 500000
    assert f["online.account.max_per_person"] == 1
    assert (f["online.account.transfer_blackout.start"], f["online.account.transfer_blackout.end"]) == ("00:00", "06:00")
    assert f["credit.allowed"] is False
    assert f["age.min"] == 18
    assert f["online.loss_cap.slots.daily_max"] == 50000
    assert f["online.loss_cap.casino_vs_house.daily_max"] == 50000
    assert f["online.loss_cap.casino_pvp.applies"] is False
    assert f["online.limits.daily_spend.mandatory"] is True
    assert f["online.limits.monthly_spend.mandatory"] is True
    assert f["online.limits.time.mandatory"] is False
    assert f["online.self_exclusion.max_months"] == 12
    assert f["online.self_exclusion.revocable"] is False


def test_online_limit_increases_wait_and_decreases_do_not():
    """Raising a daily limit waits 24 hours, a monthly one 7 days; lowering is immediate."""
    f = _figures("ray-online")
    assert f["online.limits.daily_spend.increase_delay"] == 24
    assert f["online.limits.monthly_spend.increase_delay"] == 7
    assert f["online.limits.decrease_delay"] == 0
    units = {row["key"]: row["unit"] for row in _book("ray-online")["figures"]}
    assert units["online.limits.daily_spend.increase_delay"] == "hours"
    assert units["online.limits.monthly_spend.increase_delay"] == "days"
    cooling_off = next(d for d in _book("ray-online")["decisions"]
                       if d["topic"] == "online.limits.cooling_off")
    assert cooling_off["reason"].startswith(NOT_IN_SEED)
    assert "24 hours" in cooling_off["decision"] and "7 days" in cooling_off["decision"]


def test_pslive_cancellation_is_settled_by_one_decision():
    """004:L182 gives only the right to cancel: one decision settles it, the online policy (issue 14 item 20)."""
    book = _book("pslive-tournaments")
    cancelling = sorted(d["topic"] for d in book["decisions"] if "cancel" in d["topic"])
    assert cancelling == ["tournaments.cancel.policy"]
    policy = next(d for d in book["decisions"] if d["topic"] == "tournaments.cancel.policy")
    assert policy["cite"] == "004:L182"
    assert "001:L417-444" in policy["decision"]
    assert not [f["key"] for f in book["figures"] if f["key"].startswith("cancellation.")]


def _tallinn_rake(pot: int) -> int:
    f = _figures("olympic-tallinn")
    if pot < f["rake.min_pot"]:
        return 0
    return min(f["rake.cap"], (pot // f["rake.block"]) * f["rake.per_block"])


def test_tallinn_rake_is_fifty_cents_per_full_ten_euros_capped_at_ten():
    """Tallinn: EUR 0.50 per full EUR 10, nothing under EUR 10, EUR 10 cap reached at a EUR 200 pot."""
    f = _figures("olympic-tallinn")
    assert (f["rake.per_block"], f["rake.block"], f["rake.cap"], f["rake.min_pot"]) == (50, 1000, 1000, 1000)
    assert _tallinn_rake(999) == 0
    assert _tallinn_rake(3000) == 150  # the seed's own example
    assert _tallinn_rake(3999) == 150
    assert _tallinn_rake(f["rake.cap_reached_at_pot"]) == 1000
    assert _tallinn_rake(50000) == 1000
    assert f["rake.per_block"] * 10000 // f["rake.block"] == f["rake.percent_max"]


def test_tallinn_time_rake_and_jackpot_drop():
    """Tallinn: time rake EUR 30 per 30 minutes at 3 or fewer players; EUR 1 drop at 6 or more, no flop no drop."""
    f = _figures("olympic-tallinn")
    assert (f["time_rake.amount"], f["time_rake.period"], f["time_rake.max_players"]) == (3000, 30, 3)
    assert (f["jackpot.drop"], f["jackpot.drop.min_players"]) == (100, 6)
    assert f["rake.no_flop_no_drop"] is True
    assert f["tournament.min_entrants"] == 7


def _veikkaus_rake_units(pots: list[int], block: int) -> list[int]:
    """Units of rake taken from each pot (in formation order) for the whole-block rule."""
    total, taken = sum(pots), [0] * len(pots)
    for k in range(total // block):
        start, low = k * block, 0
        for i, pot in enumerate(pots):
            if low <= start < low + pot:
                taken[i] += 1
                break
            low += pot
    return taken


def test_veikkaus_room_rake_reproduces_the_seeds_three_examples():
    """Veikkaus room: EUR 1 per full EUR 20 of all pots, taken from the pot where each block starts."""
    f = _figures("veikkaus-poker-room")
    block, unit = f["rake.block"], f["rake.per_block"]
    assert (block, unit, f["rake.percent"]) == (2000, 100, 500)
    assert [u * unit for u in _veikkaus_rake_units([2400, 1600], block)] == [200, 0]
    assert [u * unit for u in _veikkaus_rake_units([1800, 600], block)] == [100, 0]
    assert [u * unit for u in _veikkaus_rake_units([1800, 1800, 1800], block)] == [100, 100, 0]
    assert (f["rake.alt.block"], f["rake.alt.per_block"], f["rake.alt.percent"]) == (1000, 100, 1000)
    assert f["rake.no_flop.flat"] == 100
    assert f["rake.no_flop.jackpot_drop"] is False


def test_veikkaus_bad_beat_jackpot_figures():
    """Veikkaus room: EUR 1 drop at 5+ players reaching round 2, EUR 1,000 base, 80 % and 13 % + 1 %/player."""
    f = _figures("veikkaus-poker-room")
    assert f["jackpot.bad_beat.drop"] == 100
    assert f["jackpot.bad_beat.drop.min_players"] == 5
    assert f["jackpot.bad_beat.drop.min_betting_round"] == 2
    assert f["jackpot.bad_beat.base_guarantee"] == 100000
    assert f["jackpot.bad_beat.cat1.total_share"] == 8000
    assert (
        f["jackpot.bad_beat.cat1.loser_share"]
        + f["jackpot.bad_beat.cat1.winner_share"]
        + f["jackpot.bad_beat.cat1.others_share"]
        == f["jackpot.bad_beat.cat1.total_share"]
    )
    fixed, per_player = f["jackpot.bad_beat.cat2.total_share.fixed"], f["jackpot.bad_beat.cat2.total_share.per_player"]
    assert (fixed + 5 * per_player, fixed + 10 * per_player) == (1800, 2300)
    # One loser, one winner, n - 2 others at 1 % each gives the same total.
    for n in range(5, 11):
        total = (
            f["jackpot.bad_beat.cat2.loser_share"]
            + f["jackpot.bad_beat.cat2.winner_share"]
            + (n - 2) * f["jackpot.bad_beat.cat2.others_share_each"]
        )
        assert total == fixed + n * per_player
    assert (f["jackpot.bad_beat.time_charge.per_60_minutes"], f["jackpot.bad_beat.time_charge.per_15_minutes"]) == (4000, 1000)


def test_veikkaus_buy_in_figures():
    """Veikkaus room: short buy-in once per evening, pot limit only, at least half the minimum."""
    f = _figures("veikkaus-poker-room")
    assert f["buy_in.short.structure"] == "pot_limit"
    assert f["buy_in.short.per_gaming_day"] == 1
    assert f["buy_in.short.min_fraction_of_min_buy_in"] == 5000
    assert f["buy_in.one_night_one_stack"] is True


def test_ray_casino_bad_beat_needs_six_players():
    """RAY casino: bad-beat jackpot pays and collects only with six or more players."""
    f = _figures("ray-casino")
    assert f["jackpot.bad_beat.payout.min_players"] == 6
    assert f["jackpot.bad_beat.contribution.min_players"] == 6
    assert f["jackpot.bad_beat.cash_games_only"] is True


def test_online_poker_rake_table_rows():
    """Online poker: every stake level has blinds, a percentage and a cap; spot-check a few levels."""
    f = _figures("veikkaus-online-poker")
    levels = {
        ("nl_holdem", "nl4"): (2, 4, 100, 100),
        ("nl_holdem", "nl50"): (25, 50, 550, 300),
        ("nl_holdem", "nl400"): (200, 400, 600, 300),
        ("pl_omaha", "pl25"): (10, 25, 300, 300),
        ("pl_omaha", "pl50"): (25, 50, 350, 300),
        ("banzai_holdem", "nl1"): (5, 10, 100, 300),
        ("banzai_holdem", "nl20"): (100, 200, 100, 300),
    }
    for (game, level), expected in levels.items():
        got = tuple(
            f[key]
            for key in (
                f"stake.{game}.{level}.small_blind",
                f"stake.{game}.{level}.big_blind",
                f"rake.{game}.{level}.percent",
                f"rake.{game}.{level}.cap",
            )
        )
        assert got == expected, (game, level, got)
    rake_keys = [k for k in f if k.startswith("rake.") and k.endswith(".percent") and k.count(".") == 3]
    assert len(rake_keys) == 17
    assert f["rake.no_flop_no_drop"] is True
    assert f["rake.min"] == 1
    assert (f["rake.short_handed.cap.blinds_2_4"], f["rake.short_handed.cap.blinds_5_10"]) == (50, 100)
    assert f["rake.short_handed.cap.blinds_10_25_or_higher"] == 150


def test_online_poker_banzai_and_table_figures():
    """Online poker: 6-max tables, Banzai stacks of at most 10 big blinds and a 30-minute stack lock."""
    f = _figures("veikkaus-online-poker")
    assert f["table.max_seats"] == 6
    assert f["banzai.stack_max_big_blinds"] == 10
    assert f["banzai.rathole.window"] == 30


def test_online_poker_tournament_fee_parts_add_up_to_the_buy_in():
    """Each tournament tier's prize part and fee part add up to the tier's buy-in."""
    f = _figures("veikkaus-online-poker")
    tiers = {}
    for key, value in f.items():
        m = re.match(r"^tournament\.fee\.([a-z0-9_]+)\.eur([0-9]+)\.(prize_pool_part|fee_part)$", key)
        if m:
            tiers.setdefault((m.group(1), int(m.group(2))), {})[m.group(3)] = value
    assert len(tiers) == 7 + 8 + 6
    for (fmt, euros), parts in tiers.items():
        assert parts["prize_pool_part"] + parts["fee_part"] == euros * 100, (fmt, euros)


def test_hexapro_prize_table_matches_its_rake():
    """HexaPro: probabilities sum to 100,000 and the expected prize leaves the stated 6.853 % rake."""
    f = _figures("veikkaus-online-poker")
    multipliers = {"x1000": 1000, "x100": 100, "x25": 25, "x10": 10, "x5": 5, "x3": 3, "x1_5": 1.5}
    probabilities = {m: f[f"hexapro.probability_per_100000.{m}"] for m in multipliers}
    assert sum(probabilities.values()) == 100000
    for key, value in f.items():
        m = re.match(r"^hexapro\.prize\.(eur[0-9]+)\.(x[0-9_]+)$", key)
        if m:
            assert value == f[f"hexapro.buy_in.{m.group(1)}"] * multipliers[m.group(2)], key
    expected_pay_ppm = sum(p * multipliers[m] for m, p in probabilities.items()) * 10  # per million of one buy-in
    rake_ppm = round(1_000_000 - expected_pay_ppm / 3)
    assert rake_ppm == f["hexapro.rake"] == 68530


def test_every_rulebook_records_the_eu_cdd_threshold():
    """Each rulebook carries the EUR 2,000 due-diligence threshold cited to Directive 2015/849."""
    for rid in RULEBOOK_IDS:
        rows = {row["key"]: row for row in _book(rid)["figures"]}
        row = rows["aml.cdd.transaction_threshold"]
        assert (row["value"], row["unit"], row["cite"]) == (200000, "minor", "EU 2015/849 art. 11"), rid


def test_cash_payment_cap_applies_only_from_july_2027():
    """Where recorded, the EUR 10,000 cash cap is dated 2027-07-10 and cited to Regulation 2024/1624."""
    found = 0
    for rid in RULEBOOK_IDS:
        for row in _book(rid)["figures"]:
            if row["key"] == "aml.cash_payment.max":
                found += 1
                assert (row["value"], row["cite"], row["effective_from"]) == (
                    1000000,
                    "EU 2024/1624 art. 80",
                    "2027-07-10",
                ), rid
    assert found == 6


def test_every_rulebook_sets_a_minimum_age():
    """Issue 14 item 5: no rulebook leaves the age open (the check fails closed
    without one); Estonia 21 (Hasartmänguseadus § 34(2)), Slovenia 18 (ZIS),
    each a decision citing the law, never a seed line."""
    ages = {rid: _figures(rid).get("age.min") for rid in RULEBOOK_IDS}
    assert None not in ages.values(), ages
    assert (ages["olympic-tallinn"], ages["pslive-tournaments"]) == (21, 18)
    for rid, law in (("olympic-tallinn", "Hasartmänguseadus"),
                     ("pslive-tournaments", "Zakon o igrah na srečo")):
        decision = next(d for d in _book(rid)["decisions"] if d["topic"] == "age.min")
        assert decision["reason"].startswith(NOT_IN_SEED), rid
        assert law in decision["reason"], rid


def test_finnish_rulebooks_set_age_eighteen():
    """Every Finnish rulebook admits players from 18."""
    for rid in ("veikkaus-poker-room", "veikkaus-online-poker", *RAY_IDS):
        assert _figures(rid)["age.min"] == 18, rid
