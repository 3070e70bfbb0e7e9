"""The floor: a minimal token-authenticated DRF write, served on its own.

One endpoint, `POST /floor/writes`: DRF's TokenAuthentication, a serializer
that validates a small body (player id, amount, currency), and one row
inserted with a cursor in a transaction, answered 201 with the row's id.
It is the least a Django/DRF/PostgreSQL write costs here, the floor that
`api_floor.py` measures and `api_load.py` compares the product against.
It is its own WSGI app and URL conf (`_floor_settings`), so nothing of it
is reachable through the product's URLs.

The table is created by `api_floor.py` in its throwaway database
(`api_floor.TABLE_SQL`); the Idempotency-Key is stored in a unique column, as a
product write records its key, but never looked up.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "_floor_settings")

AMOUNT_MINOR_MAX = 1_000_000_00

application = get_wsgi_application()

# URL conf and view below: Django is set up by now, so DRF imports safely.
from decimal import Decimal  # noqa: E402

from django.db import connection, transaction  # noqa: E402
from django.urls import path  # noqa: E402
from rest_framework import serializers, status  # noqa: E402
from rest_framework.response import Response  # noqa: E402
from rest_framework.views import APIView  # noqa: E402


class FloorWriteSerializer(serializers.Serializer):
    player_id = serializers.IntegerField(min_value=1)
    amount = serializers.DecimalField(max_digits=12, decimal_places=2,
                                      min_value=Decimal("0.01"))
    currency = serializers.RegexField(r"^[A-Z]{3}$")


class FloorWriteView(APIView):
    def post(self, request):
        """Validate the body and insert one row in a transaction; answer 201."""
        body = FloorWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        amount_minor = int(body.validated_data["amount"] * 100)
        if amount_minor > AMOUNT_MINOR_MAX:
            return Response({"code": "amount_max"}, status=status.HTTP_400_BAD_REQUEST)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO floor_write (player_id, amount_minor, currency,"
                " idempotency_key) VALUES (%s, %s, %s, %s) RETURNING id",
                [body.validated_data["player_id"], amount_minor,
                 body.validated_data["currency"], request.headers.get("Idempotency-Key")])
            (row_id,) = cursor.fetchone()
        return Response({"id": row_id}, status=status.HTTP_201_CREATED)


urlpatterns = [path("floor/writes", FloorWriteView.as_view())]
