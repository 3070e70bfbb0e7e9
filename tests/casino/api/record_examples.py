"""A pytest plugin that records the API's examples from a run of its own tests.

    RECORD_API_EXAMPLES=casino/openapi_examples.json \\
        python -m pytest -p tests.casino.api.record_examples <tests>

(scripts/record_api_examples.sh names the tests.) Every request an
APIClient sends is kept with its answer; at the end of the session the
first successful exchange of each operation (for a list, the first with
rows) is written, keyed by the schema's operationId, and
casino.openapi_conventions attaches it to the operation. Lists in answers
are cut to their first two items, so the file stays readable, and secrets
are blanked. Without the
environment variable the plugin records nothing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

TARGET = os.environ.get("RECORD_API_EXAMPLES")
ITEMS_MAX = 2
SECRET = "<the secret, shown once>"
_exchanges: list[dict[str, Any]] = []


def _shortened(value: Any) -> Any:
    """Lists cut to ITEMS_MAX items; secrets (a webhook's signing secret) blanked."""
    if isinstance(value, list):
        return [_shortened(item) for item in value[:ITEMS_MAX]]
    if isinstance(value, dict):
        return {key: (SECRET if "secret" in key and isinstance(item, str) else _shortened(item))
                for key, item in value.items()}
    return value


def _recording(client_class, method: str):
    original = getattr(client_class, method)

    def send(self, path, data=None, *args, **kwargs):
        response = original(self, path, data, *args, **kwargs)
        match = getattr(response, "resolver_match", None)
        if match is None or not 200 <= response.status_code < 300:
            return response
        if "json" not in response.get("Content-Type", ""):
            return response
        _exchanges.append({
            "method": method, "route": match.route, "status": response.status_code,
            "request": data if method != "get" and isinstance(data, dict) else None,
            "response": response.json()})
        return response

    return send


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    if not TARGET:
        return
    from rest_framework.test import APIClient

    for method in ("get", "post", "put", "patch", "delete"):
        setattr(APIClient, method, _recording(APIClient, method))


def _operations() -> dict[tuple[str, str], str]:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {(path, method): operation["operationId"]
            for path, operations in schema["paths"].items()
            for method, operation in operations.items()}


def _template(route: str) -> str:
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if not TARGET or not _exchanges:
        return
    operations = _operations()
    chosen: dict[str, dict[str, Any]] = {}
    for exchange in _exchanges:
        operation_id = operations.get((_template(exchange["route"]), exchange["method"]))
        if operation_id is None:
            continue
        answer = exchange["response"]
        empty_list = isinstance(answer, dict) and answer.get("results") == []
        if operation_id in chosen and (empty_list or not chosen[operation_id]["empty"]):
            continue
        chosen[operation_id] = {"empty": empty_list, "status": str(exchange["status"]),
                                "request": _shortened(exchange["request"]),
                                "response": _shortened(answer)}
    path = Path(TARGET)
    old = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for operation_id, example in chosen.items():
        example.pop("empty")
        old[operation_id] = example
    path.write_text(json.dumps(dict(sorted(old.items())), indent=1, ensure_ascii=False,
                               sort_keys=False) + "\n", encoding="utf-8")
