"""Template filters of the officers' pages."""

from django import template

from ..formatting import major as major_units, number_in_book

register = template.Library()


@register.filter
def major(amount_minor, currency: str = "") -> str:
    """{{ row.amount_minor|major:row.currency }} -> "EUR 1,234.56"."""
    if amount_minor is None or amount_minor == "":
        return ""
    return major_units(int(amount_minor), currency or "")


@register.filter
def event_number(position) -> str:
    """{{ event.position|event_number }} -> "#12" on the main book, "#12 in helsinki"
    on another: each book numbers its own events (ledger.books)."""
    if position is None or position == "":
        return ""
    return number_in_book(int(position))


@register.simple_tag
def officer_pages(user) -> dict:
    """Which of the officers' pages `user` may open (the index shows only those)."""
    from casino.roles import Role, has_role

    desk = user.is_superuser or has_role(user, Role.COMPLIANCE_OFFICER, Role.AUDITOR)
    charts = desk or has_role(user, Role.ACCOUNTANT)
    return {"desk": desk, "charts": charts, "verify": desk,
            "reports": user.is_superuser or has_role(user, Role.ACCOUNTANT, Role.AUDITOR,
                                                     Role.COMPLIANCE_OFFICER)}
