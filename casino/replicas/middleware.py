"""Serve the read-only routes from the replica (casino.replicas.router).

Listed here, once: the event feed, the reports' lists and a computed close
(GET), and the admin's changelists of the ledger and the event-backed apps.
Only GET and HEAD, and only when a replica is configured: otherwise this
middleware does nothing at all.

The replica scope opens around the view's own work and nothing before it:
- an API view's handler runs in the scope *after* DRF has authenticated
  the client (the key's `last_used_at` is written to the primary),
  checked its role and throttled it (a subclass of the view, made once per
  view, whose `get` opens the scope);
- an admin changelist runs after the signed-in user (and their session)
  was loaded from the primary, and is rendered inside the scope, as a
  TemplateResponse would otherwise read its rows after the scope closed.

Not listed: the journal export, which chooses for itself
(casino/reports/responses.py: it reads the journal where it read its head,
chunk by chunk as the CSV streams after the view has returned, and records
`reports.journal_exported` on the primary with `on_primary()`). Always on
the primary: account balances (a cage reads them before it acts), every
write, and the admin's users, groups, keys and sign-in records.

Decision (not in the seeds): the middleware answers the listed routes
from `process_view`, so it sits last among the middlewares that have a
`process_view` (after CsrfViewMiddleware); settings.MIDDLEWARE lists it so.
"""

from __future__ import annotations

from typing import Callable

from django.http import HttpRequest, HttpResponse

from .router import reading_from_replica, replica_configured

# URL names (casino/urls.py, ledger.api.urls, casino.reports.api.urls).
API_ROUTES = frozenset({
    "event-feed",
    "reports-closes",
    "reports-close",
    "reports-exports",
    "reports-seals",
})
# Admin changelists of these apps stay on the primary: sign-in, users,
# groups, keys and second factors are read right after they are written.
PRIMARY_ONLY_APPS = frozenset({
    "auth", "sessions", "contenttypes", "admin", "authtoken", "rest_framework_api_key",
    "keys", "otp_totp", "otp_static", "django_otp", "axes",
})
READ_METHODS = frozenset({"GET", "HEAD"})


def serves_from_replica(request: HttpRequest, view_func: Callable) -> str | None:
    """Return 'api' or 'admin' when the request is one this middleware serves, else None."""
    if request.method not in READ_METHODS:
        return None
    match = getattr(request, "resolver_match", None)
    if match is None:
        return None
    if match.url_name in API_ROUTES and hasattr(view_func, "cls"):
        return "api"
    model_admin = getattr(view_func, "model_admin", None)
    if (model_admin is not None and "admin" in match.namespaces
            and (match.url_name or "").endswith("_changelist")
            and model_admin.model._meta.app_label not in PRIMARY_ONLY_APPS):
        return "admin"
    return None


class ReplicaReadMiddleware:
    """Run the listed read-only views inside `reading_from_replica()`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self._api_views: dict[Callable, Callable] = {}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func: Callable, view_args, view_kwargs):
        if not replica_configured():
            return None
        kind = serves_from_replica(request, view_func)
        if kind == "api":
            return self._api_view(view_func)(request, *view_args, **view_kwargs)
        if kind == "admin":
            # Load the user (and the session it comes from) from the primary.
            request.user.is_authenticated  # noqa: B018
            with reading_from_replica():
                response = view_func(request, *view_args, **view_kwargs)
                if hasattr(response, "render") and not response.is_rendered:
                    response.render()
            return response
        return None

    def _api_view(self, view_func: Callable) -> Callable:
        """Return the view with its `get` handler run in a replica scope (made once)."""
        view = self._api_views.get(view_func)
        if view is None:
            view_class = view_func.cls

            def get(self, request, *args, **kwargs):
                with reading_from_replica():
                    return view_class.get(self, request, *args, **kwargs)

            replica_class = type(view_class.__name__, (view_class,), {
                "get": get, "__module__": view_class.__module__,
                "__doc__": view_class.__doc__, "__qualname__": view_class.__qualname__})
            view = replica_class.as_view(**view_func.initkwargs)
            self._api_views[view_func] = view
        return view
