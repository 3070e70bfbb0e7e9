"""Every staff user of the admin passes a second factor (settings.ADMIN_REQUIRE_TWO_FACTOR).

After django_otp's OTPMiddleware (which sets `user.is_verified()`): a
signed-in staff user who is not verified is sent to /admin/two-factor/
from every admin page but the sign-in, sign-out and that page itself.
"""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from django.shortcuts import redirect

OPEN_PATHS = ("/admin/login/", "/admin/logout/", "/admin/two-factor/", "/admin/jsi18n/")


class AdminTwoFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (getattr(settings, "ADMIN_REQUIRE_TWO_FACTOR", False)
                and request.path.startswith("/admin/")
                and not request.path.startswith(OPEN_PATHS)):
            user = getattr(request, "user", None)
            if (user is not None and user.is_authenticated and user.is_staff
                    and not user.is_verified()):
                return redirect(f"/admin/two-factor/?next={quote(request.get_full_path())}")
        return self.get_response(request)
