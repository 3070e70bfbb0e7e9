"""Webhooks: the events a client subscribes to, pushed to its URL (issue 18 item 2).

A client (an API key's user) subscribes a URL to event types and venues
within its role's reach: what the event feed would show it
(casino.roles.feed_filter, the one place that decides). Deliveries are an
outbox written by a ledger projection inside the append transaction
(projections.OutboxProjection), so an event is committed if and only if
its deliveries are; Celery sends them (sending.py, tasks.py) in position
order per stream, with exponential backoff and a dead-letter state, each
signed with HMAC-SHA256 over the timestamp and body by every active
signing secret of the subscription (signing.py: two during a rotation).

Design choice: subscriptions and their secrets are configuration, like
casino.keys' API keys, not facts of the casino: they are plain tables,
not events in the log, and the outbox is not a projection a rebuild
recomputes (its rows record sending, which the log cannot replay).
"""
