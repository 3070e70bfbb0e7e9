# Sourced by scripts/test.sh: make sure pg_auto_failover (`pg_autoctl` and
# its PostgreSQL 15 extension) is installed for the failover test
# (tests/failover/, issue 19 point 7). Debian's packages
# `postgresql-15-auto-failover` and `pg-auto-failover-cli` are installed
# when missing (as root, or through sudo). PostgreSQL and pg_autoctl refuse
# to run as root: the test runs them as the system user `postgres` (the
# Debian PostgreSQL packages create it; created here when missing) unless
# it is itself unprivileged. PG_AUTOCTL_BIN and PG_BINDIR point at the
# binaries found. Without them the failover test fails with the reason: it
# is never skipped.
find_pg_autoctl() {
    PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
    PG_AUTOCTL_BIN=${PG_AUTOCTL_BIN:-$(command -v pg_autoctl || true)}
    [ -n "$PG_AUTOCTL_BIN" ] || { [ -x "$PG_BINDIR/pg_autoctl" ] && PG_AUTOCTL_BIN="$PG_BINDIR/pg_autoctl"; } || true
}
find_pg_autoctl
if [ -z "$PG_AUTOCTL_BIN" ] || [ ! -f /usr/share/postgresql/15/extension/pgautofailover.control ]; then
    echo "== installing postgresql-15-auto-failover and pg-auto-failover-cli (Debian packages)"
    apt_get="apt-get"
    [ "$(id -u)" -eq 0 ] || apt_get="sudo apt-get"
    export DEBIAN_FRONTEND=noninteractive
    failover_packages="postgresql-15-auto-failover pg-auto-failover-cli"
    # shellcheck disable=SC2086
    $apt_get install -y -q --no-install-recommends $failover_packages >/dev/null \
        || { $apt_get update -q >/dev/null && $apt_get install -y -q --no-install-recommends $failover_packages >/dev/null; } \
        || echo "could not install pg_auto_failover; tests/failover/ will say why" >&2
    find_pg_autoctl
fi
# The unprivileged user the servers run as when the tests run as root.
if [ "$(id -u)" -eq 0 ] && ! getent passwd postgres >/dev/null; then
    useradd --system --home-dir /var/lib/postgresql --create-home --shell /bin/bash postgres \
        || echo "could not create the user postgres; tests/failover/ will say why" >&2
fi
export PG_AUTOCTL_BIN PG_BINDIR
