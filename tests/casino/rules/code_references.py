"""Which rulebook keys the code reads: a scan of the Python source (pure, no Django).

A key counts as read when the source of `casino/` or `ledger/` holds it as a
string, or holds an f-string or a `+` concatenation that builds it
(`f"rake.{game}.{stake}.cap"`, `FIGURE_PREFIX + "base_guarantee"`). Names bound
to a string at module level are resolved first, so a prefix constant counts
with its text. Docstrings and comments are not code and are skipped.

A template must keep at least `LETTERS_MIN` letters of its own, so that a
bare `f"{a}.{b}"` matches nothing. A hole matches one dotted segment, except
a leading hole, which may stand for a whole prefix (`prefix + "block"` with
`prefix = "rake.alt."`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCE_DIRS = ("casino", "ledger")
LETTERS_MIN = 3
SEGMENT = "[a-z0-9_]+"
PREFIX = "[a-z0-9_.]+"
HOLE = None  # a part of a template the scan cannot know


@dataclass(frozen=True)
class Template:
    parts: tuple[str | None, ...]
    where: str

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compile(self.parts)

    @property
    def letters(self) -> int:
        return sum(ch.isalpha() for part in self.parts if part for ch in part)


@dataclass(frozen=True)
class Source:
    literals: dict[str, str]           # literal text -> first file:line
    templates: tuple[Template, ...]
    found: dict[str, str | None] = field(default_factory=dict)

    def reader_of(self, key: str) -> str | None:
        """Where the code reads `key`, or None."""
        if key not in self.found:
            self.found[key] = self.literals.get(key) or next(
                (t.where for t in self.templates if t.pattern.fullmatch(key)), None)
        return self.found[key]


@cache
def _compile(parts: tuple[str | None, ...]) -> re.Pattern[str]:
    out = []
    for index, part in enumerate(parts):
        if part is HOLE:
            out.append(PREFIX if index == 0 else SEGMENT)
        else:
            out.append(re.escape(part))
    return re.compile("".join(out))


def python_files() -> list[Path]:
    files = []
    for folder in SOURCE_DIRS:
        files += [p for p in sorted((ROOT / folder).rglob("*.py"))
                  if "migrations" not in p.parts and "__pycache__" not in p.parts]
    return files


def _module_strings(tree: ast.Module) -> dict[str, str]:
    """Names bound once, at module level, to a plain string."""
    found: dict[str, list[str]] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            for target in targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(value.value)
    return {name: values[0] for name, values in found.items() if len(values) == 1}


def _parts(node: ast.expr, names: dict[str, str]) -> list[str | None]:
    """The pieces of a string expression: known text or a HOLE."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in names:
        return [names[node.id]]
    if isinstance(node, ast.JoinedStr):
        pieces: list[str | None] = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                pieces += _parts(value.value, names) if value.format_spec is None else [HOLE]
            else:
                pieces += _parts(value, names)
        return pieces
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _parts(node.left, names) + _parts(node.right, names)
    return [HOLE]


def _merge(parts: list[str | None]) -> tuple[str | None, ...]:
    merged: list[str | None] = []
    for part in parts:
        if part is not HOLE and merged and merged[-1] is not HOLE:
            merged[-1] += part
        elif part is HOLE and merged and merged[-1] is HOLE:
            continue
        else:
            merged.append(part)
    return tuple(merged)


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


@cache
def scan() -> Source:
    """Every string the code holds and every template it builds keys from."""
    return scan_files(tuple(python_files()))


def scan_files(paths: tuple[Path, ...]) -> Source:
    literals: dict[str, str] = {}
    templates: list[Template] = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names = _module_strings(tree)
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            where = f"{name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.setdefault(node.value, where)
            elif isinstance(node, ast.JoinedStr) or (
                    isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
                parts = _merge(_parts(node, names))
                if HOLE not in parts:
                    if parts and parts[0] is not None:
                        literals.setdefault(parts[0], where)
                    continue
                template = Template(parts, where)
                if template.letters >= LETTERS_MIN:
                    templates.append(template)
    return Source(literals, tuple(templates))
