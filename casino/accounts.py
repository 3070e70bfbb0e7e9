"""The casino's chart of accounts: the ledger account codes, named in one place.

Each function names an account from its owner's data (a venue, a table, a
kind of jackpot), so an app that posts to another app's account computes
its code here instead of importing that app. Moved here so far: the poker
table and rake accounts and the jackpot accounts (poker's drops post to a
jackpot's pending account; poker never imports casino.jackpots).

    table/<table_id>/stacks          liability  chips on a poker table: the sum
                                                of its seats' stacks
    house/<venue>/rake               revenue    the house's poker rake and fees
    jackpot/<venue>/<kind>/pending   liability  contributions of gaming days not
                                                yet rolled up into the pool
    jackpot/<venue>/<kind>/pool      liability  the posted pool, paid on a hit
    house/<venue>/jackpot_funding    expense    the casino's top-ups of a pool to
                                                its guaranteed base (000:L3185-3186)

    player/<id>/account              liability  the player's one gaming account
    cage/<venue>/cash                asset      notes and coins in the cage
    cage/<venue>/chips               liability  the chip float
    bank/<venue>/clearing            asset      bank transfers not yet settled
    bank/<venue>/payouts_due         liability  wins owed to players' banks

Crediting a player's gaming account up to its ceiling is casino/wallet.py.
No app imports another app to name or credit an account (import contract
"no app uses the cage as a library").
"""

BAD_BEAT = "bad_beat"
"""The poker room's bad-beat jackpot, fed by per-hand drops (000, 002, 003)."""


def table_stacks(table_id: str) -> str:
    """Chips on a poker table: the sum of its seats' stacks (liability)."""
    return f"table/{table_id}/stacks"


def house_rake(venue: str) -> str:
    """The house's rake and fees from poker at the venue (revenue)."""
    return f"house/{venue}/rake"


def pending_account(venue: str, kind: str) -> str:
    """A jackpot's contributions not yet rolled up into its pool (liability)."""
    return f"jackpot/{venue}/{kind}/pending"


def pool_account(venue: str, kind: str) -> str:
    """A jackpot's posted pool, paid out on a hit (liability)."""
    return f"jackpot/{venue}/{kind}/pool"


def funding_account(venue: str) -> str:
    """The casino's expense for guaranteed jackpot bases at the venue."""
    return f"house/{venue}/jackpot_funding"


def gaming_account(player_id: str) -> str:
    """The player's one gaming account (liability: what the operator owes)."""
    return f"player/{player_id}/account"


def cage_cash(venue: str) -> str:
    """Notes and coins in the venue's cage (asset)."""
    return f"cage/{venue}/cash"


def chips_outstanding(venue: str) -> str:
    """The venue's chip float: chips sold and not yet redeemed (liability)."""
    return f"cage/{venue}/chips"


def bank_clearing(venue: str) -> str:
    """Bank transfers to and from players, not yet settled with the bank (asset)."""
    return f"bank/{venue}/clearing"


def payouts_due(venue: str) -> str:
    """Wins owed to players' bank accounts, not yet transferred (liability).

    What a win credits beyond the gaming account's ceiling (decision
    online.account.balance_overflow, 002:L3068-3070; casino/wallet.py):
    each posting's event carries an `overflow` block naming the player.
    """
    return f"bank/{venue}/payouts_due"


# The payload key of the overflow block(s) of an event whose credit to a
# gaming account was split at the ceiling (casino/wallet.py).
OVERFLOW_KEY = "overflow"


# --- Cashier windows (casino.cashier, issue 17 item 2) --------------------
#
#     cage/<venue>/vault               asset    the cage's vault: banks are
#                                               issued from it and counted
#                                               cash goes back to it
#     cage/<venue>/windows/<window>    asset    the cash at one cashier window
#                                               during a shift
#     cage/<venue>/over_short          expense  count differences of closed
#                                               shifts (a short debits it)
#     cage/<venue>/trays/<table_id>    asset    a gaming table's chip tray,
#                                               filled from and credited to the
#                                               cage (on the cage's books)


def cage_vault(venue: str) -> str:
    """The cage's vault at the venue (asset)."""
    return f"cage/{venue}/vault"


def cage_window(venue: str, window: str) -> str:
    """The cash at one cashier window of the venue's cage (asset)."""
    return f"cage/{venue}/windows/{window}"


def cage_over_short(venue: str) -> str:
    """Count differences of the venue's closed cashier shifts (expense)."""
    return f"cage/{venue}/over_short"


def table_tray(venue: str, table_id: str) -> str:
    """A gaming table's chip tray, on the venue cage's books (asset)."""
    return f"cage/{venue}/trays/{table_id}"


# --- Table-games accounting (casino.tablegames, issue 17 item 3) ----------
#
#     cage/<venue>/chip_bank           asset    the cage's own chips (not
#                                               outstanding): fills draw on it,
#                                               credits return to it
#     house/<venue>/table_win          revenue  the tables' win by drop and
#                                               count: soft counts credit it,
#                                               chips leaving the trays debit it


def cage_chip_bank(venue: str) -> str:
    """The cage's own chips at the venue, by face value (asset)."""
    return f"cage/{venue}/chip_bank"


def table_win(venue: str) -> str:
    """The venue's table-games win by drop and count (revenue)."""
    return f"house/{venue}/table_win"


# --- Forfeited stakes (casino.poker, issue 14 item 21) ---------------------
#
#     charity/<venue>/forfeited_stakes liability  stakes of unresolved online
#                                                 hands voided after the
#                                                 rulebook's days, owed to
#                                                 charity (001:L110)


def charity_forfeits(venue: str) -> str:
    """Stakes forfeited at the venue and directed to charity, not yet paid over (liability)."""
    return f"charity/{venue}/forfeited_stakes"
