"""Opening accounts: an account exists because an event says it was opened."""

from __future__ import annotations

from .models import AccountType
from .projections import ACCOUNT_OPENED
from .types import AppendResult, Metadata, NewEvent
from .errors import InvalidEvent
from .writer import append


def account_stream(code: str) -> str:
    return f"account/{code}"


def open_account(
    *,
    code: str,
    type: AccountType | str,
    currency: str,
    name: str = "",
    must_not_go_negative: bool = False,
    balance_max_minor: int | None = None,
    metadata: Metadata | None = None,
    idempotency_key: str | None = None,
    book: int | str = 1,
) -> AppendResult:
    """Open an account in `book` (main by default); its constraints are
    checked on every later append, and only that book's events post to it.

    Raises AccountExists if the code is taken (unless this is a repeat of the
    same keyed request).
    """
    if type not in AccountType.values:
        raise InvalidEvent(f"unknown account type {type!r}", type=str(type))
    if balance_max_minor is not None and (
        not isinstance(balance_max_minor, int) or balance_max_minor < 0
    ):
        raise InvalidEvent("balance_max_minor must be a non-negative integer")
    event = NewEvent(
        stream=account_stream(code),
        type=ACCOUNT_OPENED,
        payload={
            "code": code,
            "type": str(type),
            "currency": currency,
            "name": name,
            "must_not_go_negative": bool(must_not_go_negative),
            "balance_max_minor": balance_max_minor,
        },
    )
    return append([event], idempotency_key=idempotency_key, metadata=metadata, book=book)
