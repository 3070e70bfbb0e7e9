"""HTTP responses of a journal export, shared by the API and the admin.

CSV goes out as a StreamingHttpResponse over journal.CsvExport (recorded
when its last chunk has been produced); XLSX is written to a temporary file
first (constant memory), recorded, then streamed from it in chunks by a
generator that closes the file when the last chunk is sent (or the client
goes away), whatever server runs it.
Headers name the head the export was read at, so the person downloading
can find the export's event: X-Ledger-Head-Position, X-Ledger-Head-Hash
(the main book's), X-Ledger-Heads (every book's position, KEY=N,...),
and for XLSX X-Export-SHA256 and X-Export-Event-Position.
"""

from __future__ import annotations

import datetime as dt

from django.http import StreamingHttpResponse

from casino.replicas.router import (REPLICA, on_primary, reading_from_replica, reading_in,
                                    streaming_in)

from . import commands
from .errors import ReportsError
from .journal import CsvExport, write_xlsx
from .reading import Head, head_at, parse_heads

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def journal_response(*, first: dt.date, last: dt.date, format: str, part: str,
                     head_position: int | None, actor: str, heads: str | None = None):
    """Return the export as a streamed response; the export records itself.

    The journal is read from the replica when it is fresh (issue 19 point
    6, casino/replicas), the whole export where its head was read; the
    record is written on the primary.
    """
    alias, head = _read_head(head_position, heads)
    name = f"journal-{first.isoformat()}-{last.isoformat()}"
    if format == "xlsx":
        with reading_in(alias):
            export = write_xlsx(first, last, head=head)
        files = [{"part": "workbook", "rows": export.journal.rows + export.trial_balance.rows,
                  "sha256": export.sha256, "bytes": export.bytes,
                  "totals": export.journal.totals(),
                  "journal_rows": export.journal.rows,
                  "trial_balance_rows": export.trial_balance.rows}]
        recorded = commands.record_export(actor=actor, first=first, last=last, format="xlsx",
                                          part="workbook", head=head, files=files)
        response = StreamingHttpResponse(_chunks(export.file), content_type=XLSX_CONTENT_TYPE)
        response["Content-Disposition"] = f'attachment; filename="{name}.xlsx"'
        response["Content-Length"] = str(export.bytes)
        # Closed by the server when the response ends, even if never read.
        response._resource_closers.append(export.file.close)
        response["X-Export-SHA256"] = export.sha256
        response["X-Export-Event-Position"] = str(recorded.position)
    else:
        def record(csv_export: CsvExport):
            tally = csv_export.tally
            with on_primary():
                return commands.record_export(
                    actor=actor, first=first, last=last, format="csv", part=part, head=head,
                    files=[{"part": part, "rows": tally.rows,
                            "sha256": tally.digest.hexdigest(),
                            "bytes": tally.bytes, "totals": tally.totals()}])

        suffix = "" if part == "journal" else f"-{part.replace('_', '-')}"
        export = CsvExport(first, last, part=part, head=head, record=record)
        response = StreamingHttpResponse(streaming_in(alias, export),
                                         content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{name}{suffix}.csv"'
    response["X-Ledger-Head-Position"] = str(head.position)
    response["X-Ledger-Head-Hash"] = head.hash
    response["X-Ledger-Heads"] = ",".join(
        f"{key}={value['position']}" for key, value in head.heads().items())
    return response


def _read_head(head_position: int | None, heads: str | None = None):
    """Return where the export reads and its head: the replica's when fresh, else the primary's.

    A head the client names that the replica has not replayed yet is read
    on the primary, as is everything after it. `heads` (KEY=N,...) names
    every book's head, `head_position` the main book's alone.
    """
    named = parse_heads(heads) if heads else None

    def read() -> Head:
        return head_at(books=named) if named else head_at(head_position)

    with reading_from_replica() as alias:
        try:
            return alias, read()
        except ReportsError:
            if alias != REPLICA:
                raise
    return "default", read()


CHUNK_BYTES = 64 * 1024


def _chunks(file):
    try:
        while chunk := file.read(CHUNK_BYTES):
            yield chunk
    finally:
        file.close()
