"""API keys for machines: named, hashed at rest, expiring, revocable, venue-scoped.

Each cage terminal or table controller gets a named key (`ClientKey`, a
djangorestframework-api-key AbstractAPIKey: SHA-512 of a random key, only
its 8-character prefix in clear), tied to the Django user whose role groups
it acts in, with an expiry, a revocation flag, the time it was last used and
the venues it may act for (none listed: every venue). Clients send it as
before, `Authorization: Token <key>` (casino.authentication).

Tokens made the old way (rest_framework.authtoken's Token, plaintext) are
migrated: the migration hashes those in the database into keys and deletes
them, and a Token created later (old tools, tests) is turned into a hashed
key the moment it is saved, so its key keeps working and its plaintext is
never kept.
"""
