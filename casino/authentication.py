"""API authentication: DRF's token authentication, the user's roles in the same statement.

The role check (casino.roles.HasRole) needs the user's groups on every
request; read separately they cost every write a second statement. One
statement reads the token, its user and the user's role names together
(`ArrayAgg` over the groups), and leaves the roles where `roles_of` finds
them.
"""

from __future__ import annotations

from django.contrib.postgres.aggregates import ArrayAgg
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from casino.roles import Role


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`, with the user's roles read in the same statement."""

    def authenticate_credentials(self, key):
        model = self.get_model()
        try:
            token = (model.objects.select_related("user")
                     .annotate(role_names=ArrayAgg("user__groups__name", distinct=True,
                                                   default=[]))
                     .get(key=key))
        except model.DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token.user._casino_roles = frozenset(name for name in token.role_names if name) & set(Role)
        return (token.user, token)
