"""manage.py export_journal --from D1 --to D2 --format csv|xlsx --out PATH

Writes the journal of gaming days D1..D2 (and its trial balance) and records
the export (reports.journal_exported) with the file's SHA-256 and the head.
CSV writes two files, PATH (the journal) and PATH's stem plus
"-trial-balance.csv", one recorded export each; XLSX writes one workbook with
both sheets. --head N exports as of main-book position N (an export
recorded before books); --heads KEY=N,KEY=N as of every book's recorded head
(`heads` in reports.journal_exported), to reproduce an earlier export byte
for byte.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from casino.errors import CodedError

from ...commands import record_export
from ...journal import FORMATS, JOURNAL, TRIAL_BALANCE, CsvExport, write_xlsx
from ...reading import head_at, parse_heads


class Command(BaseCommand):
    help = "Export the journal of a range of gaming days as CSV or XLSX."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--from", dest="first", required=True, help="first gaming day")
        parser.add_argument("--to", dest="last", required=True, help="last gaming day")
        parser.add_argument("--format", choices=FORMATS, default="csv")
        parser.add_argument("--out", required=True, help="file to write")
        parser.add_argument("--head", type=int, default=None,
                            help="the main book's position")
        parser.add_argument("--heads", default=None,
                            help="every book's position: KEY=N,KEY=N (issue 19)")
        parser.add_argument("--actor", default="manage.py")
        parser.add_argument("--no-progress", action="store_true",
                            help="Hide the progress bar (shown on a terminal only).")

    def handle(self, *args, **options) -> None:
        try:
            first = dt.date.fromisoformat(options["first"])
            last = dt.date.fromisoformat(options["last"])
        except ValueError:
            raise CommandError("--from and --to must be ISO dates, e.g. 2026-06-16") from None
        out = Path(options["out"])
        try:
            head = (head_at(books=parse_heads(options["heads"])) if options["heads"]
                    else head_at(options["head"]))
            if options["format"] == "xlsx":
                self._xlsx(first, last, head, out, options["actor"])
            else:
                self._csv(first, last, head, out, options["actor"],
                          progress=not options["no_progress"])
        except CodedError as error:
            raise CommandError(f"{error.code}: {error.message}") from None

    def _csv(self, first, last, head, out: Path, actor: str, progress: bool = True) -> None:
        targets = {JOURNAL: out, TRIAL_BALANCE: out.with_name(f"{out.stem}-trial-balance.csv")}
        for part, path in targets.items():
            export = CsvExport(first, last, part=part, head=head)
            with path.open("wb") as file, tqdm(
                    unit="B", unit_scale=True, desc=path.name, file=self.stderr._out,
                    disable=None if progress else True) as bar:
                for chunk in export:
                    file.write(chunk)
                    bar.update(len(chunk))
            tally = export.tally
            recorded = record_export(
                actor=actor, first=first, last=last, format="csv", part=part, head=head,
                files=[{"part": part, "rows": tally.rows, "sha256": tally.digest.hexdigest(),
                        "bytes": tally.bytes, "totals": tally.totals()}])
            self.stdout.write(f"{path}: {tally.rows} rows, sha256 {tally.digest.hexdigest()},"
                              f" head #{head.position}, recorded as event"
                              f" #{recorded.position}")

    def _xlsx(self, first, last, head, out: Path, actor: str) -> None:
        export = write_xlsx(first, last, head=head)
        with export.file, out.open("wb") as file:
            shutil.copyfileobj(export.file, file)
        recorded = record_export(
            actor=actor, first=first, last=last, format="xlsx", part="workbook", head=head,
            files=[{"part": "workbook",
                    "rows": export.journal.rows + export.trial_balance.rows,
                    "sha256": export.sha256, "bytes": export.bytes,
                    "totals": export.journal.totals(), "journal_rows": export.journal.rows,
                    "trial_balance_rows": export.trial_balance.rows}])
        self.stdout.write(f"{out}: {export.journal.rows} journal rows,"
                          f" {export.trial_balance.rows} trial balance rows, sha256"
                          f" {export.sha256}, head #{head.position}, recorded as event"
                          f" #{recorded.position}")

