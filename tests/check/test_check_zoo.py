"""The model zoo's CI-fast subset: ``benchmarks/model_zoo.py`` on Gymnasium's installed MuJoCo assets (no
download), its markdown table parsed and each model's verdict asserted as it stands today."""

from __future__ import annotations

import contextlib
import io
import os
import sys

import pytest

pytest.importorskip("mujoco")
pytest.importorskip("pxr")
pytest.importorskip("gymnasium")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "benchmarks"))
import model_zoo  # noqa: E402

# model -> (verdict, largest error at 1 s [mm] seen on this machine, with margin for float32 round-off).
EXPECTED = {
    "hopper": ("works", 0.1),
    "walker2d": ("works", 1.0),
    "inverted_pendulum": ("works", 0.01),
    "reacher": ("works", 0.01),
    "humanoid": ("works", 5.0),
}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = io.StringIO()
    cache = str(tmp_path_factory.mktemp("zoo_cache"))
    with contextlib.redirect_stdout(out):
        assert model_zoo.main(["--suite", "gymnasium", "--cache", cache, "--model", *EXPECTED]) == 0
    lines = out.getvalue().splitlines()
    rows = {}
    for line in lines:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0] in EXPECTED:
            rows[cells[0]] = cells
    return rows, lines


@pytest.mark.parametrize("model", sorted(EXPECTED))
def test_gymnasium_model_verdict(table, model):
    rows, _ = table
    name, source, convert, imported, finite, half, full, sensitivity, build, verdict = rows[model]
    assert (source, convert, imported, finite) == ("gymnasium", "yes", "yes", "yes")
    assert verdict == EXPECTED[model][0]
    assert float(full) < EXPECTED[model][1] and float(half) <= 5.0
    assert float(build) > 0.0 and float(sensitivity) >= 0.0


def test_table_header_and_summary(table):
    rows, lines = table
    assert lines[0] == model_zoo.header(1.0)
    n = len(EXPECTED)
    assert lines[-1] == (
        f"{n} models: {n} convert, {n} import, {n} step finite; MJCF compared with MuJoCo: {n} of {n} "
        f"non-chaotic within tolerance (100%), 0 chaotic; URDF: 0 of 0 work"
    )


def test_subset_names_exist():
    """``--subset`` names models the suites list: Gymnasium's are installed, the URDFs are the benchmark's
    own list (dm_control's need the download, which CI does not do)."""
    listed = {
        "gymnasium": {e.name for e in model_zoo.gymnasium_models()},
        "urdf": set(map(model_zoo._stem, model_zoo.URDFS)),
    }
    for suite, name in model_zoo.SUBSET:
        assert suite in ("gymnasium", "dm_control", "urdf")
        assert suite == "dm_control" or name in listed[suite]
