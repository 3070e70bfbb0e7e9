"""Event types of the cage, and the accounts its postings move.

Every cage event is on the player's stream `player/<id>` (the one the
players app and the compliance rejections use), so one expected version
serialises everything decided from the player's state, the AML totals
included. Payload of each cage event:

    player_id, venue, amount_minor, currency
    method          cash | bank (deposits, withdrawals); cash | account (chips)
    account         the player's gaming account code
    gaming_day      the venue's gaming day (ISO date)
    verdict         {"rulebook", "checks_passed"} from the compliance pipeline
    cash            for cash only: the block compliance sums for AML
                    (casino/compliance/events.py)

"Cash" in `cage.cash_deposited` and `cage.cash_withdrawn` is money in the
accounting sense; `method` says whether notes or a bank transfer moved it.
AML alerts raised by a cash transaction are `compliance.alert_raised` events
in the same append, right after it.
"""

# Version 1 of these types is the shape casino.demo wrote before the cage
# existed ({"player", "amount_minor"}: no venue, no method, no checks). Those
# events stay in the log as they are; they belong to no cage day, so the
# projection passes them by. The cage writes version 2.
SCHEMA_VERSION = 2

CASH_DEPOSITED = "cage.cash_deposited"
CASH_WITHDRAWN = "cage.cash_withdrawn"
CHIPS_PURCHASED = "cage.chips_purchased"
CHIPS_REDEEMED = "cage.chips_redeemed"
CAGE_EVENT_TYPES = frozenset({CASH_DEPOSITED, CASH_WITHDRAWN, CHIPS_PURCHASED, CHIPS_REDEEMED})
