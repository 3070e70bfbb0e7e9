"""Template filters of the officers' pages."""

from django import template

from ..formatting import major as major_units

register = template.Library()


@register.filter
def major(amount_minor, currency: str = "") -> str:
    """{{ row.amount_minor|major:row.currency }} -> "1,234.56 EUR"."""
    if amount_minor is None or amount_minor == "":
        return ""
    return major_units(int(amount_minor), currency or "")
