"""The roles people and client systems act in, as Django groups.

Every API view names the roles it admits; `tests/casino/test_roles.py`
walks every endpoint with every role and asserts exactly that set.
"""

from __future__ import annotations

from enum import StrEnum

from rest_framework.permissions import BasePermission


class Role(StrEnum):
    CAGE = "cage"
    TABLE_CONTROLLER = "table_controller"
    COMPLIANCE_OFFICER = "compliance_officer"
    ACCOUNTANT = "accountant"
    AUDITOR = "auditor"


def roles_of(user) -> frozenset[str]:
    if user is None or not user.is_authenticated:
        return frozenset()
    cached = getattr(user, "_casino_roles", None)
    if cached is None:
        cached = frozenset(user.groups.values_list("name", flat=True)) & set(Role)
        user._casino_roles = cached
    return cached


def has_role(user, *roles: Role) -> bool:
    return bool(roles_of(user) & set(roles))


def ensure_role_groups() -> None:
    """Create one Django group per role (idempotent)."""
    from django.contrib.auth.models import Group

    for role in Role:
        Group.objects.get_or_create(name=role.value)


class HasRole(BasePermission):
    """Admit users holding one of the view's roles.

    Views declare `roles_read` (GET, HEAD, OPTIONS) and `roles_write`.
    """

    message = "your role does not allow this"

    def has_permission(self, request, view) -> bool:
        allowed = (view.roles_read if request.method in ("GET", "HEAD", "OPTIONS")
                   else view.roles_write)
        return has_role(request.user, *allowed)
