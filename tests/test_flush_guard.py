"""The test plumbing's flush switches triggers off only on this run's test database."""

import pytest
from django.db import connection

from tests.conftest import _check_test_database


def test_flush_guard_accepts_the_test_database(db) -> None:
    """Inside the suite the connection is on test_<name>_<pid>: accepted."""
    _check_test_database()
    assert connection.settings_dict["NAME"].startswith("test_")


def test_flush_guard_refuses_the_configured_database(db, monkeypatch) -> None:
    """A connection pointed at the configured database is refused before any switch."""
    monkeypatch.setitem(connection.settings_dict, "NAME", "casino")
    with pytest.raises(RuntimeError, match="refusing to let the test flush empty database 'casino'"):
        _check_test_database()
