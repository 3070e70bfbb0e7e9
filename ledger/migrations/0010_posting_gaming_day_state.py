"""The posting's gaming day in Django's state (the column came with 0009).

The writer files each posting under its event's gaming day, the partition
key of the posting table, so a month's postings sit in that month's
partition. Postings written before the writer did so keep NULL (in the
DEFAULT partition); the column stays nullable for them.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ledger", "0009_time_partitions")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField("posting", "gaming_day",
                                    models.DateField(null=True, blank=True)),
            ],
        ),
    ]
