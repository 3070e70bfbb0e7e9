#!/bin/sh
# Run once by the postgres image on a new data volume (compose.yaml mounts it
# into /docker-entrypoint-initdb.d/). The image's superuser only creates the
# two roles of casino/dbroles.py: the owner, who owns the database and runs
# the migrations, and the runtime role the app connects as (no superuser,
# owns nothing). The grants are the owner's (python -m casino.dbroles, run by the
# migrate service after each migration).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE casino_owner LOGIN PASSWORD '${CASINO_OWNER_PASSWORD}' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE ROLE casino_app LOGIN PASSWORD '${CASINO_APP_PASSWORD}' NOSUPERUSER NOCREATEDB NOCREATEROLE;
ALTER DATABASE ${POSTGRES_DB} OWNER TO casino_owner;
ALTER SCHEMA public OWNER TO casino_owner;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE ALL ON DATABASE ${POSTGRES_DB} FROM PUBLIC;
GRANT CONNECT ON DATABASE ${POSTGRES_DB} TO casino_app;
-- verify_ledger rebuilds the projections into temporary tables (ledger/verify.py).
GRANT TEMPORARY ON DATABASE ${POSTGRES_DB} TO casino_app;
SQL
