"""Structure mutations: deleted, duplicated or moved elements / prims / properties, corrupted side files.

Each operator takes ``(rng, doc)``, edits the document in place and returns a short description, or None
where there is nothing to act on. XML is edited through ElementTree (comments are dropped on the way);
USDA through its line structure.
"""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET

from ops_values import bad_number
from text_sites import NUMBER, USD_PRIM, usd_api_lists, usd_blocks, usd_props, xml_attrs

__all__ = ["delete_element", "duplicate_element", "corrupt_side_file"]


def _label(el) -> str:
    name = el.get("name") or el.get("link") or el.get("file") or el.get("filename")
    return f"<{el.tag}{f' {name}' if name else ''}>"


def _xml_tree(doc):
    try:
        root = ET.fromstring(doc.text)
    except ET.ParseError:
        return None, []
    parents = [(p, c) for p in root.iter() for c in list(p)]
    return root, parents


def _xml_write(doc, root):
    doc.text = ET.tostring(root, encoding="unicode") + "\n"


def _usd_prim_name(line: str) -> str:
    m = USD_PRIM.match(line)
    return m["name"] if m else "?"


def delete_element(rng, doc):
    """Delete (or, one time in five, move elsewhere) an XML element or attribute, or delete a USD prim
    block, a property line or an apiSchemas entry."""
    if doc.kind != "usd":
        root, pairs = _xml_tree(doc)
        if root is None or not pairs:
            return None
        if rng.random() < 0.25:
            attrs = xml_attrs(doc.text)
            if attrs:
                m = rng.choice(attrs)
                doc.text = doc.text[: m.start()] + doc.text[m.end() :]
                return f'deleted attribute {m["name"]}="{m["value"]}"'
        parent, child = rng.choice(pairs)
        parent.remove(child)
        if rng.random() < 0.2:
            hosts = [e for e in root.iter() if e is not child]
            host = rng.choice(hosts)
            host.insert(rng.randint(0, len(host)), child)
            _xml_write(doc, root)
            return f"moved {_label(child)} from {_label(parent)} into {_label(host)}"
        _xml_write(doc, root)
        return f"deleted {_label(child)} from {_label(parent)}"
    lines = doc.text.split("\n")
    blocks, props, apis = usd_blocks(lines), usd_props(lines), usd_api_lists(lines)
    pick = rng.choice([k for k, v in (("prim", blocks), ("prop", props), ("api", apis)) if v] or [None])
    if pick == "prim":
        a, b = rng.choice(blocks)
        name = _usd_prim_name(lines[a])
        del lines[a : b + 1]
        what = f"deleted prim {name} (lines {a + 1}-{b + 1})"
    elif pick == "prop":
        i, m = rng.choice(props)
        del lines[i]
        what = f"deleted property {m['name']} (line {i + 1})"
    elif pick == "api":
        i, spans = rng.choice(apis)
        s, e = rng.choice(spans)
        entry, line = lines[i][s:e], lines[i]
        tail = re.match(r"\s*,\s*", line[e:])
        if tail:
            e += tail.end()
        else:  # the last entry: take the comma before it
            head = re.search(r",\s*$", line[:s])
            s = head.start() if head else s
        lines[i] = line[:s] + line[e:]
        what = f"deleted apiSchemas entry {entry} (line {i + 1})"
    else:
        return None
    doc.text = "\n".join(lines)
    return what


def duplicate_element(rng, doc):
    """Duplicate an XML element (same names, or names suffixed ``_dup``), or a USD prim block (same or new
    name), property line or apiSchemas entry."""
    rename = rng.random() < 0.5
    if doc.kind != "usd":
        root, pairs = _xml_tree(doc)
        if root is None or not pairs:
            return None
        parent, child = rng.choice(pairs)
        twin = copy.deepcopy(child)
        if rename:
            for el in twin.iter():
                if "name" in el.attrib:
                    el.set("name", el.get("name") + "_dup")
        parent.insert(list(parent).index(child) + 1, twin)
        _xml_write(doc, root)
        return f"duplicated {_label(child)}{' (renamed _dup)' if rename else ''}"
    lines = doc.text.split("\n")
    blocks, props, apis = usd_blocks(lines), usd_props(lines), usd_api_lists(lines)
    pick = rng.choice([k for k, v in (("prim", blocks), ("prop", props), ("api", apis)) if v] or [None])
    if pick == "prim":
        a, b = rng.choice(blocks)
        twin = lines[a : b + 1]
        name = _usd_prim_name(twin[0])
        if rename:
            twin[0] = twin[0].replace(f'"{name}"', f'"{name}_dup"', 1)
        lines[b + 1 : b + 1] = twin
        what = f"duplicated prim {name}{' as ' + name + '_dup' if rename else ''} (lines {a + 1}-{b + 1})"
    elif pick == "prop":
        i, m = rng.choice(props)
        lines.insert(i + 1, lines[i])
        what = f"duplicated property {m['name']} (line {i + 1})"
    elif pick == "api":
        i, spans = rng.choice(apis)
        s, e = rng.choice(spans)
        entry = lines[i][s:e]
        lines[i] = lines[i][:e] + ", " + entry + lines[i][e:]
        what = f"duplicated apiSchemas entry {entry} (line {i + 1})"
    else:
        return None
    doc.text = "\n".join(lines)
    return what


_SIDE_BYTES = (b"", b"not a mesh\n", b"\xff\xfe\x00garbage", b"v 0 0 0\nf 1 1 1\n", b"<mujoco>")


def corrupt_side_file(rng, doc):
    """A side file (mesh, included MJCF, referenced USD layer) is emptied, truncated, replaced by garbage,
    or one of its numbers made NaN / inf / huge."""
    if not doc.extra:
        return None
    name = rng.choice(sorted(doc.extra))
    data = doc.extra[name]
    how = rng.random()
    if how < 0.4:
        text = data.decode("utf-8", "replace")
        matches = list(NUMBER.finditer(text))
        if matches:
            m = rng.choice(matches)
            new = bad_number(rng, m[0])
            doc.extra[name] = (text[: m.start()] + new + text[m.end() :]).encode()
            return f"side file {name}: number {m[0]} -> {new}"
    if how < 0.7 and data:
        cut = rng.randrange(len(data))
        doc.extra[name] = data[:cut]
        return f"side file {name} truncated to {cut} of {len(data)} bytes"
    doc.extra[name] = rng.choice(_SIDE_BYTES)
    return f"side file {name} replaced by {doc.extra[name][:20]!r}"
