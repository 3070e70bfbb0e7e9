#!/usr/bin/env bash
# The main job on the embedded default: install, migrate, load the rulebooks,
# then `manage.py demo`: two demo gaming days (2026-06-16 and -17) at the
# seeds' venues, played through the apps' command functions with a progress
# bar (cage, poker hand histories, roulette and punto banco, a tournament, a
# bad-beat jackpot hit, refusals, the Celery roll-up, daily closes, a journal
# export to .data/demo/journal.csv, the day seals), then the chain
# verification, a summary and the logins (officer, officer2, accountant; all
# with the password casino-demo). Finally it serves the admin on
# 127.0.0.1:8000 (Ctrl-C to stop). Running it again appends nothing new.
# Arguments go to `manage.py demo`, e.g. ./scripts/demo.sh --seed 7 (one seed
# per database: see casino/demo/gaming_day.py).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
python manage.py migrate --verbosity 0
python manage.py load_rulebooks
python manage.py demo "$@"
echo "Serving the admin at http://127.0.0.1:8000/admin/ (Ctrl-C stops it)"
exec python manage.py runserver 127.0.0.1:8000
