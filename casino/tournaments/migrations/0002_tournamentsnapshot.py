"""The snapshot row of each tournament, filled from the log for those already there."""

import django.db.models.deletion
from django.db import migrations, models


def fill_snapshots(apps, schema_editor):
    """Fold each existing tournament's stream into its first snapshot."""
    from casino.tournaments import events as ev
    from casino.tournaments.replay import dump_state, fold

    Event = apps.get_model("ledger", "Event")
    Tournament = apps.get_model("tournaments", "Tournament")
    TournamentSnapshot = apps.get_model("tournaments", "TournamentSnapshot")
    for tournament_id in Tournament.objects.values_list("id", flat=True).iterator():
        rows = list(Event.objects.filter(
            stream=ev.tournament_stream(tournament_id),
            type__in=ev.TOURNAMENT_EVENT_TYPES).order_by("version")
            .values_list("type", "payload", "version"))
        state = fold((event_type, payload) for event_type, payload, _ in rows)
        if state is not None:
            TournamentSnapshot.objects.create(tournament_id=tournament_id,
                                              version=rows[-1][2], state=dump_state(state))


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0001_initial'),
        ('tournaments', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='TournamentSnapshot',
            fields=[
                ('tournament', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='snapshot', serialize=False, to='tournaments.tournament')),
                ('version', models.IntegerField()),
                ('state', models.JSONField()),
            ],
        ),
        migrations.RunPython(fill_snapshots, migrations.RunPython.noop),
    ]
