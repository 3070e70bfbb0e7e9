"""Event types of the reports app, their streams and idempotency keys.

The reports write no postings: their events are the record of what was
closed, exported and sealed, each holding the ledger head (position and
hash) it was computed at, so an auditor can later recompute the same figures
or bytes from the log up to that position and compare.

Streams and keys:

    reports/close/<venue>/<day>   day_closed (one per venue and gaming day;
                                  key reports/close/<venue>/<day>)
    reports/exports               journal_exported, threshold_report_exported
                                  (one per export; no key: each export is its
                                  own fact)
    reports/seal                  day_sealed (key reports/seal/<day>),
                                  seal_refused (the chain failed to verify)

`head_position` and `head_hash` are the main book's head (as before books);
`heads` (issue 19) is every book's: {book key: {position, hash}}, each book
read up to its own head (casino/reports/reading.py). Events recorded before
books have no `heads`: they were read up to the main book's head alone.

Payloads (amounts in minor units, debit positive unless a figure says
otherwise):

    day_closed        venue, gaming_day, head_position, head_hash, heads,
                      reconciled,
                      differences[...], checks{...}, lines[...], figures{...},
                      notes[...], postings, events
    journal_exported  actor, from, to, format, part, rows, events, totals
                      {currency: {debit_minor, credit_minor}}, sha256, bytes,
                      head_position, head_hash, heads, files[{part, rows,
                      sha256, bytes}]
    threshold_report_exported
                      actor, report, from, to, format, rows, sha256, bytes,
                      head_position, head_hash, heads (the rows are rebuilt
                      from the log up to those heads: casino.reports.
                      thresholds.build(..., up_to=head_of_record(payload)))
    day_sealed        gaming_day, head_position, head_hash, heads,
                      day_last_position, day_last_hash, day_events,
                      verified_events, and with books other than main
                      day_ends{key: {day_last_position, day_last_hash,
                      day_events}} (each book's, up to its sealed head)
    seal_refused      gaming_day, bad_position, problem, verified_events
"""

SCHEMA_VERSION = 1
SOURCE = "casino.reports"

DAY_CLOSED = "reports.day_closed"
JOURNAL_EXPORTED = "reports.journal_exported"
THRESHOLD_REPORT_EXPORTED = "reports.threshold_report_exported"
DAY_SEALED = "reports.day_sealed"
SEAL_REFUSED = "reports.seal_refused"

PROJECTED_TYPES = frozenset({DAY_CLOSED, JOURNAL_EXPORTED, DAY_SEALED,
                             THRESHOLD_REPORT_EXPORTED})
EXPORTS_STREAM = "reports/exports"
SEAL_STREAM = "reports/seal"


def close_stream(venue: str, day) -> str:
    return f"reports/close/{venue}/{day.isoformat()}"


def close_key(venue: str, day) -> str:
    return f"reports/close/{venue}/{day.isoformat()}"


def seal_key(day) -> str:
    return f"reports/seal/{day.isoformat()}"
