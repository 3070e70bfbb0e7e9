"""The erasure's events, on the player's stream (`player/<id>`)."""

SOURCE = "casino.privacy"
ERASURE_PROPOSED = "privacy.erasure_proposed"
PERSONAL_DATA_ERASED = "privacy.personal_data_erased"
FOUR_EYES_REFUSED = "privacy.four_eyes_refused"


def player_stream(player_id: str) -> str:
    """The player's stream (the players app's `player/<id>`, named here to import no app)."""
    return f"player/{player_id}"
