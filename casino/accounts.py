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

Not moved yet (still named by their apps): the cage's `player/<id>/account`,
`cage/<venue>/cash`, `cage/<venue>/chips`, `bank/<venue>/clearing` and
`bank/<venue>/payouts_due` (casino/cage/events.py).
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
