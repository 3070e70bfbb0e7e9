"""The demo's logins: two compliance officers and an accountant (not the ledger).

Decision (no superuser): the officers are staff in the compliance officer
group and nothing more. The admin shows them every screen through
casino.officers.backends.RoleViewBackend (view permissions for the reading
roles) and the read-only admins; a superuser would hide whether the roles
are enough. Two officers, since approvals need a second person (a jackpot
payout or a correction is never approved by its proposer). The accountant
is staff in the accountant group: the reports' admin admits that role for
closes, exports and seals.

Idempotent: a user is created once; a later run puts back the demo's
groups, flags and password if someone changed them, and saves nothing when
all is as it should be.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from casino.roles import Role, ensure_role_groups

PASSWORD = "casino-demo"


@dataclass(frozen=True, slots=True)
class DemoUser:
    username: str
    role: Role
    description: str


USERS = (
    DemoUser("officer", Role.COMPLIANCE_OFFICER, "compliance officer"),
    DemoUser("officer2", Role.COMPLIANCE_OFFICER,
             "second compliance officer, for two-person approvals"),
    DemoUser("accountant", Role.ACCOUNTANT, "accountant: closes, exports, seals"),
)


def ensure_demo_users() -> list[tuple[DemoUser, bool]]:
    """Create or repair the demo users; return each with whether it was created."""
    ensure_role_groups()
    User = get_user_model()
    done = []
    for spec in USERS:
        user, created = User.objects.get_or_create(
            username=spec.username,
            defaults={"email": f"{spec.username}@example.invalid", "is_staff": True})
        changed = created
        if not user.is_staff or user.is_superuser or not user.is_active:
            user.is_staff, user.is_superuser, user.is_active = True, False, True
            changed = True
        if not user.check_password(PASSWORD):
            user.set_password(PASSWORD)
            changed = True
        if changed:
            user.save()
        group = Group.objects.get(name=spec.role.value)
        if not user.groups.filter(pk=group.pk).exists():
            user.groups.add(group)
        done.append((spec, created))
    return done
