"""Serializers for the ledger's read API."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..books import local_position
from ..feed import BOOK_KEY, CURSOR_LENGTH_MAX, PAGE_EVENTS_MAX
from ..models import Account


class PostingSerializer(serializers.Serializer):
    account = serializers.CharField()
    amount_minor = serializers.IntegerField()
    currency = serializers.CharField()


class EventSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="The event's position, unique over all"
                                                  " books (book b holds (b-1)*2^40+1 .."
                                                  " b*2^40).")
    book = serializers.SerializerMethodField(help_text="The key of the book the event"
                                                       " belongs to (`main`: book 1).")
    local_position = serializers.SerializerMethodField(
        help_text="The event's number within its book: 1, 2, 3.., gap-free.")
    stream = serializers.CharField()
    version = serializers.IntegerField()
    type = serializers.CharField()
    schema_version = serializers.IntegerField()
    payload = serializers.JSONField()
    metadata = serializers.JSONField()
    idempotency_key = serializers.CharField(allow_null=True)
    occurred_at = serializers.DateTimeField()
    recorded_at = serializers.DateTimeField()
    gaming_day = serializers.DateField()
    prev_hash = serializers.CharField()
    hash = serializers.CharField()
    postings = PostingSerializer(many=True)

    def get_book(self, event) -> str:
        return self.context["book_keys"][event.book]

    def get_local_position(self, event) -> int:
        return local_position(event.position)


class EventFeedSerializer(serializers.Serializer):
    events = EventSerializer(many=True)
    next_after = serializers.IntegerField(help_text="The last position read in the book read"
                                                    " by `after` (main unless `book`): pass"
                                                    " as `after` to read its next page.")
    head_position = serializers.IntegerField(help_text="That book's last committed"
                                                       " position.")
    next_cursor = serializers.CharField(
        help_text="Opaque: pass as `cursor` to read on over every book from here (the last"
                  " position read in each book). A book it does not name is read from its"
                  " beginning.")
    # The API's list conventions (issue 18 item 1): the position is the cursor.
    next = serializers.URLField(allow_null=True,
                                help_text="The next page's URL (`after=next_after`, or"
                                          " `cursor=next_cursor` when the page was read by"
                                          " `cursor`); null when this page reached every"
                                          " head it read.")
    has_more = serializers.BooleanField(help_text="Events after this page were committed"
                                                  " when it was read.")


class EventFeedQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, max_value=2**63 - 1, default=0,
        help_text="Read one book only (`book`, by default main: the feed before books),"
                  " after this position (as the events give it).")
    book = serializers.RegexField(
        BOOK_KEY, required=False, max_length=40,
        help_text="With `after`: the key of the one book to read (default `main`); from"
                  " its beginning when `after` is before it. Not with `cursor`.")
    cursor = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False,
        max_length=CURSOR_LENGTH_MAX,
        help_text="Read every book after this vector cursor (a page's `next_cursor`);"
                  " empty: every book from its beginning. Not with `after`.")
    limit = serializers.IntegerField(min_value=1, max_value=PAGE_EVENTS_MAX, default=100)

    def validate(self, attrs):
        if "cursor" in attrs and "after" in self.initial_data:
            raise serializers.ValidationError(
                {"cursor": ["give `cursor` or `after`, not both"]})
        if "cursor" in attrs and "book" in attrs:
            raise serializers.ValidationError(
                {"book": ["`cursor` reads every book: give `book` with `after` only"]})
        return attrs


class AccountSerializer(serializers.ModelSerializer):
    class Meta:
        model = Account
        fields = [
            "code",
            "type",
            "currency",
            "name",
            "balance_minor",
            "must_not_go_negative",
            "balance_max_minor",
            "opened_position",
            "last_position",
        ]


HISTORY_ROWS_MAX = 500


@extend_schema_field(OpenApiTypes.STR)
class AsOfField(serializers.Field):
    """A ledger position (a whole number) or an ISO 8601 time with its offset."""

    def to_internal_value(self, data):
        text = str(data).strip()
        if text.isdigit():
            return int(text)
        moment = serializers.DateTimeField().to_internal_value(text)
        return moment

    def to_representation(self, value):
        return value


class AccountQuerySerializer(serializers.Serializer):
    """Query of an account: a balance as of a position or time, its history."""

    as_of = AsOfField(required=False, help_text="a ledger position, or an ISO 8601 time")
    history = serializers.BooleanField(required=False, default=False)
    after = serializers.IntegerField(required=False, default=0, min_value=0)
    limit = serializers.IntegerField(required=False, default=100, min_value=1,
                                     max_value=HISTORY_ROWS_MAX)


class BalanceAsOfSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    balance_minor = serializers.IntegerField()


class HistoryRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    posting = serializers.IntegerField()
    type = serializers.CharField()
    occurred_at = serializers.DateTimeField()
    gaming_day = serializers.DateField()
    amount_minor = serializers.IntegerField()
    balance_after_minor = serializers.IntegerField()


class AccountDetailsSerializer(AccountSerializer):
    """The answer of GET accounts/<code>: `as_of` with `?as_of=`, and the
    history page with `?history=true` (its cursor is the position, `after`)."""

    as_of = BalanceAsOfSerializer(required=False)
    history = HistoryRowSerializer(many=True, required=False)
    next_after = serializers.IntegerField(allow_null=True, required=False,
                                          help_text="Pass as `after` for the next history"
                                                    " page; null on the last.")
    next = serializers.URLField(allow_null=True, required=False,
                                help_text="The next history page's URL; null on the last.")
    has_more = serializers.BooleanField(required=False,
                                        help_text="Whether `next` leads to more history.")

    class Meta(AccountSerializer.Meta):
        fields = AccountSerializer.Meta.fields + ["as_of", "history", "next_after", "next",
                                                  "has_more"]
