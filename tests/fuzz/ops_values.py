"""Value mutations: bad numbers, values of the wrong type, unknown tokens and broken references.

Each operator takes ``(rng, doc)``, edits ``doc.text`` in place and returns a short description, or None
where the document offers nothing to act on.
"""

from __future__ import annotations

import re

from text_sites import NUMBER, USD_PRIM, number_lines, usd_api_lists, usd_props, xml_attrs, xml_self_closing

__all__ = ["mutate_number", "bad_number", "wrong_type", "unknown_token", "broken_reference"]

# Lines of a USD file that carry physics (most mutations should hit something the importer reads).
_USD_PHYSICS = (
    "physics:",
    "mjc:",
    "newton:",
    "xformOp",
    "radius",
    "height",
    "size",
    "points",
    "PerUnit",
    "Limit",
    "limit:",
    "drive:",
    "axis",
)

_BAD_NUMBERS = ("nan", "inf", "-inf", "1e39", "-1e39", "1e300", "1e18", "-1e18", "negative", "0", "-0", "1e-45")


def bad_number(rng, old: str) -> str:
    """A replacement for the number ``old``: NaN, an infinity, beyond float32, huge, negated, zero or tiny."""
    new = rng.choice(_BAD_NUMBERS)
    if new == "negative":
        try:
            zero = float(old) == 0.0
        except ValueError:
            zero = False
        new = "-1" if zero else old[1:] if old.startswith("-") else "-" + old
    return new


def _clip(s: str, n: int = 70) -> str:
    s = s.strip()
    return s if len(s) <= n else s[: n - 3] + "..."


def mutate_number(rng, doc):
    """One number (or every number of one USD property or XML attribute) becomes NaN, inf, 1e39, huge,
    negative, zero or tiny."""
    if doc.kind != "usd":
        return _xml_number(rng, doc)
    lines = doc.text.split("\n")
    cands = number_lines(doc.text, doc.kind)
    if not cands:
        return None
    physics = [i for i in cands if any(h in lines[i] for h in _USD_PHYSICS)]
    if physics and rng.random() < 0.7:
        cands = physics
    i = rng.choice(cands)
    matches = list(NUMBER.finditer(lines[i]))
    new = bad_number(rng, matches[0][0])
    chosen = matches if rng.random() < 0.25 else [rng.choice(matches)]
    old_line = lines[i]
    for m in sorted(chosen, key=lambda m: -m.start()):
        lines[i] = lines[i][: m.start()] + new + lines[i][m.end() :]
    doc.text = "\n".join(lines)
    which = "all numbers" if len(chosen) > 1 else repr(chosen[0][0])
    return f"number {which} -> {new} (line {i + 1}: {_clip(old_line)})"


def _xml_number(rng, doc):
    attrs = [m for m in xml_attrs(doc.text) if NUMBER.search(m["value"])]
    if not attrs:
        return None
    m = rng.choice(attrs)
    value = m["value"]
    numbers = list(NUMBER.finditer(value))
    new = bad_number(rng, numbers[0][0])
    chosen = numbers if rng.random() < 0.25 else [rng.choice(numbers)]
    for n in sorted(chosen, key=lambda n: -n.start()):
        value = value[: n.start()] + new + value[n.end() :]
    doc.text = doc.text[: m.start("value")] + value + doc.text[m.end("value") :]
    return f'number: {m["name"]}="{_clip(m["value"], 40)}" -> "{_clip(value, 40)}"'


# (type, a literal of that type) for retyping USD properties.
_USD_TYPED = (
    ("string", '"heavy"'),
    ("token", '"Q"'),
    ("bool", "true"),
    ("int", "3"),
    ("float", "2.5"),
    ("double", "-7"),
    ("half", "1"),
    ("uchar", "7"),
    ("float2", "(1, 2)"),
    ("float3", "(1, 2, 3)"),
    ("double3", "(0, 1e39, 0)"),
    ("quatf", "(0, 0, 0, 0)"),
    ("quatd", "(1, 0, 0, 0)"),
    ("color3f", "(1, 0, 0)"),
    ("float[]", "[1, 2]"),
    ("double[]", "[]"),
    ("token[]", '["X", "Y"]'),
    ("int[]", "[1, -1]"),
    ("string[]", '["a"]'),
    ("matrix4d", "((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))"),
    ("asset", "@nothere.usda@"),
    ("rel", "</nothere>"),
    ("point3f[]", "[(0, 0, 0)]"),
)
_XML_WRONG = (
    "abc",
    "",
    "1 2",
    "1 2 3 4 5 6 7 8 9 10 11 12 13",
    "true",
    "0x1F",
    "1,5",
    "1..2",
    " ",
    "1e",
    "-",
    "nan nan nan nan",
    "1 two 3",
    "\u00e9t\u00e9",
)


def wrong_type(rng, doc):
    """A USD property is retyped and/or given a value of another type; an XML attribute a non-numeric,
    empty or over-long value."""
    if doc.kind == "usd":
        lines = doc.text.split("\n")
        props = usd_props(lines)
        if not props:
            return None
        i, m = rng.choice(props)
        new_type, literal = rng.choice(_USD_TYPED)
        how = rng.random()
        if how < 0.6:
            type_, value = new_type, literal  # retyped, value to match
        elif how < 0.8:
            type_, value = new_type, m["value"]  # retyped, old value kept
        else:
            type_, value = m["type"], literal  # old type, value of another type
        lines[i] = f"{m['indent']}{m['qual']}{type_} {m['name']} = {value}"
        doc.text = "\n".join(lines)
        return f"wrong type: {m['type']} {m['name']} = {_clip(m['value'], 30)} -> {type_} ... = {_clip(value, 30)}"
    attrs = xml_attrs(doc.text)
    if not attrs:
        return None
    m = rng.choice(attrs)
    value = rng.choice(_XML_WRONG)
    doc.text = doc.text[: m.start("value")] + value + doc.text[m.end("value") :]
    return f'wrong type: {m["name"]}="{_clip(m["value"], 30)}" -> "{value}"'


_UNKNOWN_TOKENS = ("W", "", "x", "XY", "bogus", "Z ", "-Z", "none", "\u00fcber", "fixed", "rotW")
_UNKNOWN_OPS = ("xformOp:bogus", "xformOp:translate", "!invert!xformOp:orient", "xformOp:rotateXYZ", "rotW", "")
_API_NAMES = (
    "PhysicsBogusAPI",
    "PhysicsLimitAPI:bogus",
    "PhysicsDriveAPI:rotW",
    "PhysicsRigidBodyAPI",
    "PhysicsArticulationRootAPI",
    "PhysicsCollisionAPI",
    "PhysicsMassAPI",
    "PhysicsLimitAPI",
    "PhysicsDriveAPI:angular",
    "NewtonJointAPI",
    "MaterialBindingAPI",
)
_PRIM_TYPES = (
    "Xform",
    "Scope",
    "PhysicsRevoluteJoint",
    "PhysicsPrismaticJoint",
    "PhysicsSphericalJoint",
    "PhysicsFixedJoint",
    "PhysicsDistanceJoint",
    "PhysicsJoint",
    "Sphere",
    "Cube",
    "Capsule",
    "Cylinder",
    "Cone",
    "Mesh",
    "Plane",
    "PhysicsScene",
    "Material",
    "MjcActuator",
    "PhysicsCollisionGroup",
    "Bogus",
)
# XML attributes whose value is a name of another element (their mutation is a broken reference).
_XML_REFS = {
    "joint",
    "body",
    "body1",
    "body2",
    "geom1",
    "geom2",
    "site",
    "class",
    "childclass",
    "mesh",
    "material",
    "texture",
    "tendon",
    "joint1",
    "joint2",
    "target",
    "link",
    "actuator",
    "hfield",
}
_XML_FILES = {"file", "filename", "meshdir", "texturedir", "assetdir"}


def _usd_token_sites(lines):
    """(kind of site, line index, (start, end)) of every token value, token-array entry, apiSchemas entry
    and prim type."""
    sites = []
    for i, m in usd_props(lines):
        line = lines[i]
        if m["type"] == "token":
            q = re.match(r'"[^"]*"', m["value"])
            if q:
                sites.append(("token", i, (m.start("value"), m.start("value") + q.end())))
        elif m["type"] == "token[]":
            for e in re.finditer(r'"[^"]*"', m["value"]):
                sites.append(
                    (
                        "op" if "xformOp" in line else "token",
                        i,
                        (m.start("value") + e.start(), m.start("value") + e.end()),
                    )
                )
    for i, spans in usd_api_lists(lines):
        sites += [("api", i, span) for span in spans]
    for i, line in enumerate(lines):
        p = USD_PRIM.match(line)
        if p and p["type"]:
            sites.append(("prim", i, (p.start("type"), p.end("type"))))
        if re.match(r'\s*upAxis\s*=\s*"', line):
            q = re.search(r'"[^"]*"', line)
            sites.append(("token", i, (q.start(), q.end())))
    return sites


def unknown_token(rng, doc):
    """A token (physics:axis, gain/bias/dyn type, joint or geom type, xformOp, apiSchemas entry, prim type,
    upAxis) becomes an unknown or misplaced one; an XML axis becomes zero or short; an XML tag unknown."""
    if doc.kind == "usd":
        lines = doc.text.split("\n")
        sites = _usd_token_sites(lines)
        if not sites:
            return None
        what, i, (a, b) = rng.choice(sites)
        pool = {"token": _UNKNOWN_TOKENS, "op": _UNKNOWN_OPS, "api": _API_NAMES, "prim": _PRIM_TYPES}[what]
        new = rng.choice(pool)
        new = f" {new}" if what == "prim" else f'"{new}"'
        old = lines[i][a:b]
        lines[i] = lines[i][:a] + new + lines[i][b:]
        doc.text = "\n".join(lines)
        return f"unknown token ({what}): {old.strip()} -> {new.strip()} (line {i + 1})"
    attrs = [m for m in xml_attrs(doc.text) if m["name"] not in _XML_REFS | _XML_FILES | {"name"}]
    words = [m for m in attrs if re.fullmatch(r"[A-Za-z][\w-]*", m["value"])]
    axes = [m for m in attrs if m["name"] in ("axis", "xyz") and m["value"].count(" ") == 2]
    tags = xml_self_closing(doc.text)
    pick = rng.choice([c for c in ("word", "axis", "tag") if {"word": words, "axis": axes, "tag": tags}[c]] or [None])
    if pick is None:
        return None
    if pick == "tag":
        m = rng.choice(tags)
        tag = m["tag"]
        new = rng.choice((tag[::-1], tag + "x", "blob", tag.upper()))
        doc.text = doc.text[: m.start("tag")] + new + doc.text[m.end("tag") :]
        return f"unknown tag: <{tag}> -> <{new}>"
    m = rng.choice(words if pick == "word" else axes)
    new = (
        rng.choice(("bogus", m["value"].upper(), m["value"] + "s", ""))
        if pick == "word"
        else rng.choice(("0 0 0", "1 0", "nan 0 0", "1e-30 0 0", "0 0 1 0"))
    )
    doc.text = doc.text[: m.start("value")] + new + doc.text[m.end("value") :]
    return f'unknown token: {m["name"]}="{m["value"]}" -> "{new}"'


def _usd_reference(rng, doc):
    lines = doc.text.split("\n")
    targets = [(i, t) for i, line in enumerate(lines) for t in re.finditer(r"</[^<>]*>", line)]
    assets = [(i, t) for i, line in enumerate(lines) for t in re.finditer(r"@[^@]*@", line)]
    options = (["target"] if targets else []) + (["asset"] if assets else []) + (["side"] if doc.extra else [])
    if not options:
        return None
    pick = rng.choice(options)
    if pick == "side":
        name = rng.choice(sorted(doc.extra))
        del doc.extra[name]
        return f"broken reference: side file {name} removed"
    if pick == "asset":
        i, t = rng.choice(assets)
        new = rng.choice(
            (
                "@nothere.usda@",
                f"@{doc.name}@",
                "@cube.obj@",
                "@@",
                "@fuzz_part.usda@</nothere>",
                "@/nonexistent/dir/x.usda@",
                "@fuzz_scene.usda@",
            )
        )
    else:
        i, t = rng.choice(targets)
        others = sorted({x[1][0] for x in targets} - {t[0]})  # another target of the file
        new = (
            rng.choice(others)
            if others and rng.random() < 0.4
            else rng.choice(("</nothere>", "</>", "<../up>", "</robot/a.physics:mass>", "None", "</physicsScene>"))
        )
    old = t[0]
    if new == old:
        new = "</nothere>" if old.startswith("<") else "@nothere.usda@"
    lines[i] = lines[i][: t.start()] + new + lines[i][t.end() :]
    doc.text = "\n".join(lines)
    return f"broken reference: {old} -> {new} (line {i + 1}: {_clip(lines[i])})"


def _xml_reference(rng, doc):
    attrs = xml_attrs(doc.text)
    refs = [m for m in attrs if m["name"] in _XML_REFS]
    files = [m for m in attrs if m["name"] in _XML_FILES]
    options = (["ref"] if refs else []) + (["file"] if files else []) + (["side"] if doc.extra else [])
    if not options:
        return None
    pick = rng.choice(options)
    if pick == "side":
        name = rng.choice(sorted(doc.extra))
        del doc.extra[name]
        return f"broken reference: side file {name} removed"
    if pick == "ref":
        m = rng.choice(refs)
        names = sorted({n["value"] for n in attrs if n["name"] in ("name", "link")} - {m["value"]})
        # a name of another element (of another kind, or making a loop), or none at all
        new = rng.choice(names) if names and rng.random() < 0.4 else rng.choice(("nothere", ""))
    else:
        m = rng.choice(files)
        new = rng.choice(
            (
                "nothere.xml",
                doc.name,
                "cube.obj",
                "fuzz_part.xml",
                "/nonexistent/x.obj",
                "",
                "meshes/",
                "package://nopkg/meshes/block.obj",
                "file:///nonexistent/x.stl",
                "../" + m["value"],
            )
        )
    doc.text = doc.text[: m.start("value")] + new + doc.text[m.end("value") :]
    return f'broken reference: {m["name"]}="{m["value"]}" -> "{new}"'


def broken_reference(rng, doc):
    """A reference goes nowhere or to the wrong thing: a USD relationship target (body0/body1, material,
    actuator target), an asset path (reference, sublayer), an MJCF name (joint, body, class, mesh) or file
    (include, mesh), a URDF link or mesh file; or a side file is removed."""
    return _usd_reference(rng, doc) if doc.kind == "usd" else _xml_reference(rng, doc)
