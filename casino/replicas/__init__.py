"""Read replicas (issue 19 point 6): a hot standby serves the read-only routes.

- `standby`: start a streaming-replication hot standby of a running
  PostgreSQL (pg_basebackup, standby.signal, primary_conninfo), for tests
  and a developer's machine.
- `config`: the `replica` DATABASES entry from DATABASE_REPLICA_URL.
- `router`: `reading_from_replica()` and the database router: the replica
  when its replay lag is within CASINO_REPLICA_LAG_MAX_S, else the primary.
- `middleware`: which routes read from it (the feed, reports, the admin's
  changelists); every write and the write path's reads stay on the primary.
"""
