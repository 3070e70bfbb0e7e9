"""Event types of the cashier windows, their streams and accounts.

A cage has a vault and cashier windows. A cashier works a window in a
shift: it opens with a bank counted by denomination and issued from the
vault, takes transfers in and out (each signed by two people), and closes
with a count by denomination against the expected amount (the window's
balance); the over or short is posted and the counted cash goes back to
the vault, so a closed window holds nothing. A handover between cashiers
is a close and an open.

Streams:

    cashier/<venue>/<window>     shift_opened, shift_closed (and the alert
                                 of a short above the threshold)
    cashier/<venue>/transfers    transfer_made

Payload keys (amounts in minor units; a count is {denomination_minor:
pieces}, keys as strings):

    shift_opened    venue, window, shift_id, cashier, bank, bank_minor,
                    currency
    shift_closed    venue, window, shift_id, cashier, count, counted_minor,
                    expected_minor, over_short_minor, reason,
                    alert_threshold_minor, currency
    transfer_made   venue, transfer_id, source, target, count, amount_minor,
                    signed_by [two names], currency, note

Money (debit positive), accounts named in casino/accounts.py:

    shift_opened    window +B                 vault -B
    shift_closed    window +D, over_short -D  (D = counted - expected)
                    vault +C                  window -C   (C = counted)
    transfer_made   target +A                 source -A

Places of a transfer: `vault`, `window:<id>` (needs an open shift) and
`table:<id>` (the table's tray, casino.accounts.table_tray).
"""

from __future__ import annotations

SCHEMA_VERSION = 1
SOURCE = "casino.cashier"

SHIFT_OPENED = "cashier.shift_opened"
SHIFT_CLOSED = "cashier.shift_closed"
TRANSFER_MADE = "cashier.transfer_made"
PROJECTED_TYPES = frozenset({SHIFT_OPENED, SHIFT_CLOSED, TRANSFER_MADE})


def window_stream(venue: str, window: str) -> str:
    return f"cashier/{venue}/{window}"


def transfers_stream(venue: str) -> str:
    return f"cashier/{venue}/transfers"
