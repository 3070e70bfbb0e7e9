"""Serializers of the reports API: query parameters and recorded reports."""

from __future__ import annotations

from rest_framework import serializers

from casino.api import StrictSerializer

from ..journal import FORMATS, PARTS


class JournalQuerySerializer(StrictSerializer):
    """The journal export's query: a range of gaming days and a format."""

    # `from` is a Python keyword: the field is declared below by name.
    to = serializers.DateField(help_text="Last gaming day (inclusive), ISO date.")
    format = serializers.ChoiceField(choices=FORMATS, default="csv")
    part = serializers.ChoiceField(
        choices=PARTS, default="journal",
        help_text="CSV only: the journal or the trial balance (XLSX holds both as sheets).")
    head = serializers.IntegerField(
        required=False, min_value=0,
        help_text="Export as of this ledger position (default: the head now); an export"
                  " recorded earlier is reproduced byte for byte at its head_position.")
    heads = serializers.RegexField(
        r"^[a-z][a-z0-9_-]{0,39}=\d+(,[a-z][a-z0-9_-]{0,39}=\d+)*$", required=False,
        max_length=2_000,
        help_text="Export as of every book's head, KEY=N,KEY=N (an export's recorded"
                  " `heads`, issue 19); instead of `head`.")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.DateField(help_text="First gaming day, ISO date.")
        return fields


class CloseLineSerializer(StrictSerializer):
    line = serializers.CharField()
    label = serializers.CharField()
    kind = serializers.ChoiceField(choices=["balance", "flow"])
    currency = serializers.CharField()
    postings = serializers.IntegerField()
    debit_minor = serializers.IntegerField()
    credit_minor = serializers.IntegerField()
    net_minor = serializers.IntegerField(help_text="Debits less credits.")
    scope = serializers.CharField(required=False, help_text="Balance lines: venue | operator.")
    accounts = serializers.IntegerField(required=False)
    opening_minor = serializers.IntegerField(required=False)
    closing_minor = serializers.IntegerField(required=False,
                                             help_text="By posting sums (debit positive).")
    projection_closing_minor = serializers.IntegerField(
        required=False, help_text="By the account projection, at the same head.")
    other_accounts = serializers.ListField(child=serializers.CharField(), required=False)
    by_source = serializers.DictField(child=serializers.IntegerField(), required=False)


class CloseSerializer(StrictSerializer):
    """A daily close (computed now, or as recorded)."""

    venue = serializers.CharField()
    gaming_day = serializers.DateField()
    head_position = serializers.IntegerField(help_text="The main book's head.")
    head_hash = serializers.CharField()
    heads = serializers.DictField(
        child=serializers.DictField(), required=False,
        help_text="Every book's head, by book key: {position, hash} (issue 19; closes"
                  " recorded before books have none).")
    reconciled = serializers.BooleanField()
    differences = serializers.ListField(child=serializers.DictField())
    checks = serializers.DictField(child=serializers.BooleanField())
    lines = CloseLineSerializer(many=True)
    figures = serializers.DictField(
        child=serializers.DictField(),
        help_text="Per currency: drop, rake, time charges, games, commissions, tournament"
                  " fees, jackpots, chip float, player liabilities... in minor units.")
    notes = serializers.ListField(child=serializers.CharField())
    postings = serializers.IntegerField()
    events = serializers.IntegerField()
    position = serializers.IntegerField(required=False, allow_null=True,
                                        help_text="The reports.day_closed event, if recorded.")
    replayed = serializers.BooleanField(required=False)


class DayCloseRowSerializer(StrictSerializer):
    venue = serializers.CharField()
    gaming_day = serializers.DateField()
    reconciled = serializers.BooleanField()
    head_position = serializers.IntegerField()
    head_hash = serializers.CharField()
    postings = serializers.IntegerField()
    closed_by = serializers.CharField()
    position = serializers.IntegerField()


class JournalExportRowSerializer(StrictSerializer):
    position = serializers.IntegerField()
    actor = serializers.CharField()
    first_day = serializers.DateField()
    last_day = serializers.DateField()
    format = serializers.CharField()
    part = serializers.CharField()
    rows = serializers.IntegerField()
    sha256 = serializers.CharField()
    head_position = serializers.IntegerField()
    head_hash = serializers.CharField()
    totals = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()))
    recorded_at = serializers.DateTimeField()


class DaySealSerializer(StrictSerializer):
    gaming_day = serializers.DateField()
    head_position = serializers.IntegerField()
    head_hash = serializers.CharField()
    day_last_position = serializers.IntegerField()
    day_last_hash = serializers.CharField()
    day_events = serializers.IntegerField()
    position = serializers.IntegerField()
    recorded_at = serializers.DateTimeField()
