"""Serializers for cases, alert dismissals and recorded chain verifications."""

from __future__ import annotations

from rest_framework import serializers

from casino.api import StrictSerializer

from ..cases import NOTE_LENGTH_MAX, POSITIONS_PER_REQUEST_MAX, TITLE_LENGTH_MAX, TRANSITIONS
from ..models import AlertDismissal, Case, CaseLink, CaseNote, ChainVerification


def _position() -> serializers.IntegerField:
    # A ledger position is a PostgreSQL bigint: a larger number is a 400, not a 500.
    return serializers.IntegerField(min_value=1, max_value=2**63 - 1)


class CaseOpeningSerializer(StrictSerializer):
    alert_id = serializers.CharField(required=False, allow_blank=True, default="",
                                     help_text="The alert that opens the case, e.g."
                                               " `alert/1234`; without it, give a title.")
    title = serializers.CharField(required=False, allow_blank=True, default="",
                                  max_length=TITLE_LENGTH_MAX,
                                  help_text="Defaults to the alert's summary.")
    positions = serializers.ListField(child=_position(), required=False, default=list,
                                      max_length=POSITIONS_PER_REQUEST_MAX,
                                      help_text="Ledger positions of further events the"
                                                " case concerns.")
    note = serializers.CharField(required=False, allow_blank=True, default="",
                                 max_length=NOTE_LENGTH_MAX)


class CaseNoteInputSerializer(StrictSerializer):
    text = serializers.CharField(max_length=NOTE_LENGTH_MAX)


class CaseStateInputSerializer(StrictSerializer):
    to = serializers.ChoiceField(choices=[str(state) for state in TRANSITIONS],
                                 help_text="open -> investigating -> escalated -> closed;"
                                           " investigating -> closed.")
    reason = serializers.CharField(required=False, allow_blank=True, default="",
                                   max_length=NOTE_LENGTH_MAX,
                                   help_text="Required (10+ characters) to close.")


class CaseLinkInputSerializer(StrictSerializer):
    positions = serializers.ListField(child=_position(), min_length=1,
                                      max_length=POSITIONS_PER_REQUEST_MAX)


class CaseNoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = CaseNote
        fields = ["position", "author", "text", "written_at"]


class CaseLinkSerializer(serializers.ModelSerializer):
    class Meta:
        model = CaseLink
        fields = ["position", "linked_by", "linked_position"]


class CaseSerializer(serializers.ModelSerializer):
    state = serializers.CharField(help_text="open, investigating, escalated or closed.")

    class Meta:
        model = Case
        fields = ["id", "title", "state", "alert_id", "player_id", "venue", "opened_by",
                  "opened_at", "state_changed_by", "state_changed_at", "closed_reason",
                  "notes_count", "opened_position", "last_position"]


class CaseDetailsSerializer(CaseSerializer):
    notes = CaseNoteSerializer(many=True, read_only=True)
    events = CaseLinkSerializer(source="links", many=True, read_only=True,
                                help_text="The events the case concerns, by position.")

    class Meta(CaseSerializer.Meta):
        fields = [*CaseSerializer.Meta.fields, "notes", "events"]


class AlertDismissalInputSerializer(StrictSerializer):
    alert_id = serializers.CharField(help_text="e.g. `alert/1234`")
    reason = serializers.CharField(max_length=NOTE_LENGTH_MAX,
                                   help_text="Why no case is needed; 10+ characters.")


class AlertDismissalSerializer(serializers.ModelSerializer):
    class Meta:
        model = AlertDismissal
        fields = ["alert_id", "dismissed_by", "reason", "dismissed_at", "position"]


class ChainVerificationSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChainVerification
        fields = ["position", "ok", "events", "head_position", "head_hash", "bad_position",
                  "problem", "verified_by", "verified_at"]
