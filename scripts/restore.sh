#!/usr/bin/env bash
# Restore a scripts/backup.sh dump into a NEW database, then verify it.
#
#   scripts/restore.sh IN.dump NEW_DATABASE_NAME
#
# Connects like scripts/backup.sh (DATABASE_URL's server, else libpq's
# environment; PG_BIN for pg_restore and createdb). The database must not
# exist: a restore never writes over a live one. The roles the dump names
# (casino_owner, casino_app: scripts/postgres_init.sh) must exist on the
# server. Then `manage.py verify_ledger` runs on the restored database: the
# hash chain, every balance, every projection, and the external seals when
# LEDGER_SEAL_FILE and LEDGER_SEAL_KEY_FILE name the original's seal file
# and key. Exits non-zero unless verify_ledger says OK.
set -euo pipefail
dump=${1:?usage: scripts/restore.sh IN.dump NEW_DATABASE_NAME}
name=${2:?usage: scripts/restore.sh IN.dump NEW_DATABASE_NAME}
cd "$(dirname "$0")/.."
bin=${PG_BIN:+$PG_BIN/}
if [ -n "${DATABASE_URL:-}" ]; then
    "${bin}createdb" --no-password --maintenance-db "${DATABASE_URL%/*}/postgres" "$name"
    target="${DATABASE_URL%/*}/$name"
else
    "${bin}createdb" --no-password "$name"
    target=$name
fi
"${bin}pg_restore" --exit-on-error --no-password --dbname "$target" "$dump"
echo "restore: $dump -> $name; verifying"
PYTHON=${PYTHON:-python}
[ -x .venv/bin/python ] && [ "$PYTHON" = python ] && PYTHON=.venv/bin/python
CASINO_DATABASE_NAME=$name "$PYTHON" manage.py verify_ledger
