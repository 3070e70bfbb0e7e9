"""Players: identity, age, verification, self-exclusion and player-set limits.

Every change is an event on the player's stream `player/<id>`; the tables are
projections. Limits are stored as "in force" plus at most one pending raise,
so the limit at any instant is a pure function of the events (no timers).
"""
