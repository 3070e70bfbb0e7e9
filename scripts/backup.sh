#!/usr/bin/env bash
# Logical backup of the casino database: one pg_dump custom-format file.
#
#   scripts/backup.sh OUT.dump
#
# The database is DATABASE_URL's (with CASINO_DATABASE_NAME as its name when
# set), else the libpq environment (PGHOST, PGPORT, PGUSER, PGPASSWORD,
# PGDATABASE). PG_BIN names the folder of pg_dump when PATH's is older than
# the server (pg_dump refuses a newer server). The dump holds the log, the
# projections, the idempotency records and the triggers; the seal file and
# the seal key (LEDGER_SEAL_FILE, LEDGER_SEAL_KEY_FILE) live outside the
# database and are backed up with the files, never with the dump.
# scripts/restore.sh restores it and runs verify_ledger; README "Backups".
set -euo pipefail
out=${1:?usage: scripts/backup.sh OUT.dump}
pg_dump=${PG_BIN:+$PG_BIN/}pg_dump
target=()
if [ -n "${DATABASE_URL:-}" ]; then
    url=$DATABASE_URL
    if [ -n "${CASINO_DATABASE_NAME:-}" ]; then
        url="${url%/*}/${CASINO_DATABASE_NAME}"
    fi
    target=(--dbname "$url")
elif [ -n "${CASINO_DATABASE_NAME:-}" ]; then
    target=(--dbname "$CASINO_DATABASE_NAME")
fi
tmp="$out.partial"
"$pg_dump" --format=custom --compress=6 --no-password "${target[@]}" --file "$tmp"
mv "$tmp" "$out"
echo "backup: wrote $out ($(wc -c < "$out") bytes)"
