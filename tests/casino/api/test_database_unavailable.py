"""A lost database connection answers 503 with Retry-After, never a bare 500.

During a failover (tests/failover) the runner retries a keyed write twice;
if the new primary is not up by then, the client hears
`request.database_unavailable` and resends under its Idempotency-Key.
"""

from __future__ import annotations

import psycopg
import pytest
from django.db import OperationalError

from casino.exception_handler import exception_handler


def _lost_connection() -> OperationalError:
    try:
        # Nothing listens on port 1: libpq fails without a SQLSTATE.
        psycopg.connect("host=127.0.0.1 port=1 connect_timeout=2")
    except psycopg.OperationalError as cause:
        try:
            raise OperationalError(str(cause)) from cause
        except OperationalError as wrapped:
            return wrapped
    raise AssertionError("port 1 accepted a connection")


def test_a_lost_connection_is_a_503_with_retry_after():
    response = exception_handler(_lost_connection(), {})
    assert response.status_code == 503
    assert response.data["code"] == "request.database_unavailable"
    assert response["Retry-After"] == "1"


@pytest.mark.django_db
def test_a_query_error_is_not_mistaken_for_a_lost_connection():
    from django.db import ProgrammingError, connection

    with pytest.raises(ProgrammingError) as error, connection.cursor() as cursor:
        cursor.execute("SELECT no_such_column FROM ledger_head")
    assert exception_handler(error.value, {}) is None  # left to Django: a programming error
