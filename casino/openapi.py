"""OpenAPI post-processing: the answers every operation can give.

Each view documents the answers particular to it; every operation can also
be refused by the framework before the view runs, always with the `Error`
body (casino.exception_handler). This hook adds those to each operation
that does not document them itself, so a client (and the fuzzing test,
tests/casino/api/test_openapi_fuzz.py) knows every status it may receive:

    400  a malformed query, header or body (every operation)
    401  no or a bad token;  403  a role that may not do this
    404  an unknown id in the path (operations with path parameters)
    409  a state conflict or a key reused for another request (writes)
    413  a body over the size limit (bodies; issue 16)
    415  a body in a media type the operation does not take (bodies)
    422  refused by a rule, and recorded (writes)
    429  more requests than the client's rate (every operation; issue 16)

It also lists every error code: the `Error` component's `code` is an enum
of the one error table's codes (casino.error_table), so a client knows
every code it may receive; each code has one status there.
"""

from __future__ import annotations

from typing import Any

from casino.error_table import STATUS
from casino.openapi_conventions import apply_conventions

ERROR = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
DESCRIPTIONS = {
    "400": "Malformed request: the first problem in `message`, all of them in `details`.",
    "401": "No token, or a token that is not valid.",
    "403": "The user's role may not do this.",
    "404": "Nothing with this id.",
    "409": "A state conflict, or the Idempotency-Key was used for another request.",
    "413": "The body is larger than the API accepts (`request.body_too_large`).",
    "415": "The body's media type is not one the operation takes (JSON).",
    "422": "Refused by a rule (recorded), with the rule's code and citation.",
    "429": "More requests than this client's rate (`request.throttled`); send it again later.",
}
WRITES = {"post", "put", "patch", "delete"}


def add_common_errors(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete", "head", "options"}:
                continue
            statuses = ["400", "401", "403", "429"]
            if "{" in path:
                statuses.append("404")
            if method in WRITES:
                statuses += ["409", "422"]
            if "requestBody" in operation:
                statuses += ["413", "415"]
            responses = operation.setdefault("responses", {})
            for status in statuses:
                responses.setdefault(status, {"content": ERROR,
                                              "description": DESCRIPTIONS[status]})
            for status, response in responses.items():
                if status.startswith("4"):  # every refusal has the one Error body
                    response.setdefault("content", ERROR)
    error = result.get("components", {}).get("schemas", {}).get("Error")
    if error is not None:
        error["properties"]["code"]["enum"] = sorted(STATUS)
    # Tags per app, Idempotency-Key on writes, Location on 201, examples (issue 18).
    return apply_conventions(result, generator, request, public)
