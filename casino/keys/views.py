"""The admin's second factor (django-otp, TOTP): a staff user who signed in with a
password enters a code of a confirmed TOTP device before any admin page.

settings.ADMIN_REQUIRE_TWO_FACTOR (on in production) makes
casino.keys.middleware.AdminTwoFactorMiddleware send an unverified staff user
here; `manage.py totp_device --user <name>` enrolls a device.
"""

from __future__ import annotations

from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django_otp import login as otp_login
from django_otp import match_token


def _next(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/admin/"
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        return "/admin/"
    return target


@never_cache
def two_factor(request):
    if not request.user.is_authenticated:
        return redirect(f"/admin/login/?next={_next(request)}")
    error = ""
    if request.method == "POST":
        device = match_token(request.user, request.POST.get("otp_token", "").strip())
        if device is not None:
            otp_login(request, device)
            return redirect(_next(request))
        error = "That code is not valid for any of your devices."
    return render(request, "keys/two_factor.html",
                  {"next": _next(request), "error": error, "title": "Two-factor sign-in",
                   "site_header": "casino-ledger"}, status=401 if error else 200)
