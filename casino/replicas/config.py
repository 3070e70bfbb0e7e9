"""The `replica` database alias, from DATABASE_REPLICA_URL (settings.py).

The URL gives the standby's host, port, user and password; the database
name is always the primary's (`default`'s): a streaming standby is a copy
of the whole cluster, so the same database is there under the same name.
For the same reason the entry is a test mirror of `default`: the test
runner neither creates nor flushes it, and it reads the test database the
runner made on the primary, as replicated.
"""

from __future__ import annotations

import dj_database_url


def replica_database(url: str, default: dict, *, parse=None) -> dict:
    """Return the DATABASES entry of the replica at `url`, mirroring `default`.

    `parse` turns the URL into an entry (default: dj-database-url's, one
    host); settings.py passes its own, which also reads libpq's multi-host
    URLs, so the replica can be `...@db1,db2/casino?target_session_attrs=prefer-standby`:
    whichever node of a failover pair is the standby now (and the primary
    when there is none, which `casino.replicas.router` then does not read,
    as it is not in recovery).
    """
    entry = (parse or (lambda text: dj_database_url.parse(text, conn_max_age=60)))(url)
    entry["NAME"] = default["NAME"]
    entry.setdefault("OPTIONS", {}).update(default.get("OPTIONS", {}))
    entry["TEST"] = {"MIRROR": "default"}
    return entry
