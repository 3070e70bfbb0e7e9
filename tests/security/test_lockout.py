"""Lockout after repeated failures at the admin's sign-in (django-axes, issue 16).

The probe: 30 wrong passwords in a row, then the right one, signed in. Now
five wrong ones lock that user out from that address: the right password
is refused too, while another user (or another address) still signs in.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

PASSWORD = "violet-harbour-lantern-42"


def sign_in(username: str, password: str, address: str = "10.0.0.1"):
    client = Client(REMOTE_ADDR=address)
    response = client.post("/admin/login/?next=/admin/",
                           {"username": username, "password": password})
    return response, client


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_five_wrong_passwords_lock_the_user_out_from_that_address(db):
    User.objects.create_user("olli", password=PASSWORD, is_staff=True)
    User.objects.create_user("outi", password=PASSWORD, is_staff=True)
    for _ in range(5):
        response, client = sign_in("olli", "wrong-password-x")
        assert not signed_in(client)
    refused, client = sign_in("olli", PASSWORD)
    assert refused.status_code in (403, 429) and not signed_in(client)
    other_user, client = sign_in("outi", PASSWORD)
    assert other_user.status_code == 302 and signed_in(client)
    other_address, client = sign_in("olli", PASSWORD, address="10.0.0.2")
    assert other_address.status_code == 302 and signed_in(client)


def test_fewer_failures_then_the_right_password_signs_in(db):
    User.objects.create_user("aude", password=PASSWORD, is_staff=True)
    for _ in range(4):
        sign_in("aude", "wrong-password-x")
    response, client = sign_in("aude", PASSWORD)
    assert response.status_code == 302 and signed_in(client)
