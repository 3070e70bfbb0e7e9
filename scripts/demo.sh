#!/usr/bin/env bash
# The main job on the embedded default: install, migrate, load the demo gaming
# day through the public ledger functions, verify the chain, print balances,
# then serve the admin on 127.0.0.1:8000 (Ctrl-C to stop).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
python manage.py migrate --verbosity 0
python manage.py load_rulebooks
python manage.py demo "$@"
echo "Serving the admin at http://127.0.0.1:8000/admin/ (Ctrl-C stops it)"
exec python manage.py runserver 127.0.0.1:8000
