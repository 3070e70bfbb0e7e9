"""The cage's admin screen lists each venue's day and can change none of it."""

from django.contrib.auth.models import User
from django.urls import reverse

from casino.cage.commands import buy_chips
from casino.cage.models import CageDay
from tests.casino.conftest import NOON


def test_cage_days_are_listed_and_read_only(client, player):
    """A superuser sees the day's movements; add, change and delete are refused."""
    buy_chips(player_id=player.id, venue="casino-helsinki", amount_minor=12_000,
              currency="EUR", actor="cashier", at=NOON)
    User.objects.create_superuser("officer", "officer@example.com", "pw")
    client.login(username="officer", password="pw")
    day = CageDay.objects.get()
    listed = client.get(reverse("admin:cage_cageday_changelist"), {"venue": "casino-helsinki"})
    add = client.get(reverse("admin:cage_cageday_add"))
    change = client.post(reverse("admin:cage_cageday_change", args=[day.pk]), {})
    delete = client.post(reverse("admin:cage_cageday_delete", args=[day.pk]), {"post": "yes"})
    assert list(listed.context["cl"].result_list) == [day]
    assert (add.status_code, change.status_code, delete.status_code) == (403, 403, 403)
    assert CageDay.objects.get().chips_sold_cash_minor == 12_000
