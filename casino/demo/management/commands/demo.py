"""manage.py demo [--seed N]: two demo gaming days, verified and summarised.

Runs casino.demo.gaming_day.run_demo with a progress bar, then the chain
verification (`verify_ledger`), a summary read from the projections, and
the demo logins. Running it again with the same seed appends nothing and
prints the same summary.
"""

import time
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand

from ...gaming_day import DAYS, HANDS_MAX, HANDS_MIN, ROUNDS_DEFAULT, SEED_DEFAULT, run_demo
from ...summary import summarize
from ...users import PASSWORD, ensure_demo_users


class Command(BaseCommand):
    help = ("Play two deterministic demo gaming days through the casino's commands, verify"
            " the ledger, print a summary and the admin logins.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--seed", type=int, default=SEED_DEFAULT)
        parser.add_argument("--hands", type=int, default=None,
                            help=f"hands per table and day (default: {HANDS_MIN}-{HANDS_MAX},"
                                 " drawn from the seed)")
        parser.add_argument("--rounds", type=int, default=ROUNDS_DEFAULT,
                            help="house-game rounds per table and day")
        parser.add_argument("--out-dir", type=Path, default=None,
                            help="where the journal export goes (default: .data/demo)")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, seed: int, hands: int | None, rounds: int, out_dir: Path | None,
               no_progress: bool, **options) -> None:
        started = time.monotonic()
        self.stdout.write(f"Demo gaming days {DAYS[0]} and {DAYS[1]}, seed {seed}")
        result = run_demo(seed=seed, hands_per_day=hands, rounds_per_day=rounds,
                          out_dir=out_dir, progress=not no_progress, say=self.stdout.write)
        elapsed = time.monotonic() - started
        news = ("nothing new: every write was already recorded" if not result.appended
                else "new")
        self.stdout.write(f"\nThis run appended {result.appended} events ({news})"
                          f" in {elapsed:.0f} s.")
        call_command("verify_ledger", stdout=self.stdout)
        self.stdout.write("\nSummary")
        for line in summarize(DAYS).lines():
            self.stdout.write(f"  {line}")
        self.stdout.write("\nWhere to look")
        for line in _pointers(result.facts):
            self.stdout.write(f"  {line}")
        self.stdout.write("\nLogins (password for each: " + PASSWORD + ")")
        for user, created in ensure_demo_users():
            self.stdout.write(f"  {user.username:<11} {user.description}"
                              f"{' (created)' if created else ''}")
        self.stdout.write("\nAdmin: http://127.0.0.1:8000/admin/  e.g. login officer /"
                          f" {PASSWORD}")


def _pointers(facts: dict) -> list[str]:
    """The run's notable facts, by id, for a newcomer clicking through the admin."""
    lines = []
    if facts.get("bad_beat_hand"):
        state = {"hit": "awaiting an officer's approval", None: "NOT recorded"}.get(
            facts.get("bad_beat_hit_state"), facts.get("bad_beat_hit_state"))
        lines.append(f"bad beat (aces full beaten by four kings): hand {facts['bad_beat_hand']},"
                     f" jackpot hit {state}")
    if facts.get("disputed_hand"):
        lines.append(f"disputed showdown: hand {facts['disputed_hand']} (an officer decides)")
    if facts.get("disputed_round"):
        lines.append(f"wrongly declared roulette payout: round {facts['disputed_round']}")
    if facts.get("misdeal_hand"):
        lines.append(f"misdeal voided: hand {facts['misdeal_hand']}")
    if facts.get("aml_deposit_position"):
        lines.append(f"cash over the EUR 2,000 threshold: event #{facts['aml_deposit_position']}"
                     " and its AML alert")
    if facts.get("stake_void_bet"):
        lines.append(f"stake above the table maximum: bet {facts['stake_void_bet']},"
                     f" EUR {facts['stake_void_minor'] / 100:.2f} void")
    refused = [facts.get(k) for k in ("self_excluded_refusal", "unverified_refusal",
                                      "entry_refusal")]
    refused += facts.get("stake_refusals", [])
    lines.append(f"refused and recorded: {', '.join(r for r in refused if r)};"
                 f" refused, not written: {facts.get('overdraft_refusal', '-')} (an overdraft)")
    for part, export in facts.get("exports", {}).items():
        lines.append(f"{part.replace('_', ' ')} export: {export['path']}"
                     f" (sha256 {export['sha256'][:16]}..., event #{export['position']})")
    return lines
