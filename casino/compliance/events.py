"""Event types of the compliance app.

Other apps' events feed compliance through two optional payload blocks that
the projections here read, so compliance never imports those apps:

    "activity": {"player", "venue", "day", "category", "staked_minor", "won_minor"}
        a settled wager; category is slots, casino_vs_house or pvp
    "cash": {"player", "venue", "gaming_day", "amount_minor", "direction"}
        a cash transaction at the cage, for AML aggregation
"""

ATTEMPT_REJECTED = "compliance.attempt_rejected"
ALERT_RAISED = "compliance.alert_raised"
CORRECTION_PROPOSED = "compliance.correction_proposed"
CORRECTION_APPROVED = "compliance.correction_approved"
CORRECTION_REJECTED = "compliance.correction_rejected"
# A decision the two-person rule refused, on `correction/<id>/rejections`
# (casino.roles TWO_PERSON_RULES): command, earlier, record, actor,
# proposed_by, rule, message, why.
FOUR_EYES_REFUSED = "compliance.four_eyes_refused"
CORRECTION_POSTED = "compliance.correction_posted"


def correction_stream(correction_id: str) -> str:
    return f"correction/{correction_id}"

# Cases: an officer's investigation of alerts and events (cases.py). All on
# the case's stream `case/<id>`; payloads (every one carries case_id):
#
#   case_opened         title, alert_id ("" when opened without one),
#                       player_id, venue, positions (the events it concerns),
#                       note
#   case_note_added     text
#   case_state_changed  from_state, to_state, reason
#   case_events_linked  positions (added to the ones it concerns)
CASE_OPENED = "compliance.case_opened"
CASE_NOTE_ADDED = "compliance.case_note_added"
CASE_STATE_CHANGED = "compliance.case_state_changed"
CASE_EVENTS_LINKED = "compliance.case_events_linked"
CASE_EVENT_TYPES = frozenset({CASE_OPENED, CASE_NOTE_ADDED, CASE_STATE_CHANGED,
                              CASE_EVENTS_LINKED})

# An alert an officer has looked at and closes without a case: alert_id,
# reason; on the alert's own stream (its id, `alert/<position>`).
ALERT_DISMISSED = "compliance.alert_dismissed"

# A run of ledger.verify_chain recorded for the record (verification.py):
# ok, events, head_position (the last position checked), head_hash,
# bad_position (None when ok), problem; on stream `compliance/chain`.
CHAIN_VERIFIED = "compliance.chain_verified"
CHAIN_STREAM = "compliance/chain"


def case_stream(case_id: str) -> str:
    return f"case/{case_id}"
