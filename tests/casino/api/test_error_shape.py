"""Every 4xx of the API has one shape: {code, message, details} (the Error schema).

casino.exception_handler turns the framework's refusals into it as well as
the domain's coded errors; casino.views.not_found answers unmatched /api/
URLs the same way; casino.openapi documents the statuses every operation
can give.
"""

from __future__ import annotations

from casino.roles import Role
from tests.casino.api.conftest import client_for, post, post_raw


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "message", "details"} and body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return body


def test_validation_errors_name_the_first_field_and_list_all(venues):
    client = client_for(Role.CAGE)
    body = _error(post(client, "/api/v1/cage/deposits", {"venue": "casino-helsinki"}),
                  400, "request.invalid")
    assert set(body["details"]) == {"player_id", "amount", "currency", "method"}
    assert body["message"] == "player_id: This field is required."


def test_framework_refusals_keep_their_status_and_code(venues):
    anonymous = client_for(None)
    anonymous.credentials()
    _error(anonymous.get("/api/v1/events"), 401, "auth.not_authenticated")
    _error(client_for(Role.CAGE).get("/api/v1/alerts"), 403, "auth.permission_denied")
    auditor = client_for(Role.AUDITOR)
    _error(auditor.get("/api/v1/accounts/no-such-account"), 404, "request.not_found")
    _error(post_raw(client_for(Role.CAGE), "/api/v1/cage/deposits", "{"), 400, "request.parse_error")
    _error(auditor.delete("/api/v1/events"), 405, "request.method_not_allowed")


def test_an_unmatched_api_url_answers_json_and_other_urls_html(venues):
    auditor = client_for(Role.AUDITOR)
    _error(auditor.get("/api/v1/rulebooks/ray-casino/not-a-number"), 404, "request.not_found")
    page = auditor.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_the_schema_documents_the_common_refusals(venues):
    schema = client_for(Role.AUDITOR).get("/api/schema/?format=json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            expected = {"400", "401", "403"} | ({"404"} if "{" in path else set())
            if method == "post":
                expected |= {"409", "422"}
            assert expected <= set(operation["responses"]), (method, path)
            for status in expected:
                content = operation["responses"][status]["content"]["application/json"]
                assert content["schema"] == {"$ref": "#/components/schemas/Error"}


def test_a_number_out_of_the_databases_range_is_a_400(venues):
    """A query value PostgreSQL cannot hold is refused, not a 500."""
    officer = client_for(Role.COMPLIANCE_OFFICER)
    _error(officer.get("/api/v1/compliance/chain-verifications", {"offset": 2**64}),
           400, "request.invalid")
    _error(client_for(Role.AUDITOR).get("/api/v1/events", {"after": 2**64}),
           400, "request.invalid")


def test_a_body_in_another_media_type_is_a_415(venues):
    response = client_for(Role.CAGE).post("/api/v1/cage/deposits", "amount=1",
                                          content_type="text/plain",
                                          headers={"Idempotency-Key": "k-415"})
    _error(response, 415, "request.unsupported_media_type")
