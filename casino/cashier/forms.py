"""The admin's shift forms: open, close and hand over a window (issue 17 item 2).

A count is entered as pieces per euro note and coin; `count_of` turns the
form into the `{denomination_minor: pieces}` map the commands take, so the
admin and the API hand the same command the same count.
"""

from __future__ import annotations

from django import forms

# The euro's notes and coins, in cents (the ECB issues these; the EUR 1 and
# 2 cent coins are counted too, though Finland rounds cash payments).
EURO_DENOMINATIONS_MINOR = (50000, 20000, 10000, 5000, 2000, 1000, 500,
                            200, 100, 50, 20, 10, 5, 2, 1)
PIECES_MAX = 100_000


def _label(denomination: int) -> str:
    if denomination >= 500:
        return f"EUR {denomination // 100} notes"
    if denomination >= 100:
        return f"EUR {denomination // 100} coins"
    return f"{denomination} cent coins"


def field_name(prefix: str, denomination: int) -> str:
    return f"{prefix}_{denomination}"


class CountForm(forms.Form):
    """A form with one pieces field per denomination under `count_prefixes`."""

    count_prefixes: tuple[tuple[str, str], ...] = ()

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for prefix, title in self.count_prefixes:
            for denomination in EURO_DENOMINATIONS_MINOR:
                self.fields[field_name(prefix, denomination)] = forms.IntegerField(
                    label=f"{title}: {_label(denomination)}", min_value=0,
                    max_value=PIECES_MAX, required=False,
                    widget=forms.NumberInput(attrs={"size": 6, "min": 0}))

    def count_of(self, prefix: str) -> dict[str, int]:
        data = self.cleaned_data
        return {str(denomination): data[field_name(prefix, denomination)]
                for denomination in EURO_DENOMINATIONS_MINOR
                if data.get(field_name(prefix, denomination))}

    def count_fields(self, prefix: str) -> list:
        return [self[field_name(prefix, denomination)]
                for denomination in EURO_DENOMINATIONS_MINOR]


class OpenShiftForm(CountForm):
    count_prefixes = (("bank", "Bank"),)
    venue = forms.ChoiceField(choices=())
    window = forms.CharField(max_length=40)
    cashier = forms.CharField(max_length=150, required=False,
                              help_text="Blank: you.")

    def __init__(self, *args, venues: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["venue"].choices = [(code, code) for code in venues]


class CloseShiftForm(CountForm):
    count_prefixes = (("count", "Count"),)
    reason = forms.CharField(required=False, max_length=500,
                             widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Required when the count is over or short.")


class HandOverForm(CountForm):
    count_prefixes = (("count", "Count"), ("bank", "Next bank"))
    to_cashier = forms.CharField(max_length=150, label="Incoming cashier")
    reason = forms.CharField(required=False, max_length=500,
                             widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Required when the count is over or short.")
