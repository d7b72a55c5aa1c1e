"""Where in a USDA or XML text a mutation can act: numbers, USD properties, prim blocks, XML attributes.

Plain-text scanners (regular expressions and brace counting), so they also work on a file that an
earlier mutation left malformed.
"""

from __future__ import annotations

import re

__all__ = [
    "NUMBER",
    "USD_PROP",
    "USD_PRIM",
    "number_lines",
    "usd_props",
    "usd_blocks",
    "usd_api_lists",
    "xml_attrs",
    "xml_self_closing",
]

#: A decimal number standing alone (not part of a name such as ``body0`` or ``actuator_1`` or a hash).
NUMBER = re.compile(r"(?<![\w.#@/:+-])-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")

#: One USD property on one line: ``[custom] [uniform] <type> <name> = <value>``.
USD_PROP = re.compile(
    r"^(?P<indent>\s*)(?P<qual>(?:custom\s+)?(?:uniform\s+|varying\s+|config\s+)?)"
    r"(?P<type>[A-Za-z_]\w*(?:\[\])?)\s+(?P<name>[A-Za-z_][\w:]*)\s*=\s*(?P<value>.*?)\s*$"
)

#: The head of a prim: ``def <Type> "<name>"`` (also ``over`` and ``class``; the type is optional).
USD_PRIM = re.compile(r'^(?P<indent>\s*)(?P<spec>def|over|class)(?P<type>\s+[A-Za-z_]\w*)?\s+"(?P<name>[^"]*)"')

_NOT_TYPES = {"prepend", "append", "delete", "add", "reorder", "def", "over", "class", "dictionary"}
_XML_ATTR = re.compile(r'(?<=\s)(?P<name>[A-Za-z_][\w:.-]*)\s*=\s*"(?P<value>[^"]*)"')
_XML_SKIP = re.compile(r"<!--.*?-->|<\?.*?\?>", re.S)
_SELF_CLOSING = re.compile(r"<(?P<tag>[A-Za-z_][\w.-]*)(?=[\s/])[^<>]*/>")


def _balanced(value: str) -> bool:
    return (
        value.count("(") == value.count(")")
        and value.count("[") == value.count("]")
        and value.count('"') % 2 == 0
        and "{" not in value
        and "}" not in value
        and value != ""
    )


def number_lines(text: str, kind: str) -> list[int]:
    """Indices of the lines holding a number (the ``#usda 1.0`` magic and XML declarations left out)."""
    out = []
    for i, line in enumerate(text.split("\n")):
        if (kind == "usd" and i == 0) or line.lstrip().startswith("<?"):
            continue
        if NUMBER.search(line):
            out.append(i)
    return out


def usd_props(lines: list[str]) -> list[tuple[int, re.Match]]:
    """(line index, match) of every single-line USD property whose value is complete on its line."""
    out = []
    for i, line in enumerate(lines):
        m = USD_PROP.match(line)
        if m and m["type"] not in _NOT_TYPES and _balanced(m["value"]):
            out.append((i, m))
    return out


def usd_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line indices of every prim block, from its ``def`` line to its closing brace."""
    out = []
    for i, line in enumerate(lines):
        if not USD_PRIM.match(line):
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            opened = opened or "{" in lines[j]
            if opened and depth <= 0:
                out.append((i, j))
                break
    return out


def usd_api_lists(lines: list[str]) -> list[tuple[int, list[tuple[int, int]]]]:
    """(line index, (start, end) of each quoted entry) of every ``apiSchemas = [...]`` on one line."""
    out = []
    for i, line in enumerate(lines):
        m = re.search(r"apiSchemas\s*=\s*\[([^\]]*)\]", line)
        if m:
            spans = [(m.start(1) + e.start(), m.start(1) + e.end()) for e in re.finditer(r'"[^"]*"', m[1])]
            if spans:
                out.append((i, spans))
    return out


def _skipped(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _XML_SKIP.finditer(text)]


def xml_attrs(text: str) -> list[re.Match]:
    """Every ``name="value"`` attribute outside comments and the XML declaration."""
    skip = _skipped(text)
    return [m for m in _XML_ATTR.finditer(text) if not any(a <= m.start() < b for a, b in skip)]


def xml_self_closing(text: str) -> list[re.Match]:
    """Every self-closing element ``<tag .../>`` outside comments."""
    skip = _skipped(text)
    return [m for m in _SELF_CLOSING.finditer(text) if not any(a <= m.start() < b for a, b in skip)]
