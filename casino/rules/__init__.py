"""Rulebooks: each seed's rules as versioned, cited data, and the venues using them.

The rulebook files (`data/<id>.v<n>.toml`) are the source; loading one is an
event (`rules.rulebook_loaded`) whose payload is the whole parsed file, and
the tables here are projections of those events. A version, once loaded, is
never rewritten: a change is a new version with a later `effective_from`.
Nothing in this package imports the casino's game or player apps.
"""
