"""manage.py demo: load the demo gaming day, verify the chain, show balances."""

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from casino.compliance.models import Alert
from ledger.models import Account

from ...gaming_day import run_gaming_day

DEMO_USERNAME = "officer"
DEMO_PASSWORD = "casino-demo"


class Command(BaseCommand):
    help = "Append a deterministic demo gaming day, verify the ledger, print balances."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--seed", type=int, default=2026)

    def handle(self, *args, seed: int, **options) -> None:
        call_command("load_rulebooks", stdout=self.stdout)
        summary = run_gaming_day(seed=seed)
        self.stdout.write(
            f"demo: {summary.appended} writes appended, {summary.replayed} already present,"
            f" {summary.refused} refused (a self-excluded player, recorded; an overdraft,"
            " not written)"
        )
        call_command("verify_ledger", stdout=self.stdout)
        alerts = Alert.objects.count()
        self.stdout.write(f"compliance alerts: {alerts}")
        self.stdout.write("\nBalances (natural direction, EUR):")
        for account in Account.objects.order_by("code"):
            self.stdout.write(
                f"  {account.code:<34} {account.type:<10} {account.balance_minor / 100:>12,.2f}"
            )
        User = get_user_model()
        if not User.objects.filter(username=DEMO_USERNAME).exists():
            User.objects.create_superuser(DEMO_USERNAME, "officer@example.invalid", DEMO_PASSWORD)
        self.stdout.write(
            f"\nAdmin: http://127.0.0.1:8000/admin/  login {DEMO_USERNAME} / {DEMO_PASSWORD}"
        )
