"""Two factors for every staff user of the admin (django-otp TOTP, issue 16).

With ADMIN_REQUIRE_TWO_FACTOR (on in production) a staff user signed in with
the password alone is sent to /admin/two-factor/ from every admin page; a
wrong code keeps them there, the current code of their TOTP device lets
them in. The device is enrolled with `manage.py totp_device`.
"""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

PASSWORD = "violet-harbour-lantern-42"


@pytest.fixture
def officer(db, settings):
    settings.ADMIN_REQUIRE_TWO_FACTOR = True
    user = User.objects.create_user("olli", password=PASSWORD, is_staff=True,
                                    is_superuser=True)
    client = Client()
    assert client.post("/admin/login/?next=/admin/",
                       {"username": "olli", "password": PASSWORD}).status_code == 302
    return user, client


def current_code(device: TOTPDevice) -> str:
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time()
    return f"{totp.token():0{device.digits}d}"


def test_a_password_alone_does_not_open_the_admin(officer):
    _, client = officer
    for page in ("/admin/", "/admin/ledger/event/"):
        answer = client.get(page)
        assert answer.status_code == 302
        assert answer["Location"].startswith("/admin/two-factor/?next=")


def test_the_devices_code_opens_it_and_a_wrong_one_does_not(officer, capsys, settings):
    # django-otp slows down guessing (a growing wait after each wrong code);
    # the test does not wait.
    settings.OTP_TOTP_THROTTLE_FACTOR = 0
    user, client = officer
    call_command("totp_device", "--user", "olli")
    assert capsys.readouterr().out.startswith("otpauth://totp/")
    device = TOTPDevice.objects.get(user=user)
    wrong = client.post("/admin/two-factor/", {"otp_token": "000000" if current_code(device)
                                               != "000000" else "111111", "next": "/admin/"})
    assert wrong.status_code == 401
    assert client.get("/admin/").status_code == 302
    right = client.post("/admin/two-factor/", {"otp_token": current_code(device),
                                               "next": "/admin/"})
    assert (right.status_code, right["Location"]) == (302, "/admin/")
    assert client.get("/admin/").status_code == 200


def test_off_outside_production_unless_asked(db, settings):
    settings.ADMIN_REQUIRE_TWO_FACTOR = False
    User.objects.create_user("aude", password=PASSWORD, is_staff=True, is_superuser=True)
    client = Client()
    client.post("/admin/login/", {"username": "aude", "password": PASSWORD})
    assert client.get("/admin/").status_code == 200
