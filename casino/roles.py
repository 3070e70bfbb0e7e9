"""The roles people and client systems act in, as Django groups.

Every API view names the roles it admits; `tests/casino/test_roles.py`
walks every endpoint with every role and asserts exactly that set.
"""

from __future__ import annotations

from dataclasses import dataclass
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


# ---------------------------------------------------------------------------
# Two-person (four-eyes) rules.
#
# Each row names a command and the earlier step of the same record whose
# actor may not take it. The command enforces it in its `check` (so the
# API, the admin actions, the officers' desk and any task get the same
# refusal), records the refusal as an event (the runner appends it under
# the request's key) and raises a coded 403. DESIGN 3: manual corrections
# need two people; decision (officers' desk, casino/officers/jackpots.py):
# a jackpot hit is paid by an officer other than the one who approved it.


@dataclass(frozen=True, slots=True)
class TwoPersonRule:
    command: str        # the runner command refused to the earlier step's actor
    earlier: str        # the step whose actor it is
    actor_field: str    # where the record keeps that actor
    code: str           # the refusal's error code (casino.error_table: 403)
    why: str


TWO_PERSON_RULES: tuple[TwoPersonRule, ...] = (
    TwoPersonRule("jackpots.pay_hit", "jackpots.approve_hit", "approved_by",
                  "jackpots.payer_is_approver",
                  "the approval fixes the amounts and the payment moves the money; one"
                  " person doing both is what the two-person rule prevents"),
    TwoPersonRule("compliance.approve_correction", "compliance.propose_correction",
                  "proposed_by", "compliance.approver_is_proposer",
                  "a manual correction is approved by someone other than its proposer"
                  " (DESIGN 3)"),
    TwoPersonRule("compliance.reject_correction", "compliance.propose_correction",
                  "proposed_by", "compliance.approver_is_proposer",
                  "a manual correction is decided by someone other than its proposer"
                  " (DESIGN 3)"),
)


def two_person_rule(command: str) -> TwoPersonRule:
    """The two-person rule of `command` (KeyError: it has none)."""
    for rule in TWO_PERSON_RULES:
        if rule.command == command:
            return rule
    raise KeyError(command)


def same_person(rule: TwoPersonRule, *, actor: str, earlier_actor: str | None) -> bool:
    """True when `actor` took the earlier step `rule` names (the step is refused)."""
    return bool(earlier_actor) and earlier_actor == actor


def four_eyes_payload(rule: TwoPersonRule, *, actor: str, earlier_actor: str,
                      record: str, message: str) -> dict:
    """The payload of a recorded two-person refusal (every app's `*.four_eyes_refused`)."""
    return {"command": rule.command, "earlier": rule.earlier, "record": record,
            "actor": actor, rule.actor_field: earlier_actor, "rule": rule.code,
            "message": message, "why": rule.why}
