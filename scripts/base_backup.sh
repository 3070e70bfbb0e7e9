#!/usr/bin/env bash
# Base backup of the whole PostgreSQL server, for point-in-time recovery.
#
#   scripts/base_backup.sh OUT_DIR
#
# pg_basebackup (plain format, a fast checkpoint, the WAL it needs streamed
# into the backup) of DATABASE_URL's server, else libpq's environment (PGHOST,
# PGPORT, PGUSER); PG_BIN names the folder of the PostgreSQL binaries. The
# user needs the REPLICATION privilege. With WAL archiving on
# (archive_mode = on, archive_command = scripts/wal_archive.sh %p %f DIR),
# this backup plus the archived WAL restore the server to any moment after
# the backup: scripts/pitr_restore.sh. README "Backups and restore".
set -euo pipefail
out=${1:?usage: scripts/base_backup.sh OUT_DIR}
bin=${PG_BIN:+$PG_BIN/}
target=()
if [ -n "${DATABASE_URL:-}" ]; then
    target=(--dbname "$DATABASE_URL")
fi
"${bin}pg_basebackup" --pgdata "$out" --format=plain --wal-method=stream \
    --checkpoint=fast --no-password "${target[@]}"
"${bin}pg_verifybackup" --no-parse-wal "$out" >/dev/null
echo "base backup: wrote $out (verified against its manifest)"
