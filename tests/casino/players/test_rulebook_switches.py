"""The players app reads its switches from the rulebook (issue 14, seed 002 Part III 7.4-7.5).

- 002:L3064 "Pelaajalla saa olla vain yksi pelitili.": one gaming account per
  person (`online.account.max_per_person`); a second registration is a
  refusal, recorded.
- `online.limits.decrease_delay` (decision online.limits.cooling_off, 0 hours):
  a lower limit takes effect at once.
- 002:L3086 "Pelikieltoa ei voi perua sen voimassaoloaikana.": a running
  self-exclusion cannot be revoked or shortened (`online.self_exclusion.revocable`).

Each test flips the loaded figure and shows the behaviour follows it.
"""

import datetime as dt

import pytest

from casino.players.commands import register_player, self_exclude, set_limit
from casino.players.errors import PlayerError, PlayerErrorCode
from casino.players.models import Player
from casino.rules import cache
from casino.rules.models import Figure as RuleFigure
from ledger.models import Event
from tests.casino.conftest import NOON, make_player


@pytest.fixture
def fresh_rules_cache():
    cache.invalidate()
    yield
    cache.invalidate()


def _set(key: str, value) -> None:
    updated = RuleFigure.objects.filter(rulebook__rulebook_id="ray-online",
                                        figure_key=key).update(value=value)
    assert updated == 1, key
    cache.invalidate()


def _register(number: str, **extra):
    return register_player(given_name="Maija", family_name="Meikäläinen",
                           date_of_birth=dt.date(1985, 1, 2), nationality="FI",
                           document_type="passport", document_number=number, actor="test",
                           at=NOON, **extra)


def test_a_second_account_for_one_person_is_refused_and_recorded(venues, fresh_rules_cache):
    """002:L3064: one gaming account per person; the refusal cites the line and is
    on the record, without personal data, and a retry under its key replays it."""
    first = _register("X1234567")
    before = Event.objects.count()
    with pytest.raises(PlayerError) as refused:
        _register("x1234567", idempotency_key="second-account")
    error = refused.value
    assert error.code == PlayerErrorCode.DUPLICATE_IDENTITY
    assert (error.details["player"], error.details["accounts_max"], error.details["cite"]) == (
        first.id, 1, "002:L3064")
    assert Event.objects.count() == before + 1
    recorded = Event.objects.get(position=error.details["rejection_position"])
    assert recorded.type == "players.registration_rejected"
    assert recorded.payload["rule"] == "players.duplicate_identity"
    assert "Maija" not in str(recorded.payload)
    with pytest.raises(PlayerError) as again:
        _register("X1234567", idempotency_key="second-account")
    assert again.value.details["rejection_position"] == error.details["rejection_position"]
    assert Event.objects.count() == before + 1
    assert Player.objects.count() == 1


def test_the_accounts_per_person_figure_is_read(venues, fresh_rules_cache):
    """With `online.account.max_per_person` at 0 even a first account is refused:
    the figure, not a rule of the code, decides."""
    _set("online.account.max_per_person", 0)
    with pytest.raises(PlayerError) as refused:
        _register("Y7654321")
    assert refused.value.code == PlayerErrorCode.DUPLICATE_IDENTITY
    assert refused.value.details["accounts_max"] == 0
    assert not Player.objects.exists()


def test_a_lower_limit_waits_for_the_decrease_delay_the_rulebook_states(
        venues, fresh_rules_cache):
    """Shipped, 0 hours: a decrease is in force at once. At 48 hours the lower
    value waits 48 hours, as a raise waits its own delay."""
    player = make_player(daily=100_00)
    now = set_limit(player_id=player.id, kind="daily_spend", value=50_00,
                    venue_code="ray-online", actor="test", at=NOON)
    assert (now.value, now.pending_value) == (50_00, None)
    _set("online.limits.decrease_delay", 48)
    later = set_limit(player_id=player.id, kind="daily_spend", value=20_00,
                      venue_code="ray-online", actor="test", at=NOON + dt.timedelta(hours=1))
    assert (later.value, later.pending_value) == (50_00, 20_00)
    assert later.pending_effective_at == NOON + dt.timedelta(hours=49)


def test_a_running_self_exclusion_is_shortened_only_where_the_rulebook_allows(
        venues, fresh_rules_cache):
    """002:L3086: not revocable while it runs (refused, recorded). A rulebook that
    made it revocable would let the player shorten it."""
    player = make_player()
    self_exclude(player_id=player.id, months=6, venue_code="ray-online", actor="test", at=NOON)
    before = Event.objects.count()
    with pytest.raises(PlayerError) as refused:
        self_exclude(player_id=player.id, months=1, venue_code="ray-online", actor="test",
                     at=NOON + dt.timedelta(days=1))
    assert (refused.value.code, refused.value.details["reason"]) == (
        PlayerErrorCode.SELF_EXCLUSION_ACTIVE, "not_later")
    assert Event.objects.count() == before + 1
    _set("online.self_exclusion.revocable", True)
    shortened = self_exclude(player_id=player.id, months=1, venue_code="ray-online",
                             actor="test", at=NOON + dt.timedelta(days=2))
    assert shortened.self_excluded_until < NOON + dt.timedelta(days=40)
