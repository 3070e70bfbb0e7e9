"""The ledger accounts of jackpot pools, named in one place.

Every app that feeds a jackpot (poker drops, time charges, progressive side
bets of house games) posts its contribution to the pool's pending account;
the daily roll-up moves a gaming day's pending sum to the pool account.
Both are liabilities: the money belongs to future winners, not the house.

    jackpot/<venue>/<kind>/pending   contributions of days not yet rolled up
    jackpot/<venue>/<kind>/pool      the posted pool, paid out on a hit
"""

BAD_BEAT = "bad_beat"
"""The poker room's bad-beat jackpot, fed by per-hand drops (000, 002, 003)."""


def pending_account(venue: str, kind: str) -> str:
    return f"jackpot/{venue}/{kind}/pending"


def pool_account(venue: str, kind: str) -> str:
    return f"jackpot/{venue}/{kind}/pool"
