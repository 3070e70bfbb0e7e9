"""Event types of the house-banked games, their streams and accounts.

Streams:

    gametable/<table_id>        table_opened
    round/<table_id>/<number>   round_opened, bet_placed, bet_rejected,
                                betting_closed, outcome_recorded,
                                outcome_rejected, player_settled (one per
                                player), round_settled, round_disputed (+ its
                                compliance.alert_raised), round_voided

Payload keys (amounts in minor units):

    table_opened      table_id, venue, game, currency, rulebook, config,
                      stake_minor_min, stake_minor_max
    round_opened      round_id, table_id, number
    bet_placed        round_id, bet_id, player_id, kind, spec, position,
                      bet_unit, in_play, stake_minor_offered, stake_minor,
                      void_minor, cap_minor, cap_cite, verdict, paid_with
                      ("chips" only; absent: the gaming account)
    bet_rejected      round_id, player_id, kind, code, message, status, details
    betting_closed    round_id
    outcome_recorded  round_id, outcome (the game's facts, normalised)
    outcome_rejected  round_id, outcome (as sent), code, message, details
    player_settled    round_id, player_id, staked_minor, returned_minor,
                      commission_minor, contribution_minor, contributions
                      {pending account: amount}, win_capped_minor, bets[{bet_id,
                      returned_minor, result, table, row, cite,
                      commission_minor, contribution_minor, detail}], activity{...}
    round_settled     round_id, staked_minor, returned_minor,
                      commission_minor, contribution_minor, house_minor
    round_disputed    round_id, computed{bet_id: returned}, declared{...},
                      bets[...as in player_settled]
    round_voided      round_id, reason, returned{player_id: amount}

Money (debit positive). A stake moves from the player's gaming account to the
table's holding account; settlement returns what each player gets and posts
the rest to the house, commissions apart:

    bet_placed      player/<id>/account +S          games/<table>/stakes -S
    player_settled  games/<table>/stakes +S_p       player/<id>/account -R_p
                    house/<venue>/games/<game>/commission -C_p
                    jackpot/<venue>/<kind>/pending -J_p (progressive shares)
                    house/<venue>/games/<game> -(S_p - R_p - C_p - J_p)
    round_voided    games/<table>/stakes +S         player/<id>/account -s

A stake paid in chips (paid_with "chips", decision games.stake_means) posts
cage/<venue>/chips where the table above says player/<id>/account, on the
bet, the settlement and the void alike; it has no ceiling.

A credit to player/<id>/account goes only up to the account's ceiling; the
rest is posted to bank/<venue>/payouts_due and listed in the payload's
"overflow" block (casino/wallet.py), for settlements and voids alike.
"""

SCHEMA_VERSION = 1
SOURCE = "casino.games"
CATEGORY = "casino_vs_house"

TABLE_OPENED = "games.table_opened"
ROUND_OPENED = "games.round_opened"
BET_PLACED = "games.bet_placed"
BET_REJECTED = "games.bet_rejected"
BETTING_CLOSED = "games.betting_closed"
OUTCOME_RECORDED = "games.outcome_recorded"
OUTCOME_REJECTED = "games.outcome_rejected"
PLAYER_SETTLED = "games.player_settled"
ROUND_SETTLED = "games.round_settled"
ROUND_DISPUTED = "games.round_disputed"
ROUND_VOIDED = "games.round_voided"

PROJECTED_TYPES = frozenset({TABLE_OPENED, ROUND_OPENED, BET_PLACED, BETTING_CLOSED,
                             OUTCOME_RECORDED, PLAYER_SETTLED, ROUND_SETTLED, ROUND_DISPUTED,
                             ROUND_VOIDED})

# Jackpot kinds of the progressive side bets (pending accounts are
# casino.jackpots.accounts.pending_account(venue, kind)).
HOLDEM_BONUS_PROGRESSIVE = "holdem_bonus_progressive"
ULTIMATE_HOLDEM_PROGRESSIVE = "ultimate_holdem_progressive"


def table_stream(table_id: str) -> str:
    return f"gametable/{table_id}"


def round_stream(table_id: str, number: int) -> str:
    return f"round/{table_id}/{number}"


def round_id_of(table_id: str, number: int) -> str:
    return f"{table_id}.{number}"


def parse_round_id(round_id: str) -> tuple[str, int] | None:
    table_id, _, number = round_id.rpartition(".")
    if not table_id or not number.isdigit():
        return None
    return table_id, int(number)


def table_stakes(table_id: str) -> str:
    """Stakes on the table's open round (liability: owed back or to be settled)."""
    return f"games/{table_id}/stakes"


def house_games(venue: str, game: str) -> str:
    """The house's result from a game at a venue (revenue)."""
    return f"house/{venue}/games/{game}"


def house_commission(venue: str, game: str) -> str:
    """Commissions taken on wins (banco 5 %) at a venue (revenue)."""
    return f"house/{venue}/games/{game}/commission"
