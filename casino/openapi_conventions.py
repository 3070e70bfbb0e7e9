"""OpenAPI post-processing: the API's conventions, stated once (issue 18 item 1).

Run by casino.openapi.add_common_errors (the registered hook), on every
operation of the generated schema:

- **Tags per app.** Each operation is tagged with the app whose view serves
  it (`cage`, `poker`, `ledger`, ...), and the schema lists the tags with
  the first line of the app's API docstring, so Swagger UI and generated
  clients group operations by app.
- **Idempotency-Key on every write.** Every POST/PUT/PATCH/DELETE documents
  the required header (casino.api.idempotency_key refuses a write without
  it), except views that set `takes_idempotency_key = False` (a query that
  needs a body, e.g. the stake dry run, which writes nothing).
- **Location on 201.** Every 201 answer documents the `Location` header
  (set by casino.locations on every 201 the API gives).
- **Examples.** Requests and answers recorded from a run of the API's own
  tests (casino/openapi_examples.json, written by
  scripts/record_api_examples.sh) are attached to their operations, unless
  a view gives its own examples.
"""

from __future__ import annotations

import copy
import importlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

WRITES = {"post", "put", "patch", "delete"}
EXAMPLES_FILE = Path(__file__).with_name("openapi_examples.json")
IDEMPOTENCY_KEY = {
    "in": "header", "name": "Idempotency-Key", "required": True,
    "schema": {"type": "string", "pattern": r"^[\x21-\x7e]{1,200}$"},
    "description": "1-200 printable ASCII characters; a retry with the same key and body"
                   " returns the first answer and writes nothing.",
    "example": "cage-7-2026-06-16-0001",
}
LOCATION = {
    "description": "The URL of what the write created or changed: its resource where the API"
                   " has one (e.g. /api/v1/players/{id}), else the event feed at the write's"
                   " first event (casino.locations).",
    "schema": {"type": "string", "format": "uri"},
}


def app_of(view_class: type) -> str:
    """The app a view belongs to: `casino.cage.api.views` -> `cage`, `ledger.api` -> `ledger`."""
    parts = view_class.__module__.split(".")
    return parts[1] if parts[0] == "casino" and len(parts) > 2 else parts[0]


def _summary_of(module_name: str) -> str:
    try:
        doc = importlib.import_module(module_name).__doc__ or ""
    except ImportError:
        return ""
    return " ".join(doc.strip().split("\n\n")[0].split())


@lru_cache(maxsize=1)
def recorded_examples() -> dict[str, dict[str, Any]]:
    """operationId -> {"request": body or None, "status": "201", "response": body}."""
    if not EXAMPLES_FILE.exists():
        return {}
    return json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))


def _views(generator) -> dict[tuple[str, str], type]:
    views = {}
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or []:
        view_class = getattr(callback, "cls", None)
        if view_class is not None:
            views[(path, method.lower())] = view_class
    return views


def apply_conventions(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    views = _views(generator)
    examples = recorded_examples()
    tags: dict[str, str] = {}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            view_class = views.get((path, method))
            if view_class is not None:
                app = app_of(view_class)
                operation["tags"] = [app]
                tags.setdefault(app, _summary_of(view_class.__module__))
            takes_key = getattr(view_class, "takes_idempotency_key", True)
            if method in WRITES and takes_key:
                parameters = operation.setdefault("parameters", [])
                if not any(p.get("in") == "header" and p.get("name") == "Idempotency-Key"
                           for p in parameters):
                    parameters.append(copy.deepcopy(IDEMPOTENCY_KEY))
            created = operation.get("responses", {}).get("201")
            if created is not None:
                created.setdefault("headers", {}).setdefault("Location", copy.deepcopy(LOCATION))
            _attach_example(operation, examples.get(operation.get("operationId", "")))
    result["tags"] = [{"name": name, "description": description}
                      for name, description in sorted(tags.items())]
    return result


def _attach_example(operation: dict[str, Any], recorded: dict[str, Any] | None) -> None:
    if not recorded:
        return
    name = recorded.get("name", "recorded")
    summary = recorded.get("summary", "Recorded from a run of the API's tests (lists cut"
                                      " to two items)")
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None and recorded.get("request") is not None:
        body.setdefault("examples", {name: {"summary": summary, "value": recorded["request"]}})
    answer = (operation.get("responses", {}).get(str(recorded.get("status", "")), {})
              .get("content", {}).get("application/json"))
    if answer is not None and "response" in recorded:
        answer.setdefault("examples", {name: {"summary": summary, "value": recorded["response"]}})
