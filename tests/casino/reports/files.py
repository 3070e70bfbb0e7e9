"""Reading exported files back: CSV text and XLSX (zipfile + XML, no openpyxl)."""

from __future__ import annotations

import csv
import io
import zipfile
from decimal import Decimal
from xml.etree import ElementTree

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"}
REL_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def read_csv(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def read_xlsx(data: bytes) -> dict[str, list[list[str]]]:
    """Return each sheet's rows as text, by sheet name, in workbook order."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        shared: list[str] = []
        if "xl/sharedStrings.xml" in archive.namelist():
            root = ElementTree.fromstring(archive.read("xl/sharedStrings.xml"))
            shared = ["".join(t.text or "" for t in si.iter(f"{{{NS['m']}}}t"))
                      for si in root.findall("m:si", NS)]
        rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
        targets = {rel.get("Id"): rel.get("Target") for rel in rels.iter(f"{REL_NS}Relationship")}
        workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        sheets = {}
        for sheet in workbook.find("m:sheets", NS):
            target = targets[sheet.get(f"{{{NS['r']}}}id")]
            root = ElementTree.fromstring(archive.read(f"xl/{target}"))
            rows = []
            for row in root.iter(f"{{{NS['m']}}}row"):
                values = []
                for cell in row.findall("m:c", NS):
                    kind = cell.get("t")
                    if kind == "s":
                        values.append(shared[int(cell.find("m:v", NS).text)])
                    elif kind == "inlineStr":
                        values.append("".join(t.text or "" for t in cell.iter(
                            f"{{{NS['m']}}}t")))
                    else:
                        value = cell.find("m:v", NS)
                        values.append(value.text if value is not None else "")
                rows.append(values)
            sheets[sheet.get("name")] = rows
        return sheets


def normalise(rows: list[list[str]], amount_columns: range, int_columns=()) -> list[tuple]:
    """Rows as comparable values: amounts as Decimal, integer columns as int."""
    out = []
    for row in rows:
        values = []
        for index, value in enumerate(row):
            if index in amount_columns:
                values.append(Decimal(value).quantize(Decimal("0.01")))
            elif index in int_columns:
                values.append(int(value))
            else:
                values.append(value)
        out.append(tuple(values))
    return out
