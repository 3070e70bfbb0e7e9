"""Event types of table-games accounting, their stream and accounts.

A gaming table works in sessions (a shift of the table, from opening to
closing). It opens and closes with a chip inventory counted by
denomination; chips come from the cage in fills and go back in credits,
each on a slip signed by the cage and the table; its drop box is counted in
a soft count by two counters. The session's win is

    win = drop - fills + credits + (closing inventory - opening inventory)

and its hold is win / drop. Stream `tablegames/<venue>/<table>`:

    table_opened      venue, table, session_id, inventory, inventory_minor,
                      tray_before_minor, signed_by, currency
    fill_made         venue, table, session_id, slip_id, chips, amount_minor,
                      signed_by [cage, table], currency
    credit_made       (as fill_made)
    table_closed      venue, table, session_id, inventory, inventory_minor,
                      tray_before_minor, signed_by, currency
    soft_count_made   venue, table, session_id, counted_by [two],
                      first_count, second_count, first_minor, second_minor,
                      variance_minor, drop_minor, currency

Money (debit positive; accounts in casino/accounts.py):

    table_opened     tray +(I - T)           chip bank -(I - T)
                     (I the counted inventory, T the tray's balance: chips
                     the cage adds to, or takes from, a table at its opening)
    fill_made        tray +A                 chip bank -A
    credit_made      chip bank +A            tray -A
    table_closed     table win +(T - I)      tray -(T - I)
                     (the chips that left the tray for players' cash)
    soft_count_made  cage cash +D            table win -D

So the venue's table win account is credited, over a session, with
D - (O + F - C - I) = drop - fills + credits + (I - O): the win.

The chip inventory by denomination (issue 17: chips by denomination in the
chip float), stream `tablegames/<venue>/chip_bank`:

    chips_received     venue, receipt_id, chips, amount_minor, signed_by,
                       note, currency
    chip_bank_counted  venue, count_id, count, counted_minor, expected_count,
                       expected_minor, differences {denomination: pieces},
                       over_short_minor, reason, signed_by, currency

    chips_received     no postings (decision tablegames.chips_unissued: the
                       cage's own chips are tokens, not money, until they
                       leave it; cage/<venue>/chip_bank carries the net face
                       value issued to the tables, so the chips in the cage
                       are worth the chips received + the chip bank balance)
    chip_bank_counted  chip bank +D, cage over_short -D (D = counted - expected)

The projection ChipStock holds the pieces per denomination at each place:
`chip_bank` (the cage), `tray:<table>` (a table's tray, as last counted
plus fills less credits) and `players` (chips that left the trays for the
players at a table's close, by denomination: the table games' part of the
chip float; chips sold at the cage's windows carry an amount only).
"""

from __future__ import annotations

SCHEMA_VERSION = 1
SOURCE = "casino.tablegames"

TABLE_OPENED = "tablegames.table_opened"
FILL_MADE = "tablegames.fill_made"
CREDIT_MADE = "tablegames.credit_made"
TABLE_CLOSED = "tablegames.table_closed"
SOFT_COUNT_MADE = "tablegames.soft_count_made"
CHIPS_RECEIVED = "tablegames.chips_received"
CHIP_BANK_COUNTED = "tablegames.chip_bank_counted"
PROJECTED_TYPES = frozenset({TABLE_OPENED, FILL_MADE, CREDIT_MADE, TABLE_CLOSED,
                             SOFT_COUNT_MADE})
STOCK_TYPES = frozenset({TABLE_OPENED, FILL_MADE, CREDIT_MADE, TABLE_CLOSED,
                         CHIPS_RECEIVED, CHIP_BANK_COUNTED})

CHIP_BANK = "chip_bank"
PLAYERS = "players"


def tray_place(table: str) -> str:
    return f"tray:{table}"


def chip_bank_stream(venue: str) -> str:
    return f"tablegames/{venue}/chip_bank"


def table_stream(venue: str, table: str) -> str:
    return f"tablegames/{venue}/{table}"
