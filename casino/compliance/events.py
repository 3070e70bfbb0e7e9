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
CORRECTION_POSTED = "compliance.correction_posted"


def correction_stream(correction_id: str) -> str:
    return f"correction/{correction_id}"
