"""Officer screens for the jackpots: pools, roll-ups, hits; approvals as actions.

Rows are projections of events and read-only. The two actions on hits call
the same commands as the API (`approve_hit`, `pay_hit`) as the signed-in
user, only for compliance officers; the approver is recorded in the event.
"""

from django.contrib import admin, messages

from casino.errors import CodedError
from casino.roles import Role, has_role
from ledger import ReadOnlyAdmin

from . import commands
from .models import JackpotHit, JackpotPool, JackpotRollup, JackpotTerms


@admin.register(JackpotPool)
class JackpotPoolAdmin(ReadOnlyAdmin):
    list_display = ["key", "status", "currency", "last_rolled_day", "rollups",
                    "contributions", "rolled_up_minor", "paid_minor", "topped_up_minor",
                    "base_guarantee_minor", "hits"]
    list_filter = ["venue", "status"]


@admin.register(JackpotRollup)
class JackpotRollupAdmin(ReadOnlyAdmin):
    list_display = ["pool", "gaming_day", "contributions", "amount_minor", "position"]
    list_filter = ["pool", "gaming_day"]
    date_hierarchy = "gaming_day"


@admin.register(JackpotTerms)
class JackpotTermsAdmin(ReadOnlyAdmin):
    """The terms venues posted (decision jackpots.posted_terms): who, when, what."""

    list_display = ["pool", "position", "posted_by", "posted_at", "effective_day",
                    "base_guarantee_minor", "notice"]
    list_filter = ["pool"]


@admin.register(JackpotHit)
class JackpotHitAdmin(ReadOnlyAdmin):
    list_display = ["id", "pool", "trigger", "state", "category", "row", "hand_started_at",
                    "pool_now", "balance_minor", "amount_minor", "top_up_minor",
                    "approved_by", "paid_by"]
    list_filter = ["state", "trigger", "category", "pool"]
    readonly_fields = ["pool_now"]
    actions = ["approve_hits", "pay_hits"]

    @admin.display(description="pool now (paid on approval)")
    def pool_now(self, obj) -> str:
        """Before approval a hit has no amount yet: show what the pool holds now."""
        from ledger.read import Account

        account = Account.objects.filter(code=obj.pool.pool_account).first()
        if account is None:
            return "-"
        whole, cents = divmod(abs(account.balance_minor), 100)
        sign = "-" if account.balance_minor < 0 else ""
        return f"{account.currency} {sign}{whole:,}.{cents:02d}"

    def _decide(self, request, queryset, command, verb: str) -> None:
        if not has_role(request.user, Role.COMPLIANCE_OFFICER):
            self.message_user(request, "Only compliance officers decide jackpot hits.",
                              messages.ERROR)
            return
        for hit in queryset.order_by("hand_started_at", "recorded_position"):
            try:
                command(hit_id=hit.id, actor=request.user.get_username(),
                        idempotency_key=f"admin:{request.user.pk}:{verb}:{hit.id}")
            except CodedError as error:
                self.message_user(request, f"{hit.id}: {error.message}", messages.ERROR)
            else:
                self.message_user(request, f"{hit.id}: {verb}d.", messages.SUCCESS)

    @admin.action(description="Approve the selected hits (fix the shares)")
    def approve_hits(self, request, queryset) -> None:
        self._decide(request, queryset, commands.approve_hit, "approve")

    @admin.action(description="Pay the selected approved hits")
    def pay_hits(self, request, queryset) -> None:
        self._decide(request, queryset, commands.pay_hit, "pay")
