"""Read access to the admin by role: officers and auditors see every screen.

The roles are Django groups without model permissions (casino.roles), so a
compliance officer who is staff but not a superuser would see an empty
admin. This backend grants the `view_*` permission of every model outside
Django's own user and token tables, and nothing else, to compliance officers,
auditors and accountants; add, change and delete stay refused by the read-only admins
whatever a backend says. Enable it beside Django's own backend:

    AUTHENTICATION_BACKENDS = [
        "django.contrib.auth.backends.ModelBackend",
        "casino.officers.backends.RoleViewBackend",
    ]
"""

from __future__ import annotations

from django.contrib.auth.backends import BaseBackend

from casino.roles import Role, has_role

# Accountants read the same screens (the ledger, the cage, the day closes)
# to reconcile; like everyone, they change nothing here (issue 17 item 1).
READ_ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)
PRIVATE_APPS = frozenset({"auth", "authtoken", "sessions", "admin", "contenttypes"})


class RoleViewBackend(BaseBackend):
    """Grant view permissions (only) to the reading roles; authenticates no one."""

    def has_perm(self, user_obj, perm: str, obj=None) -> bool:
        app_label, _, codename = perm.partition(".")
        return (user_obj.is_active and codename.startswith("view_")
                and app_label not in PRIVATE_APPS and has_role(user_obj, *READ_ROLES))

    def has_module_perms(self, user_obj, app_label: str) -> bool:
        return (user_obj.is_active and app_label not in PRIVATE_APPS
                and has_role(user_obj, *READ_ROLES))
