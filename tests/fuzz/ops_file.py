"""File-level mutations: a bad extension, truncation, invalid UTF-8 bytes, an empty file.

Each operator takes ``(rng, doc)``, edits the document in place and returns a short description. The
byte-level ones set ``doc.data`` (the final bytes); they run last.
"""

from __future__ import annotations

import os

__all__ = ["bad_extension", "truncate", "invalid_utf8", "empty_file"]

_EXTENSIONS = {
    "usd": (".usdc", ".usdz", ".usd", ".xml", ".txt", "", ".USDA", ".usda.bak"),
    "mjcf": (".mjcf", ".urdf", ".txt", "", ".XML", ".usda", ".obj"),
    "urdf": (".xml", ".mjcf", ".txt", "", ".URDF", ".usd", ".stl"),
}

# Byte sequences that are not UTF-8: lone continuation bytes, overlong forms, surrogates, a bad lead
# byte, a truncated sequence; plus NUL and a byte-order mark in the middle of the text.
_BAD_BYTES = (
    b"\xff",
    b"\xfe\xff",
    b"\xc3\x28",
    b"\xa0\xa1",
    b"\xe2\x28\xa1",
    b"\xf0\x28\x8c\xbc",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\x80",
    b"\xe2\x82",
    b"\x00",
    b"\xef\xbb\xbf",
)

_EMPTY = {
    "usd": (b"", b"\n", b"  \n\t\n", b"#usda 1.0\n", b"\xef\xbb\xbf", b"#usda 1.0\n(\n)\n"),
    "mjcf": (b"", b"\n", b"  \n\t\n", b"<mujoco/>", b'<?xml version="1.0"?>', b"<mujoco><worldbody/></mujoco>"),
    "urdf": (b"", b"\n", b"  \n\t\n", b'<robot name="r"/>', b"<robot/>", b'<robot name="r"><link name="a"/></robot>'),
}


def _bytes(doc) -> bytes:
    return doc.data if doc.data is not None else doc.text.encode("utf-8")


def bad_extension(rng, doc):
    """The main file gets an extension its importer does not expect (or a crate / archive extension for
    text, or none)."""
    stem, ext = os.path.splitext(doc.name)
    new = rng.choice([e for e in _EXTENSIONS[doc.kind] if e != ext])
    doc.name = stem + new
    return f"extension {ext} -> {new or '(none)'}"


def truncate(rng, doc):
    """The file is cut at a random byte."""
    data = _bytes(doc)
    cut = rng.randrange(max(len(data), 1))
    doc.data = data[:cut]
    return f"truncated to {cut} of {len(data)} bytes"


def invalid_utf8(rng, doc):
    """Bytes that are not UTF-8 go into the file, half the time just inside a quoted string or name."""
    data = _bytes(doc)
    bad = rng.choice(_BAD_BYTES)
    quotes = [i + 1 for i, c in enumerate(data) if c == ord('"')]
    at = rng.choice(quotes) if quotes and rng.random() < 0.5 else rng.randrange(len(data) + 1)
    doc.data = data[:at] + bad + data[at:]
    return f"invalid utf-8 {bad!r} at byte {at}"


def empty_file(rng, doc):
    """The file is empty, blank, or only a bare header / root element."""
    doc.data = rng.choice(_EMPTY[doc.kind])
    return f"empty file {doc.data!r}"
