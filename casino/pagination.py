"""Cursor pagination for every list of the API (issue 18 item 1).

Every list answers one envelope:

    {"next": <url or null>, "previous": <url or null>, "has_more": <bool>,
     "results": [...]}

A client follows `next` until `has_more` is false (`next` is then null).
The cursor is opaque and stable under inserts: a row written while a client
pages is neither skipped nor repeated (DRF's CursorPagination, keyed on one
unchanging, (nearly) unique column per list). `limit` sets the page size
(1 to the list's maximum; out of range is a 400, never silently clamped).
`offset` is kept for clients written against the earlier offset pages: it
skips rows on the first page only; `next` then carries on by cursor.

The ledger's event feed and an account's history page by ledger position
(`after`) instead, since a position is itself a stable cursor; their answers
carry the same `next` and `has_more` (ledger.api.views).

A list view is a `CursorListView` (a GenericAPIView) that names its
`queryset`, `serializer_class`, `ordering` and `filterset_class`
(casino.filters); its GET returns `self.list(request)`.
"""

from __future__ import annotations

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param

from casino.api import PERMISSIONS

PAGE_SIZE_DEFAULT = 100
PAGE_SIZE_MAX = 500
OFFSET_MAX = 2**63 - 1


def _integer(raw: str, name: str, minimum: int, maximum: int) -> int:
    field = serializers.IntegerField(min_value=minimum, max_value=maximum)
    try:
        return field.run_validation(raw)
    except serializers.ValidationError as error:
        raise ValidationError({name: error.detail}) from None


class CursorPage(CursorPagination):
    """DRF's cursor pagination with `has_more`, a strict `limit` and a legacy `offset`."""

    page_size = PAGE_SIZE_DEFAULT
    max_page_size = PAGE_SIZE_MAX
    page_size_query_param = "limit"
    page_size_query_description = "Rows per page: 1 to the list's maximum (400 beyond it)."
    cursor_query_description = ("Opaque cursor from a previous answer's `next` (or `previous`);"
                                " omit it for the first page.")
    offset_query_param = "offset"
    ordering = "-pk"
    template = None

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return min(self.page_size, self.max_page_size)
        return _integer(raw, self.page_size_query_param, 1, self.max_page_size)

    def get_ordering(self, request, queryset, view):
        ordering = getattr(view, "ordering", None) or self.ordering
        return (ordering,) if isinstance(ordering, str) else tuple(ordering)

    def decode_cursor(self, request: Request):
        if request.query_params.get(self.cursor_query_param) is None:
            raw = request.query_params.get(self.offset_query_param)
            if raw is None:
                return None
            offset = _integer(raw, self.offset_query_param, 0, OFFSET_MAX)
            return Cursor(offset=offset, reverse=False, position=None)
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise ValidationError({self.cursor_query_param: [
                "not a cursor this API gave out: follow `next` or `previous`"]}) from None

    def paginate_queryset(self, queryset, request, view=None):
        page = super().paginate_queryset(queryset, request, view)
        # `next` and `previous` carry on by cursor: the legacy offset is spent.
        self.base_url = remove_query_param(self.base_url, self.offset_query_param)
        return page

    def get_paginated_response(self, data) -> Response:
        return Response({"next": self.get_next_link(), "previous": self.get_previous_link(),
                         "has_more": bool(self.has_next), "results": data})

    def get_paginated_response_schema(self, schema: dict) -> dict:
        answer = super().get_paginated_response_schema(schema)
        answer["properties"]["next"]["description"] = (
            "The next page's URL; null on the last page.")
        answer["properties"]["next"]["example"] = (
            "https://casino.example/api/v1/alerts?cursor=cD0yMDI2LTExLTI2")
        answer["properties"]["previous"]["example"] = (
            "https://casino.example/api/v1/alerts?cursor=cj0xJnA9MjAyNi0xMS0yNg%3D%3D")
        answer["properties"]["has_more"] = {
            "type": "boolean", "description": "Whether `next` leads to more rows."}
        answer["required"] = ["next", "previous", "has_more", "results"]
        return answer

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        maximum = getattr(view, "page_size_max", None) or self.max_page_size
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": maximum,
                                       "default": min(self.page_size, maximum)}
        parameters.append({
            "name": self.offset_query_param, "required": False, "in": "query",
            "deprecated": True,
            "description": "Rows to skip on the first page (the earlier offset paging);"
                           " follow `next` instead.",
            "schema": {"type": "integer", "minimum": 0, "maximum": OFFSET_MAX}})
        return parameters


class CursorListView(GenericAPIView):
    """A list with cursor pages and django-filter filters; subclasses may add a POST.

    Set `queryset`, `serializer_class`, `ordering` (a column or tuple; the
    first is the cursor's key, so unchanging and (nearly) unique) and
    `filterset_class`; `page_size_max` overrides PAGE_SIZE_MAX.
    """

    permission_classes = PERMISSIONS
    filter_backends = [DjangoFilterBackend]
    ordering: str | tuple[str, ...] = "-pk"
    page_size_max: int | None = None

    @property
    def pagination_class(self):
        """Pages for the list (GET) only: a POST to the same URL answers what it
        wrote, unpaged, and the schema must say so."""
        request = getattr(self, "request", None)
        return CursorPage if request is None or request.method in ("GET", "HEAD") else None

    @property
    def paginator(self):
        paginator = super().paginator
        if paginator is not None and self.page_size_max is not None:
            paginator.max_page_size = self.page_size_max
        return paginator

    def list(self, request: Request) -> Response:
        rows = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
