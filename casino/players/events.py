"""Event types of the players app, all on stream `player/<id>`."""

PLAYER_REGISTERED = "players.player_registered"
IDENTITY_VERIFIED = "players.identity_verified"
SELF_EXCLUDED = "players.self_excluded"
LIMIT_SET = "players.limit_set"


def player_stream(player_id: str) -> str:
    return f"player/{player_id}"
