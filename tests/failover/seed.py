"""Seed the failover test's database: rulebooks, the venues, players, a cage token.

Run by tests/failover/test_failover.py as `python -m tests.failover.seed N`
against the group's primary (DATABASE_URL, as the schema's owner), after the
migrations; prints one JSON line: the cage token and N player ids. Runs in
its own process with the real clock: the API serves the chip purchases at
the server's time too.
"""

from __future__ import annotations

import json
import os
import sys
import uuid


def main(players: int) -> dict:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from rest_framework.authtoken.models import Token

    from casino.roles import Role, ensure_role_groups
    from casino.rules.commands import load_shipped_rulebooks, register_venue
    from ledger.writer import stop_writer
    from tests.casino.conftest import VENUES, make_player

    load_shipped_rulebooks()
    ensure_role_groups()
    # Every venue the test players' set-up names (their limits are set online).
    for rulebook_id, code in VENUES.items():
        register_venue(code=code, name=code, rulebook_id=rulebook_id)
    user = User.objects.create_user(f"cage-failover-{uuid.uuid4().hex[:8]}")
    user.groups.add(Group.objects.get(name=Role.CAGE))
    token = Token.objects.create(user=user).key
    player_ids = [make_player().id for _ in range(players)]
    stop_writer()
    return {"token": token, "user_pk": user.pk, "players": player_ids}


VENUE = "casino-helsinki"

if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]))))
