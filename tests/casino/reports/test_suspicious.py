"""A suspicious-transaction report assembled from a case (issue 17 item 4):
goAML-style XML with the case, the officer, each money event the case
concerns (amount in major units, cash as K) and the person."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from django.urls import reverse

from casino.compliance.cases import add_case_note, open_case
from casino.compliance.models import Alert, AlertKind
from casino.roles import Role
from tests.casino.officers.conftest import signed_in, staff, traffic  # noqa: F401


def test_the_str_of_a_case_from_an_aml_alert(traffic):  # noqa: F811
    staff("olli", Role.COMPLIANCE_OFFICER)
    alert = Alert.objects.get(kind=AlertKind.AML_THRESHOLD)
    case = open_case(actor="olli", alert_id=alert.id, title="Cash over EUR 2,000")
    add_case_note(case_id=case.id, text="Source of funds not shown.", actor="olli")
    response = signed_in("olli").get(reverse("admin:officers_case_str", args=[case.id]))
    assert response.status_code == 200
    report = ElementTree.fromstring(response.content)
    assert (report.findtext("report_code"), report.findtext("entity_reference"),
            report.findtext("currency_code_local")) == ("STR", case.id, "EUR")
    assert "Source of funds not shown." in report.findtext("reason")
    (transaction,) = report.findall("transaction")
    assert (transaction.findtext("amount_local"), transaction.findtext("transmode_code"),
            transaction.findtext("transaction_location")) == ("2500.00", "K",
                                                              "casino-helsinki")
    person = transaction.find("t_from_my_client/from_person")
    assert (person.findtext("first_name"), person.findtext("last_name")) == ("Test", "Player")
    assert [i.text for i in report.findall("report_indicators/indicator")] == ["aml_threshold"]


def test_only_a_compliance_officer_downloads_it(traffic):  # noqa: F811
    staff("olli", Role.COMPLIANCE_OFFICER)
    staff("anna", Role.ACCOUNTANT)
    alert = Alert.objects.get(kind=AlertKind.AML_THRESHOLD)
    case = open_case(actor="olli", alert_id=alert.id)
    url = reverse("admin:officers_case_str", args=[case.id])
    assert signed_in("anna").get(url).status_code == 403
