# Sourced by scripts/test.sh: make sure a headless Chromium and its
# chromedriver are on the PATH for the admin's browser test
# (tests/browser/). Debian's packages `chromium` and `chromium-driver` are
# installed when missing (as root, or through sudo); CHROMIUM_BIN and
# CHROMEDRIVER_BIN point at binaries found elsewhere. Without either the
# browser test fails with the reason: it is never skipped.
find_chromium() {
    CHROMIUM_BIN=${CHROMIUM_BIN:-$(command -v chromium || command -v chromium-browser \
        || command -v google-chrome || true)}
    CHROMEDRIVER_BIN=${CHROMEDRIVER_BIN:-$(command -v chromedriver || true)}
}
find_chromium
if [ -z "$CHROMIUM_BIN" ] || [ -z "$CHROMEDRIVER_BIN" ]; then
    echo "== installing chromium and chromium-driver (Debian packages)"
    apt_get="apt-get"
    [ "$(id -u)" -eq 0 ] || apt_get="sudo apt-get"
    export DEBIAN_FRONTEND=noninteractive
    $apt_get install -y -q chromium chromium-driver >/dev/null \
        || { $apt_get update -q >/dev/null && $apt_get install -y -q chromium chromium-driver >/dev/null; } \
        || echo "could not install chromium; the browser test will say why" >&2
    find_chromium
fi
export CHROMIUM_BIN CHROMEDRIVER_BIN
