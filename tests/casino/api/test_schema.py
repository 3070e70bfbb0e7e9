"""The OpenAPI schema documents every players, compliance and rules endpoint."""

import pytest
from drf_spectacular.generators import SchemaGenerator

# path: {method: (request component or None, success status, response component)}
ENDPOINTS = {
    "/api/v1/players": {"post": ("PlayerRegistrationRequest", "201", "Player")},
    "/api/v1/players/{player_id}": {"get": (None, "200", "Player")},
    "/api/v1/players/{player_id}/verification": {
        "post": ("IdentityVerificationRequest", "200", "Player")},
    "/api/v1/players/{player_id}/self-exclusion": {
        "post": ("SelfExclusionRequest", "200", "Player")},
    "/api/v1/players/{player_id}/limits": {
        "get": (None, "200", None), "post": ("LimitSettingRequest", "200", "PlayerLimit")},
    "/api/v1/checks/stake": {"post": ("StakeCheckRequest", "200", "Verdict")},
    "/api/v1/alerts": {"get": (None, "200", "PaginatedAlertList")},
    "/api/v1/alerts/{alert_id}": {"get": (None, "200", "Alert")},
    "/api/v1/corrections": {"get": (None, "200", "PaginatedCorrectionList"),
                            "post": ("CorrectionProposalRequest", "201", "Correction")},
    "/api/v1/corrections/{correction_id}": {"get": (None, "200", "Correction")},
    "/api/v1/corrections/{correction_id}/approve": {
        "post": ("CorrectionApprovalRequest", "200", "Correction")},
    "/api/v1/corrections/{correction_id}/reject": {
        "post": ("CorrectionRejectionRequest", "200", "Correction")},
    "/api/v1/rulebooks": {"get": (None, "200", None)},
    "/api/v1/rulebooks/{rulebook_id}/{version}": {
        "get": (None, "200", "RulebookVersionDetails")},
    "/api/v1/venues": {"get": (None, "200", None),
                       "post": ("VenueRegistrationRequest", "201", "Venue")},
    "/api/v1/venues/{code}": {"get": (None, "200", "Venue")},
}


@pytest.fixture(scope="module")
def schema() -> dict:
    """The schema as /api/schema/ serves it (generation reads no rows)."""
    return SchemaGenerator().get_schema(request=None, public=True)


def _ref(content: dict) -> str:
    return content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]


@pytest.mark.parametrize("path", ENDPOINTS)
def test_the_schema_documents_the_endpoint(schema, path):
    """Request and success response serializers are named for each method."""
    operations = schema["paths"][path]
    assert set(ENDPOINTS[path]) == {method for method in operations if method != "parameters"}
    for method, (request, status, response) in ENDPOINTS[path].items():
        operation = operations[method]
        if request is None:
            assert "requestBody" not in operation
        else:
            assert _ref(operation["requestBody"]["content"]) == request
        assert status in operation["responses"]
        if response is not None:
            assert _ref(operation["responses"][status]["content"]) == response


def test_the_schema_generates_without_warnings(db, tmp_path):
    """drf-spectacular describes every endpoint without guessing (no warnings)."""
    from django.core.management import call_command

    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--file", str(target))
    assert "/api/v1/cage/deposits" in target.read_text()
