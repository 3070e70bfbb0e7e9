"""A suspicious-transaction report assembled from a case, as goAML-style XML.

The Finnish FIU (Keskusrikospoliisi, rahanpesun selvittelykeskus) takes
reports through UNODC's goAML. Its XML schema is the FIU's to publish and is
not shipped here, so this module writes a documented equivalent that follows
goAML's report layout element by element, for a compliance officer to load
into the FIU's portal or map with its schema:

    <report>
      <rentity_id/>              the reporting entity's FIU id (settings
                                 GOAML_RENTITY_ID; "0" until the operator is
                                 registered)
      <submission_code>E</submission_code>   electronic
      <report_code>STR</report_code>
      <entity_reference/>        the case id
      <submission_date/>         ISO date-time, UTC
      <currency_code_local>EUR</currency_code_local>
      <reporting_person><first_name/><last_name/></reporting_person>
                                 the officer who assembles the report
      <location><address/></location>       the case's venue
      <reason/>                  the case title, then its notes in order
      <action/>                  the case's state and what was done
      <transaction>*             one per money event the case concerns:
        <transactionnumber/>     the ledger position
        <internal_ref_number/>   the event type
        <transaction_location/>  the venue
        <date_transaction/>      business time, ISO, with offset
        <teller/>                who recorded it
        <transmode_code/>        K cash, B bank, A gaming account, C chips
        <amount_local/>          major units, two decimals
        <t_from_my_client|t_to_my_client>  the player: <from_person> or
                                 <to_person> with <first_name>,
                                 <last_name>, <birthdate>, <nationality1>
      </transaction>
      <report_indicators><indicator/>*</report_indicators>  alert kinds
    </report>

Decision (transmode codes): goAML's lookup values are the FIU's; the four
letters above are this project's and are listed in the report's own
<comments> element, so the receiver can map them.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ElementTree
from typing import Any

from django.conf import settings

from .reading import events_at

TRANSMODES = {"cash": "K", "bank": "B", "account": "A", "chips": "C"}
TRANSACTIONS_MAX = 500


def _text(parent, tag: str, value: Any) -> ElementTree.Element:
    element = ElementTree.SubElement(parent, tag)
    element.text = "" if value is None else str(value)
    return element


def _amount(minor: int) -> str:
    sign = "-" if minor < 0 else ""
    whole, cents = divmod(abs(int(minor)), 100)
    return f"{sign}{whole}.{cents:02d}"


def _person(parent, tag: str, player) -> None:
    person = ElementTree.SubElement(parent, tag)
    _text(person, "first_name", player.given_name)
    _text(person, "last_name", player.family_name)
    _text(person, "birthdate", player.date_of_birth.isoformat())
    _text(person, "nationality1", player.nationality)


def str_xml(case_id: str, *, officer_first: str, officer_last: str,
            now: dt.datetime | None = None) -> bytes:
    """Return the STR of a case as XML bytes (UTF-8, with declaration).

    Raises LookupError when there is no such case.
    """
    from casino.compliance.models import Alert, Case
    from casino.players.models import Player

    case = Case.objects.filter(id=case_id).first()
    if case is None:
        raise LookupError(f"no case {case_id!r}")
    now = now or dt.datetime.now(dt.timezone.utc)
    report = ElementTree.Element("report")
    _text(report, "rentity_id", getattr(settings, "GOAML_RENTITY_ID", "0"))
    _text(report, "submission_code", "E")
    _text(report, "report_code", "STR")
    _text(report, "entity_reference", case.id)
    _text(report, "submission_date", now.astimezone(dt.timezone.utc).isoformat())
    _text(report, "currency_code_local", "EUR")
    reporter = ElementTree.SubElement(report, "reporting_person")
    _text(reporter, "first_name", officer_first)
    _text(reporter, "last_name", officer_last)
    location = ElementTree.SubElement(report, "location")
    _text(location, "address", case.venue or "")
    notes = [f"{note.written_at:%Y-%m-%d %H:%M} {note.author}: {note.text}"
             for note in case.notes.order_by("position")]
    _text(report, "reason", "\n".join([case.title, *notes]))
    _text(report, "action", f"case {case.state}; opened by {case.opened_by}"
                            + (f"; closed: {case.closed_reason}" if case.closed_reason else ""))
    positions = list(case.links.order_by("position").values_list("position", flat=True))
    alert = Alert.objects.filter(id=case.alert_id).first() if case.alert_id else None
    if alert is not None:
        positions.append(alert.raised_position)
    events = events_at(positions)      # each book's where it is placed (issue 19)
    players: dict[str, Any] = {}
    for event in events[:TRANSACTIONS_MAX]:
        p = event.payload
        amount = p.get("amount_minor")
        if not isinstance(amount, int) and isinstance(p.get("details"), dict):
            amount = p["details"].get("amount_minor")
        if not isinstance(amount, int):
            continue
        transaction = ElementTree.SubElement(report, "transaction")
        _text(transaction, "transactionnumber", event.position)
        _text(transaction, "internal_ref_number", event.type)
        _text(transaction, "transaction_location", p.get("venue", case.venue))
        _text(transaction, "date_transaction", event.occurred_at.isoformat())
        _text(transaction, "teller", (event.metadata or {}).get("actor", ""))
        means = p.get("method") or p.get("paid_with") or p.get("paid_to") or "cash"
        _text(transaction, "transmode_code", TRANSMODES.get(means, "K"))
        _text(transaction, "amount_local", _amount(amount))
        player_id = p.get("player_id") or case.player_id
        if player_id and player_id not in players:
            players[player_id] = Player.objects.filter(id=player_id).first()
        player = players.get(player_id)
        if player is not None:
            outgoing = event.type.endswith(("withdrawn", "redeemed"))
            side = ElementTree.SubElement(
                transaction, "t_to_my_client" if outgoing else "t_from_my_client")
            _person(side, "to_person" if outgoing else "from_person", player)
    indicators = ElementTree.SubElement(report, "report_indicators")
    kinds = {alert.kind} if alert is not None else set()
    kinds |= set(Alert.objects.filter(raised_position__in=positions).values_list("kind",
                                                                              flat=True))
    for kind in sorted(kinds):
        _text(indicators, "indicator", kind)
    _text(report, "comments", "transmode_code: K cash, B bank transfer, A gaming account,"
                              " C chips (casino-ledger's codes; map to the FIU's lookup)")
    ElementTree.indent(report)
    return ElementTree.tostring(report, encoding="utf-8", xml_declaration=True)
