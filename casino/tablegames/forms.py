"""The admin's chip forms: chips received into the chip bank, and its count.

A count is entered as pieces per chip denomination; the form offers the
usual casino chip values and every denomination the venue's stock already
holds (the commands take any positive denomination in cents).
"""

from __future__ import annotations

from django import forms

# The chip values the form offers first, in cents (EUR 1000 down to EUR 1);
# a UI list, not a rule: the commands count any denomination.
CHIP_DENOMINATIONS_MINOR = (100000, 50000, 10000, 2500, 1000, 500, 250, 100)
PIECES_MAX = 1_000_000


def _label(denomination: int) -> str:
    whole, cents = divmod(denomination, 100)
    return f"EUR {whole:,}.{cents:02d} chips" if cents else f"EUR {whole:,} chips"


class ChipsForm(forms.Form):
    venue = forms.ChoiceField(choices=())
    second_signer = forms.CharField(max_length=150, help_text="The other person who signs"
                                                              " (you are the first).")

    def __init__(self, *args, venues: list[str], denominations: list[int], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["venue"].choices = [(code, code) for code in venues]
        self.denominations = sorted(set(CHIP_DENOMINATIONS_MINOR) | set(denominations),
                                    reverse=True)
        for denomination in self.denominations:
            self.fields[f"chips_{denomination}"] = forms.IntegerField(
                label=_label(denomination), min_value=0, max_value=PIECES_MAX,
                required=False, widget=forms.NumberInput(attrs={"size": 6, "min": 0}))

    def chips(self) -> dict[str, int]:
        return {str(d): self.cleaned_data[f"chips_{d}"] for d in self.denominations
                if self.cleaned_data.get(f"chips_{d}")}

    def chip_fields(self) -> list:
        return [self[f"chips_{d}"] for d in self.denominations]

    def plain_fields(self) -> list:
        return [self[name] for name in self.fields if not name.startswith("chips_")]


class ChipReceiptForm(ChipsForm):
    note = forms.CharField(max_length=500, required=False)


class ChipCountForm(ChipsForm):
    reason = forms.CharField(required=False, max_length=500,
                             widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Required when any denomination is off the stock.")
