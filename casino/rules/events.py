"""Event types of the rules app (payload schemas in commands.py)."""

RULEBOOK_LOADED = "rules.rulebook_loaded"
VENUE_REGISTERED = "rules.venue_registered"
VENUE_CHANGED = "rules.venue_changed"


def rulebook_stream(rulebook_id: str) -> str:
    return f"rulebook/{rulebook_id}"


def venue_stream(code: str) -> str:
    return f"venue/{code}"
