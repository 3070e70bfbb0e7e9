"""Event types of tournaments, their stream and the accounts they post to.

All events of a tournament are on its stream `tournament/<id>`; the stream's
version serialises every decision about it. Each payload holds the inputs
of the operation (so `replay.py` can fold the stream back into the engine's
state) and the `transfers` it moved (for people reading the log).

Accounts:

    player/<id>/account              liability  the gaming account (the cage's)
    player/<id>/tournament_tickets   liability  satellite seats kept as tickets
    tournament/<id>/prize_pool       liability  prize parts, until paid out
    tournament/<id>/bounties         liability  bounties on players' heads
    house/<venue>/tournament_fees    revenue    fees (and HexaPro draws below 3x)
    house/<venue>/tournament_prizes  expense    HexaPro pools drawn above the buy-ins
    house/<venue>/tournament_reserve liability  prize money kept for a later tournament

Tournament chips are never money: no account holds them (000:L3266-3267).
"""

SCHEMA_VERSION = 1

ANNOUNCED = "tournaments.tournament_announced"
REGISTRATION_OPENED = "tournaments.registration_opened"
PLAYER_ENTERED = "tournaments.player_entered"
PLAYER_UNREGISTERED = "tournaments.player_unregistered"
REBUY_PURCHASED = "tournaments.rebuy_purchased"
ADD_ON_PURCHASED = "tournaments.add_on_purchased"
STARTED = "tournaments.tournament_started"
PRIZE_POOL_FIXED = "tournaments.prize_pool_fixed"
PRIZE_POOL_DRAWN = "tournaments.prize_pool_drawn"
PLAYERS_ELIMINATED = "tournaments.players_eliminated"
# A special prize of the structure paid from the pool (000:L3410-3413).
SPECIAL_PRIZE_AWARDED = "tournaments.special_prize_awarded"
PLAYER_DISQUALIFIED = "tournaments.player_disqualified"
PLAYER_EXCLUDED = "tournaments.player_excluded"
DEAL_RECORDED = "tournaments.deal_recorded"
FINISHED = "tournaments.tournament_finished"
CANCELLED = "tournaments.tournament_cancelled"
REQUEST_REJECTED = "tournaments.request_rejected"

TOURNAMENT_EVENT_TYPES = frozenset({
    ANNOUNCED, REGISTRATION_OPENED, PLAYER_ENTERED, PLAYER_UNREGISTERED, REBUY_PURCHASED, ADD_ON_PURCHASED,
    STARTED, PRIZE_POOL_FIXED, PRIZE_POOL_DRAWN, PLAYERS_ELIMINATED, PLAYER_DISQUALIFIED,
    PLAYER_EXCLUDED, DEAL_RECORDED, FINISHED, CANCELLED, SPECIAL_PRIZE_AWARDED,
})


def tournament_stream(tournament_id: str) -> str:
    return f"tournament/{tournament_id}"


def tournament_tickets(player_id: str) -> str:
    """A player's tournament tickets: seats won and not used (000:L3344-3345, 001:L312)."""
    return f"player/{player_id}/tournament_tickets"


def prize_pool(tournament_id: str) -> str:
    return f"tournament/{tournament_id}/prize_pool"


def bounties(tournament_id: str) -> str:
    return f"tournament/{tournament_id}/bounties"


def tournament_fees(venue: str) -> str:
    return f"house/{venue}/tournament_fees"


def tournament_prizes(venue: str) -> str:
    return f"house/{venue}/tournament_prizes"


def tournament_reserve(venue: str) -> str:
    """Prize money set aside for a later tournament of the venue (000:L3386-3388)."""
    return f"house/{venue}/tournament_reserve"
