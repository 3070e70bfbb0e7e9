"""Erasure of personal data in an immutable log: crypto-shredding (issue 18 item 8).

Personal data (names, birth date, nationality, document type and hint,
identity key) enter an event payload only sealed: AES-256-GCM
(`cryptography`'s AESGCM) under a key of their own per player, with the
player id as associated data. The keys live in `privacy_personalkey`, a
table outside the log: not an event, not a projection, never rebuilt nor
reset. The hash chain covers the ciphertext, so destroying a key later
changes no event and no hash.

After the retention period (the rulebooks' figure
`retention.aml_records.years`, the longest in force) an officer proposes
the erasure and another officer approves it (the two-person rule
`privacy.approve_erasure`, casino.roles.TWO_PERSON_RULES); the approval's
event `privacy.personal_data_erased` destroys the key in the append's
transaction (ErasureProjection). From then on every reader that opens a
sealed payload (the players projection, the feed, the admin) gets
ERASED, and the players projection keeps "erased" in place of the name.

Old events from before (players.player_registered schema 1) carry the data
in clear and stay readable as they are: the log cannot be rewritten.
Decision: such a player's erasure blanks the projection, but the schema-1
event keeps its plaintext; every registration since is schema 2 (sealed).
"""
