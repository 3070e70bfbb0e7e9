"""L9 across the whole product: every projection, of every app, is a function
of the log. A mixed scenario touches each app; then every table that is not
the log itself (nor Django's own bookkeeping) must come back from
`rebuild_projections` row for row, ids included."""

from django.apps import apps
from django.contrib.auth.models import Group, User
from django.db import connection

from casino.compliance.commands import approve_correction, propose_correction
from casino.compliance.errors import AttemptRejected
from casino.compliance.pipeline import Attempt, authorize
from casino.demo.gaming_day import ROOM, run_demo
from casino.players.commands import self_exclude, set_limit
from ledger import rebuild_projections
from tests.casino.conftest import NOON, make_player

# The log and Django's own tables are not projections.
NOT_PROJECTIONS = {
    "ledger_event", "ledger_posting", "ledger_idempotency", "ledger_head",
}
FRAMEWORK_APPS = {"admin", "auth", "contenttypes", "sessions", "authtoken"}
RAKE = f"house/{ROOM}/rake"


def projection_tables() -> list[str]:
    return sorted(
        model._meta.db_table
        for model in apps.get_models()
        if model._meta.app_label not in FRAMEWORK_APPS
        and model._meta.db_table not in NOT_PROJECTIONS
        and model._meta.managed
    )


def snapshot() -> dict[str, list[tuple]]:
    tables = {}
    with connection.cursor() as cursor:
        for table in projection_tables():
            cursor.execute(f"SELECT * FROM {table} ORDER BY 1")
            tables[table] = cursor.fetchall()
    return tables


def test_rebuild_reproduces_every_projection_of_every_app(venues, tmp_path):
    """Every app's projections, after a short demo (poker, games, tournaments,
    jackpots, cage, reports) plus limits, refusals and a correction."""
    run_demo(seed=7, hands_per_day=3, rounds_per_day=3, out_dir=tmp_path)
    player = make_player()
    set_limit(player_id=player.id, kind="daily_spend", value=5_000_00, venue_code="ray-online",
              actor="test", at=NOON)
    excluded = make_player()
    self_exclude(player_id=excluded.id, months=2, venue_code="ray-online", actor="test", at=NOON)
    try:
        authorize(Attempt(kind="stake", venue="ray-online", currency="EUR",
                          player_id=excluded.id, game="slot_game", bet_unit="round_total",
                          amount_minor=1_00, at=NOON), actor="test")
    except AttemptRejected:
        pass
    officers = Group.objects.get(name="compliance_officer")
    for name in ("olli", "outi"):
        User.objects.create_user(name).groups.add(officers)
    correction = propose_correction(account=RAKE, counter_account=f"cage/{ROOM}/cash",
                                    amount_minor=1_00, reason="Counted short at close, ticket 9",
                                    actor="olli")
    approve_correction(correction_id=correction.id, actor="outi")

    live = snapshot()
    populated = {table for table, rows in live.items() if rows}
    assert {"ledger_account", "ledger_stream", "rules_rulebookversion", "rules_venue",
            "players_player", "players_playerlimit", "compliance_alert",
            "compliance_correction", "compliance_cashactivity", "cage_cageday"} <= populated

    rebuild_projections()

    rebuilt = snapshot()
    for table in projection_tables():
        assert rebuilt[table] == live[table], f"{table} differs after rebuild"
