"""What a general ledger imports: summarised entries and a trial balance by GL.

Beside the journal's detail (one row per posting), an export carries:

- `summary`: one summarised journal entry per gaming day, venue (the
  entity) and GL account: entry, gaming_day, venue, gl_account, gl_name,
  currency, debit, credit, postings. Each (gaming day, venue) is one entry
  (`<venue>/<day>`) whose lines balance per currency, since every event
  does (ledger L3) and an event belongs to one venue (chart.event_venue);
  postings of events no rule places are the venue `-` (never dropped).
- `gl_trial_balance`: the trial balance by GL account: gl_account, gl_name,
  currency, accounts, opening, debit, credit, closing. Subledgers are one
  line each (player liabilities, 2100, is one line however many players);
  the per-account trial balance (`trial_balance`) is its drill-down.

Amounts are minor units here; the writers format them. Both read at one
head position, like the journal (reading.py).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Iterator

from . import chart
from .reading import Head, day_range_positions, day_range_where, entity_venues, iter_pages

SUMMARY = "summary"
GL_TRIAL_BALANCE = "gl_trial_balance"
SUMMARY_COLUMNS = ("entry", "gaming_day", "venue", "gl_account", "gl_name", "currency",
                   "debit", "credit", "postings")
GL_TRIAL_BALANCE_COLUMNS = ("gl_account", "gl_name", "currency", "accounts", "opening",
                            "debit", "credit", "closing")
UNATTRIBUTED = "-"
# A companion event across books is attributed as the event it completes
# (its payload's stream; close.EVENT_STREAM_SQL).
_SELECT = (f"e.position, p.index, e.gaming_day, CASE WHEN e.type = '{chart.COMPANION_EVENT}'"
           " THEN e.payload->>'stream' ELSE e.stream END, e.payload->>'venue', p.account_id,"
           " p.amount_minor, p.currency")


def summary_rows(first: dt.date, last: dt.date, head: Head) -> list[tuple]:
    """Return the summarised entries (SUMMARY_COLUMNS; amounts in minor units)."""
    positions = day_range_positions(first, last, head)
    if positions is None:
        return []
    where, params = day_range_where(first, last)
    entities = entity_venues(head)
    totals: dict[tuple, list[int]] = defaultdict(lambda: [0, 0, 0])
    pending: list[tuple] = []

    def flush() -> None:
        if not pending:
            return
        _, _, day, stream, payload_venue = pending[0][:5]
        venue = chart.event_venue(stream=stream, payload_venue=payload_venue,
                                  accounts=tuple(row[5] for row in pending),
                                  entities=entities) or UNATTRIBUTED
        for row in pending:
            gl_code, gl_name = chart.gl_account(row[5], day)
            total = totals[(day, venue, gl_code, gl_name, row[7])]
            amount = row[6]
            total[0 if amount > 0 else 1] += abs(amount)
            total[2] += 1
        pending.clear()

    for page in iter_pages(_SELECT, where, params, head=head, positions=positions):
        for row in page:
            if pending and pending[0][0] != row[0]:
                flush()
            pending.append(row)
    flush()
    return [(f"{venue}/{day.isoformat()}", day, venue, gl_code, gl_name, currency,
             debit, credit, count)
            for (day, venue, gl_code, gl_name, currency), (debit, credit, count)
            in sorted(totals.items())]


def gl_trial_balance_rows(per_account: Iterator[tuple]) -> list[tuple]:
    """Fold the per-account trial balance into one row per GL account and currency."""
    folded: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for _code, gl_code, gl_name, currency, opening, debit, credit, closing in per_account:
        row = folded[(gl_code, gl_name, currency)]
        row[0] += 1
        row[1] += opening
        row[2] += debit
        row[3] += credit
        row[4] += closing
    return [(gl_code, gl_name, currency, *values)
            for (gl_code, gl_name, currency), values in sorted(folded.items())]
