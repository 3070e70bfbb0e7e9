#!/usr/bin/env bash
# Record the OpenAPI examples (casino/openapi_examples.json) from a run of the
# API's own tests: the idempotency walk sends every write once with a real
# body; the read tests read every list and the main resources. The first
# successful exchange of each operation is kept (tests/casino/api/
# record_examples.py) and merged into the file; casino.openapi_conventions
# attaches it to the operation in the schema. Rerun after changing a request
# or an answer; with arguments, only the tests named (e.g. a new endpoint's
# test file) are run and their operations' examples replaced.
set -euo pipefail
cd "$(dirname "$0")/.."
export RECORD_API_EXAMPLES=${RECORD_API_EXAMPLES:-casino/openapi_examples.json}
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    tests=(tests/casino/api/test_idempotency_walk.py
           tests/casino/api/test_alerts.py tests/casino/api/test_rules.py
           tests/casino/api/test_corrections.py tests/casino/api/test_players.py
           tests/casino/compliance/test_cases_api.py tests/casino/cage/test_api.py
           tests/casino/cashier/test_api.py tests/casino/jackpots/test_api.py
           tests/casino/poker/test_api.py tests/casino/machines/test_api.py
           tests/casino/reports/test_api.py tests/casino/reports/test_account_as_of.py
           tests/ledger/test_api.py tests/casino/webhooks/test_subscriptions_api.py)
fi
.venv/bin/python -m pytest -q -p no:cacheprovider -p tests.casino.api.record_examples "${tests[@]}"
