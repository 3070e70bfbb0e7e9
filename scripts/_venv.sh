# Sourced by the scripts: create .venv (Python 3.11+) and install the project
# into it with the given extras. Needs only Python and a Rust toolchain.
set -euo pipefail
PYTHON=${PYTHON:-python3}
"$PYTHON" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"casino-ledger needs Python 3.11 or newer, found {sys.version.split()[0]}")
PY
command -v cargo >/dev/null || { echo "casino-ledger needs a Rust toolchain (cargo)" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
# Editable install: maturin compiles native_eval (release) and links casino
# and ledger from this folder.
# The lock file pins every package's version (scripts/lock.sh writes it).
lock=()
[ -f requirements.lock ] && [ -z "${CASINO_NO_LOCK:-}" ] && lock=(-c requirements.lock)
if [ -n "${1:-}" ]; then
    python -m pip install --quiet "${lock[@]}" -e ".[$1]"
else
    python -m pip install --quiet "${lock[@]}" -e .
fi
