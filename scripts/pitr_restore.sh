#!/usr/bin/env bash
# Point-in-time restore: a base backup plus archived WAL, up to a moment.
#
#   scripts/pitr_restore.sh BASE_DIR WAL_ARCHIVE_DIR TARGET_TIME NEW_DATA_DIR
#
# TARGET_TIME is a PostgreSQL timestamp with its zone ("2026-06-16 14:03:00+03").
# Copies the base backup (scripts/base_backup.sh) into NEW_DATA_DIR (which must
# not exist: a restore never writes over a live server), sets restore_command
# to read the archive (scripts/wal_archive.sh wrote it), recovery_target_time
# and recovery_target_action = promote, and leaves recovery.signal. Commits
# after TARGET_TIME are not replayed.
#
# With PITR_PORT set it also starts the restored server there (pg_ctl, sockets
# in PITR_SOCKET_DIR, default NEW_DATA_DIR), waits until recovery has ended and
# the server accepts writes, and, with PITR_DATABASE (the casino database's
# name), runs `manage.py verify_ledger` on it: the chain, every balance, every
# projection, and the external seals when LEDGER_SEAL_FILE and
# LEDGER_SEAL_KEY_FILE name the original's. Exits non-zero unless it says OK.
#
# PostgreSQL refuses to run as root: run by root, the copy and the server
# belong to PITR_SERVER_USER (default postgres; the embedded server's is
# pgserver) and verify_ledger still runs as the caller.
set -euo pipefail
base=${1:?usage: scripts/pitr_restore.sh BASE_DIR WAL_ARCHIVE_DIR TARGET_TIME NEW_DATA_DIR}
archive=${2:?usage: scripts/pitr_restore.sh BASE_DIR WAL_ARCHIVE_DIR TARGET_TIME NEW_DATA_DIR}
target_time=${3:?usage: scripts/pitr_restore.sh BASE_DIR WAL_ARCHIVE_DIR TARGET_TIME NEW_DATA_DIR}
data=${4:?usage: scripts/pitr_restore.sh BASE_DIR WAL_ARCHIVE_DIR TARGET_TIME NEW_DATA_DIR}
cd "$(dirname "$0")/.."
bin=${PG_BIN:+$PG_BIN/}
if [ -e "$data" ]; then
    echo "pitr_restore: $data exists; restore into a new folder" >&2
    exit 2
fi
archive=$(cd "$archive" && pwd)
as_server=()
if [ "$(id -u)" = 0 ]; then
    as_server=(runuser -u "${PITR_SERVER_USER:-postgres}" --)
fi
"${as_server[@]}" cp -a "$base" "$data"
"${as_server[@]}" chmod 700 "$data"
"${as_server[@]}" rm -f "$data/postmaster.pid"
"${as_server[@]}" tee -a "$data/postgresql.auto.conf" >/dev/null <<CONF
# scripts/pitr_restore.sh
archive_mode = off
restore_command = 'cp "$archive/%f" "%p"'
recovery_target_time = '$target_time'
recovery_target_action = 'promote'
CONF
"${as_server[@]}" touch "$data/recovery.signal"
echo "pitr_restore: $base -> $data, WAL from $archive, up to $target_time"
[ -n "${PITR_PORT:-}" ] || exit 0

sockets=${PITR_SOCKET_DIR:-$data}
"${as_server[@]}" "${bin}pg_ctl" --pgdata "$data" --wait --timeout 120 --log "$data/restore.log" \
    -o "-p $PITR_PORT -k $sockets -c listen_addresses=''" start
user=${PGUSER:-postgres}
for _ in $(seq 1 240); do
    state=$("${bin}psql" -h "$sockets" -p "$PITR_PORT" -U "$user" -d postgres -At \
            -c "SELECT pg_is_in_recovery()" 2>/dev/null || true)
    [ "$state" = "f" ] && break
    sleep 0.5
done
if [ "$state" != "f" ]; then
    echo "pitr_restore: recovery did not end; see $data/restore.log" >&2
    exit 1
fi
echo "pitr_restore: recovered and promoted on port $PITR_PORT"
[ -n "${PITR_DATABASE:-}" ] || exit 0
PYTHON=${PYTHON:-python}
[ -x .venv/bin/python ] && [ "$PYTHON" = python ] && PYTHON=.venv/bin/python
DATABASE_URL="postgres://$user@/$PITR_DATABASE?host=$sockets&port=$PITR_PORT" \
    "$PYTHON" manage.py verify_ledger
