"""MachineDay keyed by `<machine>/<day>`, so a rebuild reproduces its rows exactly.

The table is a projection: it is created again with its key first and filled
from the log's machine events (the same `meter_amounts` the projection adds).
"""

from types import SimpleNamespace

import django.db.models.deletion
from django.db import connection, migrations, models

METERS = ("coin_in_minor", "coin_out_minor", "cash_in_minor", "vouchers_issued_minor",
          "vouchers_redeemed_minor", "rounds", "rounds_rejected", "jackpots_minor",
          "cancelled_credits_minor", "malfunction_credits_minor",
          "jackpot_contributions_minor")
CHUNK = 10_000


def refill(apps, schema_editor):
    from casino.machines.projections import meter_amounts

    MachineDay = apps.get_model("machines", "MachineDay")
    rows: dict[tuple, dict] = {}
    last = 0
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                "SELECT position, type, payload, gaming_day FROM ledger_event"
                " WHERE type LIKE 'machines.%%' AND position > %s ORDER BY position LIMIT %s",
                [last, CHUNK])
            found = cursor.fetchall()
            if not found:
                break
            for position, type_, payload, day in found:
                last = position
                if isinstance(payload, str):
                    import json
                    payload = json.loads(payload)
                amounts = meter_amounts(SimpleNamespace(type=type_, payload=payload))
                if amounts is None:
                    continue
                row = rows.setdefault((amounts[0], day), dict.fromkeys(METERS, 0))
                for name, value in amounts[1].items():
                    row[name] += value
    MachineDay.objects.bulk_create(
        MachineDay(key=f"{machine}/{day.isoformat()}", machine_id=machine, day=day, **meters)
        for (machine, day), meters in rows.items())


class Migration(migrations.Migration):

    dependencies = [
        ('machines', '0002_jackpots_malfunctions_tournaments_rounds'),
        ('ledger', '__first__'),
    ]

    operations = [
        migrations.DeleteModel(name='MachineDay'),
        migrations.CreateModel(
            name='MachineDay',
            fields=[
                ('key', models.CharField(max_length=80, primary_key=True, serialize=False)),
                ('day', models.DateField()),
                ('coin_in_minor', models.BigIntegerField(default=0)),
                ('coin_out_minor', models.BigIntegerField(default=0)),
                ('cash_in_minor', models.BigIntegerField(default=0)),
                ('vouchers_issued_minor', models.BigIntegerField(default=0)),
                ('vouchers_redeemed_minor', models.BigIntegerField(default=0)),
                ('rounds', models.PositiveIntegerField(default=0)),
                ('rounds_rejected', models.PositiveIntegerField(default=0)),
                ('jackpots_minor', models.BigIntegerField(default=0)),
                ('cancelled_credits_minor', models.BigIntegerField(default=0)),
                ('malfunction_credits_minor', models.BigIntegerField(default=0)),
                ('jackpot_contributions_minor', models.BigIntegerField(default=0)),
                ('machine', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                              related_name='days', to='machines.machine')),
            ],
            options={
                'ordering': ['machine', 'day'],
                'constraints': [models.UniqueConstraint(fields=('machine', 'day'),
                                                        name='machines_day_unique')],
            },
        ),
        migrations.RunPython(refill, migrations.RunPython.noop),
    ]
