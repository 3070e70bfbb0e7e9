# Sourced by scripts/test.sh: make sure `docker-compose` is on the PATH so
# tests/ops/test_compose.py can run `docker-compose -f compose.yaml config -q`
# (it validates the file against the compose schema without a Docker daemon).
# Debian's package `docker-compose` is installed when missing (as root, or
# through sudo). Without it that test fails with the reason: it is never skipped.
if ! command -v docker-compose >/dev/null; then
    echo "== installing docker-compose (Debian package)"
    apt_get="apt-get"
    [ "$(id -u)" -eq 0 ] || apt_get="sudo apt-get"
    export DEBIAN_FRONTEND=noninteractive
    $apt_get install -y -q --no-install-recommends docker-compose >/dev/null \
        || { $apt_get update -q >/dev/null && $apt_get install -y -q --no-install-recommends docker-compose >/dev/null; } \
        || echo "could not install docker-compose; tests/ops/test_compose.py will say why" >&2
fi
