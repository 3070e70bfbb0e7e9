#!/usr/bin/env bash
# The whole test suite, from a fresh clone: install with the dev extras, then
# the Rust crate's tests (release: they enumerate every 5- and 7-card hand),
# the native stub check, the import contracts and pytest (which starts an
# embedded PostgreSQL unless DATABASE_URL names one; Chromium for the browser
# test is installed from Debian's packages when missing, see
# scripts/browser_deps.sh; pg_auto_failover for the failover test likewise,
# scripts/failover_deps.sh). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh dev
echo "== cargo test (native_eval, release)"
(cd native_eval && cargo test --release --quiet)
echo "== stubtest native_eval._native"
stubtest_args=()
[ -f native_eval/stubtest-allowlist.txt ] && stubtest_args=(--allowlist native_eval/stubtest-allowlist.txt)
python -m mypy.stubtest native_eval._native "${stubtest_args[@]}"
echo "== import contracts"
lint-imports
echo "== browser (headless Chromium for the admin's browser test)"
. scripts/browser_deps.sh
echo "== docker-compose (validates compose.yaml in tests/ops/test_compose.py)"
. scripts/compose_deps.sh
echo "== pg_auto_failover (monitor, primary and standby for tests/failover/)"
. scripts/failover_deps.sh
echo "== pytest"
python -m pytest "$@"
