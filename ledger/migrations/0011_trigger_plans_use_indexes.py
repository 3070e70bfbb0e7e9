"""The log's insert triggers look rows up by key, whatever the statistics say.

Each insert's triggers check the statement's rows against the tables by key:
a posting's event (by position), its account (by code), a stream's version
(by name), the book's head (by id). The planner picks how, from the tables'
statistics; an ANALYZE taken while the tables were nearly empty (a test
database after a flush, a new venue's first hour) left it believing them
tiny, and it then read the whole event table once per posting: an append
of 1,000 machine rounds took 2 s instead of milliseconds, and grew with
the log (measured in the test suite: the hall evening, 8 minutes instead
of 17 s). Sequential scans are switched off inside these functions only:
the transition tables (the statement's own rows) are still read whole, as
they can only be, and every table is reached through its index.
"""

from django.db import migrations

FUNCTIONS = (
    "ledger_event_appended()",
    "ledger_postings_inserted()",
    "ledger_event_versions_continue()",
    "ledger_posting_day_matches()",
)

FORWARD = "\n".join(f"ALTER FUNCTION {f} SET enable_seqscan = off;" for f in FUNCTIONS)
BACKWARD = "\n".join(f"ALTER FUNCTION {f} RESET enable_seqscan;" for f in FUNCTIONS)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0010_posting_gaming_day_state")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
