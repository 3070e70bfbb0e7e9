"""One error table (issue 13 point 3): every code `<app>.<reason>`, each with
exactly one HTTP status in casino.error_table, and no raise site saying a status.

The codes walked: every StrEnum of casino/*/errors.py, casino/poker/engine/errors.py
and ledger/errors.py, the runner's, the compliance rules' (casino.compliance.checks),
the tournament engine's (`tournaments.<engine code>`) and the framework's
(casino.exception_handler). In the ledger package every module is walked,
not only its errors.py: every code enum (a StrEnum of `ledger.` values)
wherever it is declared, and the code of every LedgerError subclass, so a
feed, transfer or placement error without a row is found.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from enum import StrEnum
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from casino import exception_handler
from casino.compliance import checks
from casino.error_table import STATUS, status_for
from casino.errors import CodedError
from casino.runner import RunnerErrorCode
from casino.tournaments.errors import TournamentErrorCode
from ledger.errors import LedgerError

ROOT = Path(__file__).resolve().parents[2]
DOTTED = re.compile(r"^[a-z]+\.[a-z][a-z0-9_]*$")
# Not a code: the prefix of the tournament engine's codes.
PREFIXES = {TournamentErrorCode.RULE.value}
ERROR_MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for path in [*ROOT.glob("casino/*/errors.py"), ROOT / "casino/poker/engine/errors.py",
                 ROOT / "ledger/errors.py"])


# Ledger subpackages that declare no codes: the schema's history and the
# operators' commands (which answer exit codes, not HTTP).
LEDGER_SKIPPED = ("ledger.migrations", "ledger.management")


def _ledger_modules() -> list[str]:
    """Every module of the ledger package (but LEDGER_SKIPPED), imported."""
    import ledger

    names = sorted(
        info.name for info in pkgutil.walk_packages(ledger.__path__, "ledger.")
        if not info.name.startswith(LEDGER_SKIPPED))
    for name in names:
        importlib.import_module(name)
    return names


def _ledger_enums() -> list[type[StrEnum]]:
    """Every StrEnum declared in the ledger package whose values are `ledger.` codes."""
    enums = []
    for name in _ledger_modules():
        enums += [value for value in vars(importlib.import_module(name)).values()
                  if inspect.isclass(value) and issubclass(value, StrEnum)
                  and value.__module__ == name
                  and any(str(member.value).startswith("ledger.") for member in value)]
    return enums


def _ledger_error_classes() -> list[type[LedgerError]]:
    """LedgerError and every subclass of it, once the whole package is imported."""
    _ledger_modules()
    found, todo = [], [LedgerError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return found


def _enums() -> list[type[StrEnum]]:
    enums = [RunnerErrorCode]
    for name in ERROR_MODULES:
        module = importlib.import_module(name)
        enums += [value for value in vars(module).values()
                  if inspect.isclass(value) and issubclass(value, StrEnum)
                  and value.__module__ == name]
    return enums + [enum for enum in _ledger_enums() if enum not in enums]


def _declared() -> dict[str, str]:
    """Every declared code and where it is declared."""
    codes = {member.value: f"{enum.__module__}.{enum.__name__}.{member.name}"
             for enum in _enums() for member in enum if member.value not in PREFIXES}
    source = (ROOT / "casino/compliance/checks.py").read_text()
    codes |= {code: "casino.compliance.checks" for code in
              re.findall(r'"(compliance\.[a-z_]+)"', source)}
    codes |= {code: "casino.compliance.checks.CHECKS" for code, _ in checks.CHECKS}
    for path in ROOT.glob("casino/tournaments/**/*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "EngineError"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                codes[f"tournaments.{node.args[0].value}"] = str(path.relative_to(ROOT))
    codes |= {str(cls.code): f"{cls.__module__}.{cls.__name__}"
              for cls in _ledger_error_classes() if "code" in vars(cls)}
    codes |= {code: "casino.exception_handler" for _, code in exception_handler.FRAMEWORK_CODES}
    codes[exception_handler.INVALID] = "casino.exception_handler"
    return codes


def test_the_walk_finds_every_app():
    apps = {code.split(".")[0] for code in _declared()}
    assert {"cage", "compliance", "games", "jackpots", "officers", "players", "poker",
            "reports", "rules", "tournaments", "ledger", "request", "auth"} <= apps


@pytest.mark.parametrize("code, where", sorted(_declared().items()))
def test_every_code_is_dotted_and_has_one_status(code, where):
    assert DOTTED.match(code), f"{code} ({where}) is not `<app>.<reason>`"
    assert code in STATUS, f"{code} ({where}) has no row in casino/error_table.py"
    assert status_for(code) in {400, 401, 403, 404, 405, 406, 409, 415, 422, 429}


def test_each_code_has_exactly_one_row():
    """A dict literal keeps the last of two equal keys silently: the source has each once."""
    tree = ast.parse((ROOT / "casino/error_table.py").read_text())
    keys = [key.value for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for key in node.keys if isinstance(key, ast.Constant)]
    assert len(keys) == len(set(keys)) == len(STATUS)
    assert all(DOTTED.match(code) for code in STATUS)


def test_every_ledger_code_is_walked():
    """The feed's codes are the ledger's (ledger.errors, ledger.feed re-exports
    them) and the walk finds them, with every LedgerError subclass's code."""
    from ledger import feed, errors

    import ledger

    assert feed.FeedErrorCode is errors.FeedErrorCode is ledger.FeedErrorCode
    assert feed.UnknownBook is ledger.UnknownBook and feed.InvalidCursor is ledger.InvalidCursor
    assert {errors.LedgerErrorCode, errors.FeedErrorCode} <= set(_enums())
    declared = _declared()
    assert {"ledger.invalid_cursor", "ledger.unknown_book", "ledger.stale_version"} <= set(
        declared)
    classes = _ledger_error_classes()
    assert {feed.InvalidCursor, feed.UnknownBook, errors.StaleVersion} <= set(classes)
    assert all(str(cls.code) in declared for cls in classes if "code" in vars(cls))


def test_a_ledger_error_class_without_a_row_is_found():
    """A new LedgerError, its code in no enum of ledger/errors.py, is a
    declared code (so the parametrized test holds it to a row)."""
    import gc

    from ledger import errors

    class Lost(errors.LedgerError):
        code = "ledger.lost_in_transfer"

    try:
        assert _declared()["ledger.lost_in_transfer"].endswith(".Lost")
        assert "ledger.lost_in_transfer" not in STATUS
    finally:
        del Lost
        gc.collect()        # out of LedgerError.__subclasses__() again
    assert "ledger.lost_in_transfer" not in _declared()


def test_enum_members_declare_each_code_once():
    values = [member.value for enum in _enums() for member in enum]
    assert len(values) == len(set(values)), sorted(v for v in values if values.count(v) > 1)


def test_an_unknown_code_is_a_programmer_error():
    with pytest.raises(KeyError):
        status_for("nobody.knows")
    with pytest.raises(KeyError):
        CodedError("nobody.knows", "a bug").status


def _calls_with_status() -> list[str]:
    """Every `status=` passed to an error's constructor (a name ending in Error,
    the engines' refusals), in casino/ and ledger/."""
    found = []
    for path in [*ROOT.glob("casino/**/*.py"), *ROOT.glob("ledger/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func).split(".")[-1]
            if not (name.endswith("Error") or name in {"IllegalAction", "EngineError",
                                                       "AttemptRejected", "Rejection"}):
                continue
            if any(keyword.arg == "status" for keyword in node.keywords):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_raise_site_says_a_status():
    assert _calls_with_status() == []


def test_no_error_class_carries_its_own_status():
    """The status is the table's: no LedgerError or CodedError subclass sets one."""
    for name in ERROR_MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, (LedgerError, CodedError)):
                assert "status" not in vars(value) or value is CodedError, value
    assert isinstance(inspect.getattr_static(CodedError, "status"), property)


def test_the_schema_lists_every_code():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    code = schema["components"]["schemas"]["Error"]["properties"]["code"]
    assert code["enum"] == sorted(STATUS)
