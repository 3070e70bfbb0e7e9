"""API authentication: hashed, expiring, venue-scoped keys; the user's roles in the same statement.

Clients send `Authorization: Token <key>` as before. The key is looked up
by its prefix among casino.keys' ClientKeys (hashed at rest, SHA-512), with
its user and the user's role names in one statement (`ArrayAgg` over the
groups, left where `roles_of` finds them), then checked against its hash; a
revoked or expired key, or an inactive user, is refused (401). The time the
key was last used is written at most once a minute. `request.auth` is the
ClientKey, whose venues casino.roles.HasRole holds the request to.
"""

from __future__ import annotations

import datetime as dt

from axes.backends import AxesStandaloneBackend
from django.contrib.postgres.aggregates import ArrayAgg
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from casino.keys.models import LEGACY_PREFIX_LENGTH, ClientKey
from casino.roles import Role

LAST_USED_GRAIN = dt.timedelta(minutes=1)


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`: a ClientKey, with the user's roles read in the same statement."""

    def authenticate_credentials(self, key):
        prefix = key.partition(".")[0] if "." in key else key[:LEGACY_PREFIX_LENGTH]
        row = (ClientKey.objects.select_related("user")
               .annotate(role_names=ArrayAgg("user__groups__name", distinct=True, default=[]))
               .filter(prefix=prefix).first())
        if row is None or not row.is_valid(key):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if row.revoked or row.has_expired:
            raise exceptions.AuthenticationFailed(_("This key is revoked or has expired."))
        if not row.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        now = timezone.now()
        if row.last_used_at is None or now - row.last_used_at >= LAST_USED_GRAIN:
            ClientKey.objects.filter(pk=row.pk).update(last_used_at=now)
        row.user._casino_roles = frozenset(name for name in row.role_names if name) & set(Role)
        return (row.user, row)


class LockoutBackend(AxesStandaloneBackend):
    """django-axes' lockout in front of the admin's sign-in (settings.AUTHENTICATION_BACKENDS).

    After AXES_FAILURE_LIMIT wrong passwords for one user from one address
    the sign-in is refused, a right password included, until the cool-off
    ends. An authenticate() without a request (a script, the test client's
    login) has no address to count and is left to the next backend.
    """

    def authenticate(self, request=None, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
