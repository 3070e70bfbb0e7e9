"""API authentication: hashed, expiring, venue-scoped keys; the user's roles in the same statement.

Clients send `Authorization: Token <key>` as before. The key is looked up
by its prefix among casino.keys' ClientKeys (hashed at rest, SHA-512), with
its user and the user's role names in one statement (an array over the
groups, left where `roles_of` finds them), then checked against its hash; a
revoked or expired key, or an inactive user, is refused (401). The time the
key was last used is written at most once a minute. `request.auth` is the
ClientKey, whose venues casino.roles.HasRole holds the request to.
"""

from __future__ import annotations

import datetime as dt

from functools import cache

from axes.backends import AxesStandaloneBackend
from django.contrib.auth import get_user_model
from django.db import connection
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
        row = _key_with_user_and_roles(prefix)
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


@cache
def _lookup_sql() -> tuple[str, list[str], list[str]]:
    """The key, its user and the user's group names: one statement, written once.

    In SQL rather than the ORM: the same query built by the ORM
    (select_related, an ArrayAgg annotation, first()) cost a quarter of an
    API write's CPU in compiling it.
    """
    user_model = get_user_model()
    key_fields = [f.attname for f in ClientKey._meta.concrete_fields]
    user_fields = [f.attname for f in user_model._meta.concrete_fields]
    groups = user_model._meta.get_field("groups")
    through = groups.remote_field.through._meta
    group_table = groups.related_model._meta.db_table
    columns = ", ".join([*(f'k."{c}"' for c in key_fields), *(f'u."{c}"' for c in user_fields)])
    sql = (
        f"SELECT {columns}, ARRAY(SELECT g.name FROM {through.db_table} ug"
        f" JOIN {group_table} g ON g.id = ug.group_id WHERE ug.user_id = u.id)"
        f" FROM {ClientKey._meta.db_table} k"
        f" JOIN {user_model._meta.db_table} u ON u.id = k.user_id"
        " WHERE k.prefix = %s ORDER BY k.id LIMIT 1"
    )
    return sql, key_fields, user_fields


def _key_with_user_and_roles(prefix: str) -> ClientKey | None:
    sql, key_fields, user_fields = _lookup_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [prefix])
        values = cursor.fetchone()
    if values is None:
        return None
    split = len(key_fields)
    row = _instance(ClientKey, key_fields, values[:split])
    row.user = _instance(get_user_model(), user_fields, values[split:split + len(user_fields)])
    row.role_names = values[-1]
    return row


def _instance(model, fields: list[str], values) -> object:
    """A model instance from a row, with each field's own conversion (JSON, as the ORM does)."""
    converted = [
        field.from_db_value(value, None, connection)
        if hasattr(field, "from_db_value") and value is not None else value
        for field, value in zip((model._meta.get_field(name) for name in fields), values)
    ]
    return model.from_db(connection.alias, fields, converted)


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
